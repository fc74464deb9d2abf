import Foundation

/// When a widget refreshes.
public struct Schedule: Sendable, Hashable {
    /// The rule that gives the refresh times.
    public enum Rule: Sendable, Hashable {
        /// Every interval of elapsed time (never skipped or doubled by DST).
        case every(WidgetDuration)
        /// At these local times of day in the widget's zone.
        case at([TimeOfDay])
        /// A five-field cron expression (or a macro such as `@daily`) in the widget's zone, parsed once.
        case cron(CronExpression)
        /// After the date of the timeline's last entry.
        case atEnd
        /// Only when asked (`widgetd reload`), or at start-up when stale or missing.
        case never
    }

    /// The rule that gives the refresh times; every hour by default.
    public var rule: Rule
    /// A stable, per-widget delay of up to this long added to each due time.
    public var jitter: WidgetDuration?
    /// At most this many refreshes a day in the widget's zone, manual reloads included (WidgetKit's
    /// daily budget); `nil`, the default, for no daily cap: a server has no such budget unless asked.
    public var maxPerDay: Int?
    /// Whether intervals under five minutes were asked for on purpose.
    public var allowFrequent: Bool

    /// The interval of a definition without `schedule`: one hour.
    public static let defaultInterval = WidgetDuration(seconds: 3_600)
    /// The shortest interval allowed without ``allowFrequent``: five minutes.
    public static let frequentLimit = WidgetDuration(seconds: 300)

    /// The default schedule: every hour, with no daily cap.
    public init(
        rule: Rule = .every(Schedule.defaultInterval), jitter: WidgetDuration? = nil,
        maxPerDay: Int? = nil, allowFrequent: Bool = false
    ) {
        self.rule = rule
        self.jitter = jitter
        self.maxPerDay = maxPerDay
        self.allowFrequent = allowFrequent
    }

    /// A short description for `widgetd list`: `every 15m`, `at 08:00,20:00`, `cron 0 */4 * * *`.
    public var summary: String {
        switch rule {
        case .every(let interval): "every \(interval)"
        case .at(let times): "at " + times.map(\.description).joined(separator: ",")
        case .cron(let expression): "cron \(expression)"
        case .atEnd: "atEnd"
        case .never: "never"
        }
    }
}

/// A local time of day, `HH:MM` or `HH:MM:SS`.
public struct TimeOfDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The hour, 0 to 23.
    public var hour: Int
    /// The minute, 0 to 59.
    public var minute: Int
    /// The second, 0 to 59.
    public var second: Int

    /// Creates a time of day from its parts, unchecked; the second is 0 unless given.
    public init(hour: Int, minute: Int, second: Int = 0) {
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The form ``init(_:)`` reads, as a regular expression.
    public static let pattern = "^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$"

    /// Parses `08:00` or `08:00:30` (two digits each, 24-hour clock); `nil` otherwise.
    public init?(_ text: String) {
        // Two digits, ':', two digits, and optionally ':' and two more: read as bytes, without Unicode tables.
        let bytes = Array(text.utf8)
        guard bytes.count == 5 || bytes.count == 8 else { return nil }
        func number(at start: Int) -> Int? {
            guard start > 0 ? bytes[start - 1] == UInt8(ascii: ":") : true else { return nil }
            let (tens, ones) = (bytes[start], bytes[start + 1])
            guard (48...57).contains(tens), (48...57).contains(ones) else { return nil }
            return Int(tens - 48) * 10 + Int(ones - 48)
        }
        guard let hour = number(at: 0), let minute = number(at: 3), hour < 24, minute < 60 else { return nil }
        let second = bytes.count == 8 ? number(at: 6) : 0
        guard let second, second < 60 else { return nil }
        self.init(hour: hour, minute: minute, second: second)
    }

    public var description: String {
        let base = String(format: "%02d:%02d", hour, minute)
        return second == 0 ? base : base + String(format: ":%02d", second)
    }

    /// The seconds from midnight to this time, ignoring DST: `08:30` gives 30600.
    public var secondsSinceMidnight: Int { hour * 3_600 + minute * 60 + second }

    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool {
        lhs.secondsSinceMidnight < rhs.secondsSinceMidnight
    }
}
