/// A length of time written the way definitions write it: `90s`, `15m`, `24h`, `1d`, `1h30m`.
///
/// Units are `d` (24 hours), `h`, `m` and `s`, each at most once and in that order.
public struct WidgetDuration: Sendable, Hashable, Comparable, CustomStringConvertible, Decodable {
    /// The length in seconds.
    public var seconds: Int

    /// Creates a duration of `seconds` seconds.
    public init(seconds: Int) {
        self.seconds = seconds
    }

    /// The form ``init(_:)`` reads, as a regular expression: at least one unit, each of at most 9 digits.
    public static let pattern = "^(?=[0-9])([0-9]{1,9}d)?([0-9]{1,9}h)?([0-9]{1,9}m)?([0-9]{1,9}s)?$"

    /// Parses `text`; `nil` when it is not a duration.
    public init?(_ text: String) {
        // Read as bytes: ASCII digits and unit letters, without Unicode tables.
        let units: [(UInt8, Int)] = [
            (UInt8(ascii: "d"), 86_400), (UInt8(ascii: "h"), 3_600), (UInt8(ascii: "m"), 60), (UInt8(ascii: "s"), 1),
        ]
        var total = 0
        var value = 0
        var digits = 0
        var nextUnit = 0
        var sawComponent = false
        for byte in text.utf8 {
            if (48...57).contains(byte) {
                value = value * 10 + Int(byte - 48)
                digits += 1
                guard digits <= 9 else { return nil }
                continue
            }
            guard digits > 0, let position = units[nextUnit...].firstIndex(where: { $0.0 == byte }) else { return nil }
            total += value * units[position].1
            nextUnit = position + 1
            value = 0
            digits = 0
            sawComponent = true
        }
        guard digits == 0, sawComponent else { return nil }
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

    /// The length in seconds, as a `Double` for Foundation's dates and timers.
    public var timeInterval: Double { Double(seconds) }

    public static func < (lhs: WidgetDuration, rhs: WidgetDuration) -> Bool { lhs.seconds < rhs.seconds }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self = try Self.decoded(try container.decode(String.self), codingPath: container.codingPath)
    }

    /// What ``init(from:)`` makes of `text`, read at `codingPath`: the same duration or the same error.
    static func decoded(_ text: String, codingPath: @autoclosure () -> [any CodingKey]) throws -> WidgetDuration {
        guard let duration = WidgetDuration(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath(), debugDescription: WidgetDuration.problem(text)))
        }
        return duration
    }

    /// The sentence for a string that is not a duration.
    public static func problem(_ text: String) -> String {
        "\"\(text)\" is not a duration; write e.g. \"15m\", \"24h\" or \"1h30m\""
    }
}
