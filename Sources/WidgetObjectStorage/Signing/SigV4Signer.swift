public import Foundation
public import WidgetStages

/// Signs HTTP requests with AWS Signature Version 4 (`AWS4-HMAC-SHA256`), the scheme every
/// S3-compatible store checks.
///
/// The signature covers the method, the path (each segment percent-encoded once, as S3 wants: no
/// double encoding, no dot-segment removal), the sorted query, every header field given (names
/// lower-cased, values trimmed with inner runs of white space made one space, repeated fields joined
/// with commas), `x-amz-date`, `x-amz-security-token` when the credentials carry a session token, and
/// the SHA-256 of the body. The signing key is derived from the secret, the day, the region and the
/// service.
///
/// ```swift
/// let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3")
/// let signed = signer.sign(
///     method: "GET", path: "/bucket/news.json", query: [], headers: [:], host: "127.0.0.1:8333",
///     payloadHash: SigV4Signer.emptyPayloadHash, date: Date()
/// )
/// for field in signed.headers { request.headers.add(name: field.name, value: field.value) }
/// ```
public struct SigV4Signer: Sendable {
    /// The algorithm's name, first in the string to sign and the `Authorization` header.
    public static let algorithm = "AWS4-HMAC-SHA256"
    /// The SHA-256 of an empty body, in hexadecimal.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The keys that sign.
    public var credentials: S3Credentials
    /// The region (`us-east-1`), part of the credential scope.
    public var region: String
    /// The service (`s3`), part of the credential scope.
    public var service: String

    /// A signer for `service` in `region` with `credentials`.
    public init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// A signed request's parts: the header fields to add, and the steps that made them (for tests).
    public struct Signature: Sendable, Hashable {
        /// The fields to send beside the request's own: `X-Amz-Date`, `X-Amz-Content-SHA256` (when asked),
        /// `X-Amz-Security-Token` (with a session token) and `Authorization`.
        public var headers: HTTPHeaders
        /// The canonical request (task 1 of the scheme).
        public var canonicalRequest: String
        /// The string to sign (task 2).
        public var stringToSign: String
        /// The signature, 64 hexadecimal digits (task 3).
        public var signature: String
        /// The `Authorization` header's value.
        public var authorization: String
    }

    /// Signs one request.
    ///
    /// - Parameters:
    ///   - method: `GET`, `PUT`, …
    ///   - path: The path as the server will decode it (`/bucket/a b.json`), not percent-encoded; use
    ///     ``encodePath(_:)`` for the URL so both agree.
    ///   - query: The query's names and values, not percent-encoded, in any order.
    ///   - headers: The fields the request sends that the signature covers (all of them); a `Host` field
    ///     among them wins over `host`.
    ///   - host: The `Host` the request will carry (`127.0.0.1:8333`), signed but not added to the fields.
    ///   - payloadHash: The body's SHA-256 in hexadecimal (``emptyPayloadHash`` for none).
    ///   - date: The moment of signing; the store refuses a signature more than about 15 minutes off.
    ///   - sendPayloadHash: Whether to send and sign `x-amz-content-sha256` (S3 requires it).
    public func sign(
        method: String, path: String, query: [(name: String, value: String)], headers: HTTPHeaders, host: String?,
        payloadHash: String, date: Date, sendPayloadHash: Bool = true
    ) -> Signature {
        let (day, stamp) = Self.timestamps(date)
        var added = HTTPHeaders()
        added.add(name: "X-Amz-Date", value: stamp)
        if sendPayloadHash { added.add(name: "X-Amz-Content-SHA256", value: payloadHash) }
        if let token = credentials.sessionToken { added.add(name: "X-Amz-Security-Token", value: token) }

        var signedFields = Array(headers) + Array(added)
        if let host, !headers.contains(name: "Host") { signedFields.append(HTTPHeaders.Field(name: "Host", value: host)) }
        let (canonicalHeaders, signedHeaders) = Self.canonicalHeaders(signedFields)
        let canonicalRequest = [
            method.uppercased(), Self.encodePath(path), Self.canonicalQuery(query), canonicalHeaders, signedHeaders, payloadHash,
        ].joined(separator: "\n")

        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            Self.algorithm, stamp, scope, SHA256.hexDigest(of: Data(canonicalRequest.utf8)),
        ].joined(separator: "\n")
        let signature = HMACSHA256.hex(HMACSHA256.authenticationCode(for: Data(stringToSign.utf8), key: signingKey(day: day)))
        let authorization =
            "\(Self.algorithm) Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
        added.add(name: "Authorization", value: authorization)
        return Signature(
            headers: added, canonicalRequest: canonicalRequest, stringToSign: stringToSign, signature: signature,
            authorization: authorization)
    }

    /// The key that signs on `day` (`20150830`): HMACs of the day, region, service and `aws4_request`,
    /// chained from `AWS4` + the secret.
    public func signingKey(day: String) -> [UInt8] {
        var key = HMACSHA256.authenticationCode(for: Data(day.utf8), key: Data(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [region, service, "aws4_request"] {
            key = HMACSHA256.authenticationCode(for: Data(part.utf8), key: key)
        }
        return key
    }

    // MARK: - Canonical forms

    /// `path` with each segment percent-encoded (everything but RFC 3986's unreserved `A–Z a–z 0–9 - _ . ~`),
    /// the slashes kept: the canonical URI, and the path to put in the URL. An empty path is `/`.
    public static func encodePath(_ path: String) -> String {
        guard !path.isEmpty else { return "/" }
        return path.split(separator: "/", omittingEmptySubsequences: false).map { encode(String($0)) }.joined(separator: "/")
    }

    /// The query in canonical form: names and values percent-encoded (``encode(_:)``), sorted by name then
    /// value, joined with `&`; also the query string to put in the URL.
    public static func canonicalQuery(_ query: [(name: String, value: String)]) -> String {
        let pairs: [(name: String, value: String)] = query.map { (encode($0.name), encode($0.value)) }
        let sorted = pairs.sorted { (left, right) -> Bool in
            left.name == right.name ? left.value < right.value : left.name < right.name
        }
        return sorted.map { $0.name + "=" + $0.value }.joined(separator: "&")
    }

    /// `text` percent-encoded as SigV4 wants: every byte of its UTF-8 but the unreserved characters, as `%XX`
    /// with upper-case digits (`/` too).
    public static func encode(_ text: String) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var bytes = [UInt8]()
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if unreserved[Int(byte)] {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0xF)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether each byte is one of RFC 3986's unreserved characters, kept as it is.
    private static let unreserved: [Bool] = (0...255).map { value in
        let character = Character(Unicode.Scalar(UInt8(value)))
        return value < 128 && (character.isLetter || character.isNumber || "-_.~".contains(character))
    }

    /// The canonical header block (`name:value\n` for each name, sorted) and the signed headers list
    /// (`host;x-amz-date`).
    static func canonicalHeaders(_ fields: [HTTPHeaders.Field]) -> (block: String, signed: String) {
        var values: [String: [String]] = [:]
        for field in fields {
            values[field.name.lowercased(), default: []].append(canonicalValue(field.value))
        }
        let names = values.keys.sorted()
        let block = names.map { "\($0):\(values[$0]!.joined(separator: ","))\n" }.joined()
        return (block, names.joined(separator: ";"))
    }

    /// `value` trimmed, each inner run of white space (a folded line's too) made one space.
    static func canonicalValue(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).joined(separator: " ")
    }

    /// The day (`20150830`) and the instant (`20150830T123600Z`) of `date`, in UTC.
    static func timestamps(_ date: Date) -> (day: String, stamp: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        let day = "\(parts.year ?? 1970)\(two(parts.month))\(two(parts.day))"
        return (day, "\(day)T\(two(parts.hour))\(two(parts.minute))\(two(parts.second))Z")
    }
}
