public import Foundation

extension Schedule {
    /// The next refresh after `date`, before jitter; `nil` for `never`, and for `atEnd` without entries.
    ///
    /// - Parameters:
    ///   - date: the moment to look after (usually the end of the last refresh).
    ///   - timeZone: the widget's zone, for `at` and `cron`.
    ///   - lastEntryDate: the date of the timeline's last entry, for `atEnd`.
    public func nextRefresh(after date: Date, timeZone: TimeZone, lastEntryDate: Date? = nil) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        switch rule {
        case .every(let interval):
            return date.addingTimeInterval(interval.timeInterval)
        case .at(let times):
            // Day by day, each time's first occurrence in that day: a time in a repeated hour fires once
            // (searching after the first occurrence would find the second one), a skipped one after the gap.
            var dayStart = calendar.startOfDay(for: date)
            for _ in 0..<3 {
                var best: Date?
                for time in times {
                    if let candidate = calendar.firstOccurrence(
                        hour: time.hour, minute: time.minute, second: time.second, onDayStarting: dayStart
                    ), candidate > date, candidate < (best ?? .distantFuture) {
                        best = candidate
                    }
                }
                if let best { return best }
                guard let following = calendar.date(byAdding: .day, value: 1, to: dayStart) else { return nil }
                dayStart = calendar.startOfDay(for: following)
            }
            return nil
        case .cron(let expression):
            return expression.nextDate(after: date, calendar: calendar)
        case .atEnd:
            guard let lastEntryDate else { return nil }
            return lastEntryDate > date ? lastEntryDate : nil
        case .never:
            return nil
        }
    }

    /// The typical gap between refreshes, which caps retry backoff: the interval of `every`, otherwise
    /// the gap from `date` to the next refresh, otherwise a day.
    public func typicalInterval(after date: Date, timeZone: TimeZone) -> TimeInterval {
        if case .every(let interval) = rule { return interval.timeInterval }
        if let next = nextRefresh(after: date, timeZone: timeZone) { return max(60, next.timeIntervalSince(date)) }
        return 86_400
    }

    /// A stable delay in `0..<jitter` for `id`: the same for the same widget on every run and machine.
    public func jitterOffset(for id: String) -> TimeInterval {
        guard let jitter, jitter.seconds > 0 else { return 0 }
        return TimeInterval(StableHash.fnv1a(id.utf8) % UInt64(jitter.seconds))
    }
}
