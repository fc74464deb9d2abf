import Foundation
public import WidgetCore
public import WidgetJSON

/// Takes the payload as text: `"parser": "text"` or `{"type": "text", "lines": true}`.
///
/// The value is the whole text as a string, or with `lines` an array of its lines (without line
/// endings; with `skipEmpty` blank lines are dropped). `trim` removes surrounding whitespace. A leading
/// byte-order mark is not part of the text.
public struct TextParser: Parser {
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// Split into an array of lines.
        public var lines: Bool
        /// Remove whitespace around the text (or each line).
        public var trim: Bool
        /// With `lines`, drop empty lines.
        public var skipEmpty: Bool

        public enum CodingKeys: String, DescribedKey {
            case lines, trim, skipEmpty

            public var keyDescription: KeyDescription {
                switch self {
                case .lines: KeyDescription("Split the text into an array of lines.", .boolean, default: false)
                case .trim: KeyDescription("Remove whitespace around the text, or around each line.", .boolean, default: false)
                case .skipEmpty: KeyDescription("With lines, drop the empty ones.", .boolean, default: false)
                }
            }
        }
    }

    public static let typeName = "text"
    public static let summary = "Takes the payload as a string, or as an array of lines."

    /// Whether the value is an array of lines rather than one string; `false` by default.
    public let lines: Bool
    /// Whether whitespace and newlines around the text, or each line, are removed; `false` by default.
    public let trim: Bool
    /// Whether empty lines are dropped when splitting into lines (after ``trim``); `false` by default.
    public let skipEmpty: Bool

    public init(options: Options) {
        lines = options.lines
        trim = options.trim
        skipEmpty = options.skipEmpty
    }

    public func parse(_ payload: Payload, context: StageContext) throws -> WidgetValue {
        var text = payload.text
        // A byte-order mark starts the encoding, not the text.
        if text.unicodeScalars.first == "\u{FEFF}" { text.unicodeScalars.removeFirst() }
        func tidy(_ text: Substring) -> String {
            trim ? text.trimmingCharacters(in: .whitespacesAndNewlines) : String(text)
        }
        guard lines else { return .string(tidy(Substring(text))) }
        var result: [WidgetValue] = []
        // The list and its lines count as values, as in every other parser; one line more may be the
        // text's empty end, dropped after the loop.
        let limits = payload.valueLimits
        let tooMany = StageError(limits.tooManyValuesMessage("the text from \(payload.origin)"))
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let value = tidy(line)
            if skipEmpty, value.isEmpty { continue }
            guard result.count < limits.maximumValues else { throw tooMany }
            result.append(.string(value))
        }
        if let last = result.last, last == "", !skipEmpty { result.removeLast() }
        guard result.count < limits.maximumValues else { throw tooMany }
        return .array(result)
    }
}
