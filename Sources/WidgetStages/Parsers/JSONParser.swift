public import WidgetCore

/// Parses JSON into an exact value: `"parser": "json"`.
///
/// Numbers keep their digits; a payload that is an HTML page (an error page sent with status 200) is
/// reported as such rather than as a syntax error at its first `<`.
public struct JSONParser: Parser {
    public struct Options: Decodable, Sendable {}

    public static let typeName = "json"
    public static let summary = "Parses JSON, keeping numbers exact."

    public init(options: Options) {}

    public func parse(_ payload: Payload, context: StageContext) throws -> WidgetValue {
        do {
            return try JSONReader.read(payload.data)
        } catch {
            if payload.contentType == "text/html" || payload.data.prefix(64).contains(UInt8(ascii: "<")) && error.offset < 64 {
                throw StageError("\(payload.origin) sent an HTML page (\(payload.contentType ?? "no content type")) where JSON was expected")
            }
            throw StageError("the payload from \(payload.origin) is not valid JSON: \(error)")
        }
    }
}
