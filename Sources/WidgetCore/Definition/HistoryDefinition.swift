public import WidgetJSON

/// A definition's `history`: which values each fresh refresh adds to the widget's series, and how much
/// of them is kept.
///
/// ```json
/// "history": {"keep": "7d", "points": 1000, "values": {"total": "$.totalValue", "down": "$.downloadSpeed"}}
/// ```
///
/// Each value is an RFC 9535 JSONPath evaluated against the content of the entry current at the refresh
/// (the last entry whose date is not after the refresh, else the first). A fresh refresh adds one point
/// to each series whose path gives a single number, string or boolean; anything else adds no point. A
/// series keeps the points younger than ``keep``, and ``points`` of them at most.
public struct HistoryDefinition: Sendable, Hashable {
    /// One named series: its name, as templates read it (`history.NAME`), and the path of its value.
    public struct Series: Sendable, Hashable {
        /// The series' name: a letter or `_`, then letters, digits or `_`.
        public var name: String
        /// Where its value is in the current entry's content.
        public var path: JSONPath

        /// The series `name` of the value at `path`.
        public init(name: String, path: JSONPath) {
            self.name = name
            self.path = path
        }
    }

    /// How old a point may grow before it is dropped: seven days unless the definition says.
    public var keep: WidgetDuration
    /// How many points each series keeps at most, the newest: 1000 unless the definition says.
    public var points: Int
    /// The series, in the order the definition writes them.
    public var values: [Series]

    /// `keep` when the definition sets none: seven days.
    public static let defaultKeep = WidgetDuration(seconds: 7 * 86_400)
    /// The longest `keep`: 400 days, a year and a month to spare.
    public static let maximumKeep = WidgetDuration(seconds: 400 * 86_400)
    /// `points` when the definition sets none.
    public static let defaultPoints = 1_000
    /// The most `points` a definition may set.
    public static let maximumPoints = 10_000
    /// What a series' name looks like, as a regular expression.
    public static let namePattern = "^[A-Za-z_][A-Za-z0-9_]*$"

    /// A history of `values`, bounded by `keep` and `points` (the defaults unless given).
    public init(keep: WidgetDuration = HistoryDefinition.defaultKeep, points: Int = HistoryDefinition.defaultPoints, values: [Series]) {
        self.keep = keep
        self.points = points
        self.values = values
    }

    /// The series named `name`, if the definition has one.
    public func series(named name: String) -> Series? {
        values.first { $0.name == name }
    }

    /// Whether `name` is a valid series name (see ``namePattern``).
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }
}

extension HistoryDefinition: Decodable, DescribedOptions {
    public enum CodingKeys: String, DescribedKey {
        case keep, points, values

        public var keyDescription: KeyDescription {
            switch self {
            case .keep:
                KeyDescription(
                    "How long a point is kept, at most 400d; older points are dropped.", .duration,
                    default: .string(HistoryDefinition.defaultKeep.description))
            case .points:
                KeyDescription(
                    "How many points each series keeps at most, the newest.",
                    .integer(minimum: 1, maximum: HistoryDefinition.maximumPoints),
                    default: .number(WidgetNumber(HistoryDefinition.defaultPoints)))
            case .values:
                KeyDescription(
                    "The series, by name (letters, digits, '_'): each a JSONPath into the content of the entry current at the refresh; templates read it as history.NAME.",
                    .map(.jsonPath), required: true)
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        self.init(values: [])
        let members = try DescribedMembers(ValueDecoder(decoder), keyedBy: CodingKeys.self) { _ in
            "\"history\" must be an object such as {\"keep\": \"7d\", \"values\": {\"total\": \"$.totalValue\"}}"
        }
        if let written = try members.duration(.keep, what: "\"keep\"") {
            if written.seconds < 1 || written > Self.maximumKeep {
                try members.report(.keep, "\"keep\" is from 1s to 400d; write e.g. \"7d\" or \"30d\"")
            } else {
                keep = written
            }
        }
        points =
            try members.integer(
                .points, in: 1...Self.maximumPoints,
                problem: "\"points\" must be a whole number from 1 to \(Self.maximumPoints); write e.g. \(Self.defaultPoints)")
            ?? points
        guard let written = members.value(.values) else {
            try members.report(nil, "\"history\" has no \"values\"; add e.g. \"values\": {\"total\": \"$.totalValue\"}")
            return
        }
        guard case .object(let object) = written, !object.isEmpty else {
            try members.report(.values, "\"values\" must be an object of named JSONPaths such as {\"total\": \"$.totalValue\"}")
            return
        }
        let path = members.path(.values)
        for (name, value) in object {
            guard Self.isValidName(name) else {
                try members.decoder.report(
                    OptionsError(
                        path: path.appending(name),
                        message:
                            "\"\(name)\" is not a series name: templates read it as history.NAME, so it is a letter or '_', then letters, digits or '_'; write e.g. \"total\"",
                        pointsAtKey: true))
                continue
            }
            guard case .string(let text) = value else {
                try members.decoder.report(
                    OptionsError(
                        path: path.appending(name),
                        message: "the series \"\(name)\" must be a JSONPath string, not \(value.typeName); write e.g. \"$.totalValue\""))
                continue
            }
            do throws(ExpressionError) {
                values.append(Series(name: name, path: try JSONPath(text)))
            } catch {
                try members.decoder.report(
                    OptionsError(
                        path: path.appending(name),
                        message: "\"\(text)\" is not a JSONPath: \(error.description); write e.g. \"$.totalValue\"",
                        expressionColumn: error.column))
            }
        }
    }
}
