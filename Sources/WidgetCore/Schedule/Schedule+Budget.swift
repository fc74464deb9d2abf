extension Schedule {
    /// How many times the rule fires in one local day without a daylight-saving change, on a day it fires
    /// at all; `nil` for `atEnd` and `never`, which depend on the data or on people.
    ///
    /// `every` gives the most refreshes a day can hold (86,400 seconds over the interval, rounded up);
    /// `at` its number of times; `cron` its hours times its minutes, as ``CronExpression/nextDate(after:calendar:)``
    /// fires them. `validate` compares this with ``maxPerDay``: past the budget, refreshes wait for the
    /// next day.
    ///
    /// ```swift
    /// Schedule(rule: .every(WidgetDuration(seconds: 60))).firingsPerDay // 1440
    /// ```
    public var firingsPerDay: Int? {
        switch rule {
        case .every(let interval): (86_400 + interval.seconds - 1) / max(1, interval.seconds)
        case .at(let times): times.count
        case .cron(let expression): expression.firingsPerMatchingDay
        case .atEnd, .never: nil
        }
    }

    /// Intervals of whole minutes that people choose, for a suggestion that fits a budget.
    private static let roundIntervals = [5, 10, 15, 20, 30, 60, 120, 180, 240, 360, 480, 720, 1_440]

    /// Why this schedule does not fit ``maxPerDay``, with the numbers and a fix; `nil` when it fits, and
    /// always without a ``maxPerDay`` (no daily cap).
    ///
    /// `every 1m` with `maxPerDay` 100: `every 1m fires 1,440 times a day, but maxPerDay is 100: …`.
    public var budgetProblem: String? {
        guard let maxPerDay, let firings = firingsPerDay, firings > maxPerDay else { return nil }
        let rule: String
        var fix = "raise \"maxPerDay\" to \(Self.grouped(firings))"
        switch self.rule {
        case .every(let interval):
            let exact = 86_400 % max(1, interval.seconds) == 0
            rule = "every \(interval) fires \(exact ? "" : "up to ")\(Self.grouped(firings)) times a day"
            if let minutes = Self.roundIntervals.first(where: { 1_440 / $0 <= maxPerDay }) {
                let slower = WidgetDuration(seconds: minutes * 60)
                fix += ", or refresh less often: every \(slower) fires \(1_440 / minutes) times"
            }
        case .at(let times):
            rule = "at lists \(Self.grouped(times.count)) times of day"
            fix += ", or list fewer times"
        case .cron(let expression):
            rule = "cron \"\(expression)\" fires \(Self.grouped(firings)) times on each day it runs"
            fix += ", or fire less often"
        case .atEnd, .never:
            return nil
        }
        return
            "\(rule), but maxPerDay is \(Self.grouped(maxPerDay)): after \(Self.grouped(maxPerDay)) refreshes in a day the widget waits for the next day; \(fix)"
    }

    /// `1440` as `1,440`, whatever the locale.
    static func grouped(_ number: Int) -> String {
        var digits = String(number.magnitude)
        var groups: [Substring] = []
        while digits.count > 3 {
            groups.insert(digits.suffix(3), at: 0)
            digits.removeLast(3)
        }
        groups.insert(Substring(digits), at: 0)
        return (number < 0 ? "-" : "") + groups.joined(separator: ",")
    }
}

extension CronExpression {
    /// How many times the expression fires on a day it matches, without a daylight-saving change: every
    /// chosen minute of every chosen hour.
    public var firingsPerMatchingDay: Int { hours.count * minutes.count }
}
