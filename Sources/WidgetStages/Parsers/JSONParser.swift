import Foundation
public import WidgetCore
public import WidgetJSON

/// Parses JSON into an exact value: `"parser": "json"`.
///
/// Numbers keep their digits; a payload that is an HTML page (an error page sent with status 200) is
/// reported as such rather than as a syntax error at its first `<`.
///
/// The body decides, not its label: JSON sent as `text/plain`, `application/octet-stream` or even
/// `text/html` (a common default of server frameworks) parses, since rejecting it would break working
/// APIs for no gain. A body that does not parse is reported as an HTML page when it is labelled
/// `text/html` or starts with `<`, and as invalid JSON otherwise.
///
/// An empty body — no bytes, or only white space — is "no data", not a syntax error: many APIs answer
/// `204 No Content` (or an empty `200`) when there is nothing to report, as aviationweather.gov does for
/// a station without a METAR. By default it fails the refresh with a sentence saying so; with
/// `{"type": "json", "empty": "null"}` it is read as `null`, for the transforms to handle:
///
/// ```json
/// "parser": {"type": "json", "empty": "null"}
/// ```
public struct JSONParser: Parser {
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// What an empty body gives: `"error"` or `"null"`.
        public var empty: EmptyBody

        /// Options with `empty` as written in a definition.
        public init(empty: EmptyBody) {
            self.empty = empty
        }

        public enum CodingKeys: String, DescribedKey {
            case empty

            public var keyDescription: KeyDescription {
                switch self {
                case .empty:
                    KeyDescription(
                        "What an empty body (HTTP 204, an empty 200) gives: a failed refresh, or null for the transforms to handle.",
                        .oneOf(EmptyBody.allCases.map(\.rawValue)), default: .string(EmptyBody.error.rawValue),
                        fix: "use \"null\" to read an empty body as null, or \"error\" (the default)"
                    )
                }
            }
        }
    }

    /// What an empty body gives.
    public enum EmptyBody: String, Sendable, CaseIterable, Decodable {
        /// The refresh fails, saying the body was empty.
        case error
        /// The value is `null`.
        case null
    }

    public static let typeName = "json"
    public static let summary = "Parses JSON, keeping numbers exact; an empty body is an error or, with \"empty\": \"null\", null."

    /// What an empty body gives; ``EmptyBody/error`` unless the definition says `"null"`.
    public let empty: EmptyBody

    /// Takes the options as the decoder checked them.
    public init(options: Options) {
        empty = options.empty
    }

    public func parse(_ payload: Payload, context: StageContext) throws -> WidgetValue {
        if Self.isEmpty(payload.data) {
            switch empty {
            case .null:
                return .null
            case .error:
                let status = payload.status.map { " (HTTP \($0))" } ?? ""
                throw StageError(
                    "\(payload.origin) sent an empty body\(status) where JSON was expected; if that means \"no data\", add \"empty\": \"null\" to the parser to read it as null"
                )
            }
        }
        do {
            return try payload.valueLimits.readJSON(payload.data, "the JSON from \(payload.origin)")
        } catch let error as StageError {
            throw error
        } catch {
            if payload.contentType == "text/html" || Self.startsWithMarkup(payload.data) {
                throw StageError(
                    "\(payload.origin) sent an HTML page (\(payload.contentType ?? "no content type")) where JSON was expected")
            }
            throw StageError("the payload from \(payload.origin) is not valid JSON: \(error)")
        }
    }

    /// Whether `data` has nothing but JSON white space (and perhaps a byte-order mark).
    static func isEmpty(_ data: Data) -> Bool {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        return bytes.allSatisfy { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
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
