import Foundation
public import WidgetCore

/// Parses JSON into an exact value: `"parser": "json"`.
///
/// Numbers keep their digits; a payload that is an HTML page (an error page sent with status 200) is
/// reported as such rather than as a syntax error at its first `<`.
///
/// The body decides, not its label: JSON sent as `text/plain`, `application/octet-stream` or even
/// `text/html` (a common default of server frameworks) parses, since rejecting it would break working
/// APIs for no gain. A body that does not parse is reported as an HTML page when it is labelled
/// `text/html` or starts with `<`, and as invalid JSON otherwise; an empty body is invalid JSON.
public struct JSONParser: Parser {
    public struct Options: Decodable, Sendable {
        public init() {}

        /// Opens the options object so that the strict options decoder rejects every member: there are none.
        public init(from decoder: any Decoder) throws {
            _ = try decoder.container(keyedBy: AnyCodingKey.self)
        }
    }

    public static let typeName = "json"
    public static let summary = "Parses JSON, keeping numbers exact."

    public init(options: Options) {}

    public func parse(_ payload: Payload, context: StageContext) throws -> WidgetValue {
        do {
            return try JSONReader.read(payload.data)
        } catch {
            if payload.contentType == "text/html" || Self.startsWithMarkup(payload.data) {
                throw StageError("\(payload.origin) sent an HTML page (\(payload.contentType ?? "no content type")) where JSON was expected")
            }
            throw StageError("the payload from \(payload.origin) is not valid JSON: \(error)")
        }
    }

    /// Whether the first byte after any byte-order mark and whitespace is `<`: a page, not a JSON document
    /// (a `<` inside a JSON string near the start is not).
    static func startsWithMarkup(_ data: Data) -> Bool {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return first == UInt8(ascii: "<")
    }
}
