public import Foundation

/// What a server answered to an ``HTTPRequest``.
///
/// Every status is a response, including 4xx and 5xx: deciding what a status means is the caller's job.
///
/// ```swift
/// let response = try await client.send(request)
/// if response.status == 429, let delay = response.retryAfter(now: context.now) { … }
/// let text = String(decoding: response.body, as: UTF8.self)
/// ```
public struct HTTPResponse: Sendable, Hashable {
    /// The status code (`200`).
    public var status: Int
    /// The response header fields, looked up without regard to case.
    public var headers: HTTPHeaders
    /// The whole body (decompressed when the server used a content encoding).
    public var body: Data
    /// The URL that answered, after redirects.
    public var finalURL: URL
    /// The media type from `Content-Type`, lowercased and without parameters (`application/json`).
    public var contentType: String?
    /// The `charset` parameter of `Content-Type`, lowercased (`utf-8`), when present.
    public var charset: String?

    /// A response with `status`, `headers` and `body`, from `finalURL`; its media type and charset are read
    /// from `Content-Type`.
    public init(status: Int, headers: HTTPHeaders, body: Data, finalURL: URL) {
        self.status = status
        self.headers = headers
        self.body = body
        self.finalURL = finalURL
        (contentType, charset) = Self.parseContentType(headers["Content-Type"])
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The delay the server asked for in `Retry-After`, in seconds (see ``HTTPClient/retryAfter(_:now:)``).
    public func retryAfter(now: Date) -> Double? {
        headers["Retry-After"].flatMap { HTTPClient.retryAfter($0, now: now) }
    }

    /// Splits a `Content-Type` value into its media type and charset, both lowercased.
    static func parseContentType(_ value: String?) -> (mediaType: String?, charset: String?) {
        guard let value else { return (nil, nil) }
        let parts = value.split(separator: ";", omittingEmptySubsequences: false)
        let mediaType = parts.first.map { CurlAttempt.trimmed($0).lowercased() }
        var charset: String?
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2,
                CurlAttempt.trimmed(pair[0]).lowercased() == "charset"
            else { continue }
            var text = CurlAttempt.trimmed(pair[1])
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
                text = String(text.dropFirst().dropLast())
            }
            charset = text.isEmpty ? nil : text.lowercased()
        }
        return (mediaType?.isEmpty == false ? mediaType : nil, charset)
    }
}
