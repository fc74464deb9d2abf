public import Foundation
public import WidgetStages

/// A request as ``TestHTTPServer`` received it.
///
/// ```swift
/// TestHTTPRoute("GET", "/items") { request in
///     let size = Int(request.query("size") ?? "") ?? 3
///     return .json(["count": .number(WidgetNumber(size))])
/// }
/// ```
public struct TestHTTPRequest: Sendable, Hashable {
    /// The method, as sent (`GET`, `POST`).
    public var method: String
    /// The request target as sent: the path and the query, still percent-encoded (`/json?size=2`).
    public var target: String
    /// The header fields, in order; names are looked up without regard to case.
    public var headers: HTTPHeaders
    /// The body (empty when none was sent).
    public var body: Data

    /// A request as received; by default without header fields or body.
    public init(method: String, target: String, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// The path of ``target``, still percent-encoded: `/json`.
    public var path: String {
        String(target[..<(target.firstIndex { $0 == "?" || $0 == "#" } ?? target.endIndex)])
    }

    /// The path with its percent-escapes decoded (invalid UTF-8 replaced): what routes match.
    public var decodedPath: String {
        Self.percentDecoded(path, plusIsSpace: false)
    }

    /// The query of ``target``, without the `?` and still percent-encoded: `size=2&tag=a`; empty when none.
    public var queryString: String {
        guard let mark = target.firstIndex(of: "?") else { return "" }
        let query = target[target.index(after: mark)...]
        return String(query[..<(query.firstIndex(of: "#") ?? query.endIndex)])
    }

    /// The query's parameters, in order, decoded as a form (`+` is a space); a name without `=` has the
    /// value `""`.
    public var queryItems: [(name: String, value: String)] {
        queryString.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (
                Self.percentDecoded(String(parts[0]), plusIsSpace: true),
                parts.count > 1 ? Self.percentDecoded(String(parts[1]), plusIsSpace: true) : ""
            )
        }
    }

    /// The first value of the query parameter `name`, decoded; `nil` when the query has none.
    public func query(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The body as UTF-8 text, invalid bytes replaced.
    public var text: String {
        String(decoding: body, as: UTF8.self)
    }

    /// `text` with each `%XX` replaced by its byte, and with `+` as a space when `plusIsSpace`; escapes
    /// that are not two hexadecimal digits stay as they are.
    static func percentDecoded(_ text: String, plusIsSpace: Bool) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return text
        }
        let bytes = Array(text.utf8)
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
