/// A length of time written the way definitions write it: `90s`, `15m`, `24h`, `1d`, `1h30m`.
///
/// Units are `d` (24 hours), `h`, `m` and `s`, each at most once and in that order.
public struct WidgetDuration: Sendable, Hashable, Comparable, CustomStringConvertible, Decodable {
    /// The length in seconds.
    public var seconds: Int

    public init(seconds: Int) {
        self.seconds = seconds
    }

    /// The form ``init(_:)`` reads, as a regular expression: at least one unit, each of at most 9 digits.
    public static let pattern = "^(?=[0-9])([0-9]{1,9}d)?([0-9]{1,9}h)?([0-9]{1,9}m)?([0-9]{1,9}s)?$"

    /// Parses `text`; `nil` when it is not a duration.
    public init?(_ text: String) {
        let units: [(Character, Int)] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]
        var total = 0
        var digits = ""
        var nextUnit = 0
        var sawComponent = false
        for character in text {
            if character.isASCII, character.isNumber {
                digits.append(character)
                guard digits.count <= 9 else { return nil }
                continue
            }
            guard !digits.isEmpty, let value = Int(digits),
                let position = units[nextUnit...].firstIndex(where: { $0.0 == character })
            else { return nil }
            total += value * units[position].1
            nextUnit = position + 1
            digits = ""
            sawComponent = true
        }
        guard digits.isEmpty, sawComponent else { return nil }
        seconds = total
    }

    /// The shortest spelling: `1h30m`, `90s` becomes `1m30s`.
    public var description: String {
        if seconds == 0 { return "0s" }
        var rest = seconds
        var text = ""
        for (unit, size) in [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)] where rest >= size {
            text += "\(rest / size)\(unit)"
            rest %= size
        }
        return text
    }

    public var timeInterval: Double { Double(seconds) }

    public static func < (lhs: WidgetDuration, rhs: WidgetDuration) -> Bool { lhs.seconds < rhs.seconds }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let duration = WidgetDuration(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: WidgetDuration.problem(text))
        }
        self = duration
    }

    /// The sentence for a string that is not a duration.
    public static func problem(_ text: String) -> String {
        "\"\(text)\" is not a duration; write e.g. \"15m\", \"24h\" or \"1h30m\""
    }
}
