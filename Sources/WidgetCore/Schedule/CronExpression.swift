public import Foundation
public import WidgetJSON

/// A five-field cron expression with Vixie cron's semantics.
///
/// Fields are minute (0–59), hour (0–23), day of month (1–31), month (1–12 or `jan`–`dec`) and day of
/// week (0–7 or `sun`–`sat`, 0 and 7 both Sunday). Each field takes `*`, numbers, names, ranges `a-b`,
/// steps `*/n` and `a-b/n`, and lists `a,b,c`. The macros `@yearly`, `@annually`, `@monthly`,
/// `@weekly`, `@daily`, `@midnight` and `@hourly` stand for their usual expressions. When both the day of
/// month and the day of week are restricted (neither starts with `*`), a day matches if either does.
///
/// ```swift
/// let cron = try CronExpression("0 */4 * * *")
/// ```
public struct CronExpression: Sendable, Hashable, CustomStringConvertible {
    /// The expression as written, e.g. `0 */4 * * *` or `@daily`.
    public let text: String
    let minutes: CronField
    let hours: CronField
    let daysOfMonth: CronField
    let months: CronField
    let daysOfWeek: CronField
    let dayOfMonthRestricted: Bool
    let dayOfWeekRestricted: Bool

    /// Whether every hour of the day matches (an hourly or finer rule).
    public var coversEveryHour: Bool { hours.count == 24 }

    public var description: String { text }

    /// The shortest gap between two firings, in minutes, for the check that rules firing more often
    /// than every five minutes are asked for on purpose (`allowFrequent`).
    var shortestGapInMinutes: Int {
        let sorted = minutes.sorted()
        var gap = Int.max
        for (earlier, later) in zip(sorted, sorted.dropFirst()) { gap = min(gap, later - earlier) }
        // From the last minute of one chosen hour to the first of the next.
        if let first = sorted.first, let last = sorted.last, hours.contains(where: { hours.contains(($0 + 1) % 24) }) {
            gap = min(gap, 60 - last + first)
        }
        return gap
    }

    static let macros = [
        "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
        "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
    ]
    static let monthNames = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// Parses `text`.
    ///
    /// - Throws: `ExpressionError` naming the bad field and its column, or a rule that never fires.
    public init(_ text: String) throws(ExpressionError) {
        self.text = text
        let trimmed = text.trimmingFoundationWhitespace()
        var expanded = trimmed
        if trimmed.hasPrefix("@") {
            guard let macro = CronExpression.macros[trimmed.lowercased()] else {
                throw ExpressionError(
                    "unknown cron macro '\(trimmed)'",
                    column: text.prefix { $0 == " " || $0 == "\t" }.count + 1,
                    hint: Suggestion.hint(for: trimmed, among: CronExpression.macros.keys.sorted())
                        ?? "use @hourly, @daily, @weekly, @monthly or @yearly"
                )
            }
            expanded = macro
        }
        // Fields with their columns in the original text.
        var fields: [(text: String, column: Int)] = []
        var current = ""
        var start = 0
        // Columns count from the text as written, leading blanks included.
        let indent = text.prefix { $0 == " " || $0 == "\t" }.count
        for (offset, character) in expanded.enumerated() {
            if character == " " || character == "\t" {
                if !current.isEmpty { fields.append((current, indent + start + 1)) }
                current = ""
            } else {
                if current.isEmpty { start = offset }
                current.append(character)
            }
        }
        if !current.isEmpty { fields.append((current, indent + start + 1)) }
        if trimmed.hasPrefix("@") { fields = fields.map { ($0.text, indent + 1) } }
        guard fields.count == 5 else {
            throw ExpressionError(
                "a cron expression has 5 fields (minute hour day-of-month month day-of-week), but this one has \(fields.count)",
                hint: "write e.g. \"0 */4 * * *\""
            )
        }
        minutes = try CronExpression.field(fields[0], name: "minute", range: 0...59, names: [])
        hours = try CronExpression.field(fields[1], name: "hour", range: 0...23, names: [])
        daysOfMonth = try CronExpression.field(fields[2], name: "day of month", range: 1...31, names: [])
        months = try CronExpression.field(fields[3], name: "month", range: 1...12, names: CronExpression.monthNames, nameBase: 1)
        var weekdays = try CronExpression.field(fields[4], name: "day of week", range: 0...7, names: CronExpression.dayNames)
        if weekdays.remove(7) != nil { weekdays.insert(0) }
        daysOfWeek = weekdays
        dayOfMonthRestricted = !fields[2].text.hasPrefix("*")
        dayOfWeekRestricted = !fields[4].text.hasPrefix("*")

        if dayOfMonthRestricted, !dayOfWeekRestricted {
            let longest = [1: 31, 2: 29, 3: 31, 4: 30, 5: 31, 6: 30, 7: 31, 8: 31, 9: 30, 10: 31, 11: 30, 12: 31]
            let possible = months.contains { month in daysOfMonth.contains { $0 <= longest[month]! } }
            if !possible {
                throw ExpressionError(
                    "the cron expression \"\(text)\" can never fire: no chosen month has the chosen day",
                    column: fields[2].column,
                    hint: "check the day of month and the month"
                )
            }
        }
    }

    private static func field(
        _ field: (text: String, column: Int),
        name: String,
        range: ClosedRange<Int>,
        names: [String],
        nameBase: Int = 0
    ) throws(ExpressionError) -> CronField {
        var values = CronField()
        var column = field.column
        for part in field.text.split(separator: ",", omittingEmptySubsequences: false) {
            func fail(_ reason: String) -> ExpressionError {
                ExpressionError(
                    "\(reason) in the \(name) field",
                    column: column,
                    hint: "use numbers \(range.lowerBound)-\(range.upperBound)"
                        + (names.isEmpty ? "" : " or names such as '\(names[0])'") + ", '*', ranges 'a-b', steps '/n' and lists 'a,b'"
                )
            }
            func value(_ text: Substring) throws(ExpressionError) -> Int {
                if text.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(text), range.contains(number) { return number }
                if let index = names.firstIndex(of: text.lowercased()) { return index + nameBase }
                throw fail("'\(text)' is not allowed")
            }
            let pieces = part.split(separator: "/", omittingEmptySubsequences: false)
            guard pieces.count <= 2, !part.isEmpty else { throw fail("'\(part)' is not allowed") }
            var step = 1
            if pieces.count == 2 {
                guard pieces[1].allSatisfy({ $0.isASCII && $0.isNumber }), let parsed = Int(pieces[1]), parsed > 0 else {
                    throw fail("'\(pieces[1])' is not a step")
                }
                step = parsed
            }
            let base = pieces[0]
            var lower: Int
            var upper: Int
            if base == "*" {
                lower = range.lowerBound
                upper = range.upperBound
            } else if let dash = base.firstIndex(of: "-") {
                lower = try value(base[..<dash])
                upper = try value(base[base.index(after: dash)...])
                guard lower <= upper else { throw fail("the range '\(base)' runs backwards") }
            } else {
                lower = try value(base)
                upper = pieces.count == 2 ? range.upperBound : lower
            }
            for value in stride(from: lower, through: upper, by: step) { values.insert(value) }
            column += part.count + 1
        }
        return values
    }

    // MARK: - Matching

    /// Whether the local day (month, day of month, weekday 1 = Sunday as `Calendar` counts) matches.
    func matchesDay(month: Int, day: Int, weekday: Int) -> Bool {
        guard months.contains(month) else { return false }
        let domMatch = daysOfMonth.contains(day)
        let dowMatch = daysOfWeek.contains(weekday - 1)
        if dayOfMonthRestricted, dayOfWeekRestricted { return domMatch || dowMatch }
        return domMatch && dowMatch
    }

    /// The first time after `date` at which the expression fires, in `calendar`'s zone.
    ///
    /// Hourly and finer rules fire at every real instant that matches (twice in a repeated hour, never in
    /// a skipped one). Rules for chosen hours fire once a day: a skipped local time fires at the same
    /// minutes after the gap (02:30 becomes 03:30), a repeated one at its first occurrence.
    public func nextDate(after date: Date, calendar: Calendar) -> Date? {
        var dayStart = calendar.startOfDay(for: date)
        for _ in 0..<(366 * 8) {
            let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: dayStart)
            if !months.contains(parts.month!) {
                // Skip the rest of a month that is not chosen (`0 12 29 2 *` looks at Februaries only).
                var firstOfNext = DateComponents()
                firstOfNext.year = parts.year
                firstOfNext.month = parts.month! + 1
                firstOfNext.day = 1
                firstOfNext.hour = 12
                guard let noon = calendar.date(from: firstOfNext) else { return nil }
                dayStart = calendar.startOfDay(for: noon)
                continue
            }
            // The next day's start, which is not always at the same local time: a day that starts at
            // 01:00 because midnight was skipped is followed by one that starts at 00:00.
            guard let following = calendar.date(byAdding: .day, value: 1, to: dayStart) else { return nil }
            let nextDay = calendar.startOfDay(for: following)
            if matchesDay(month: parts.month!, day: parts.day!, weekday: parts.weekday!) {
                if let found = firstTime(on: parts, dayStart: dayStart, nextDay: nextDay, after: date, calendar: calendar) {
                    return found
                }
            }
            dayStart = nextDay
        }
        return nil
    }

    private func firstTime(
        on day: DateComponents,
        dayStart: Date,
        nextDay: Date,
        after date: Date,
        calendar: Calendar
    ) -> Date? {
        if coversEveryHour {
            // Walk the real minutes of the day.
            var instant = max(dayStart, date)
            let seconds = instant.timeIntervalSinceReferenceDate
            instant = Date(timeIntervalSinceReferenceDate: (seconds / 60).rounded(.down) * 60)
            if instant <= date { instant += 60 }
            let sorted = minutes.sorted()
            // A change of offset moves the minute hand (by 30 minutes on Lord Howe Island): never jump
            // past one, look again at the first instant after it.
            var transition = calendar.timeZone.nextDaylightSavingTimeTransition(after: instant.addingTimeInterval(-1))
            while instant < nextDay {
                let minute = calendar.component(.minute, from: instant)
                if minutes.contains(minute) { return instant }
                // Jump to the next matching minute within this hour, or the next hour.
                var target: Date
                if let next = sorted.first(where: { $0 > minute }) {
                    target = instant + Double(next - minute) * 60
                } else {
                    target = instant + Double(60 - minute + (sorted.first ?? 0)) * 60
                }
                if let change = transition, change > instant, change < target {
                    target = change
                    transition = calendar.timeZone.nextDaylightSavingTimeTransition(after: change)
                }
                instant = target
            }
            return nil
        }
        for hour in hours.sorted() {
            for minute in minutes.sorted() {
                guard let instant = calendar.firstOccurrence(hour: hour, minute: minute, second: 0, onDayStarting: dayStart)
                else { continue }
                // A skipped time may land on the next day only if the gap crosses midnight; keep it.
                if instant > date, instant < nextDay.addingTimeInterval(3_600 * 3) { return instant }
            }
        }
        return nil
    }
}

extension Calendar {
    /// The first moment of the local day that starts at `dayStart` showing `hour:minute:second`.
    ///
    /// A time skipped by a daylight-saving gap moves forward by the gap (02:30 becomes 03:30); a repeated
    /// time is its first occurrence.
    func firstOccurrence(hour: Int, minute: Int, second: Int, onDayStarting dayStart: Date) -> Date? {
        var wanted = DateComponents()
        wanted.hour = hour
        wanted.minute = minute
        wanted.second = second
        let found = nextDate(
            after: dayStart.addingTimeInterval(-1),
            matching: wanted,
            matchingPolicy: .nextTimePreservingSmallerComponents,
            repeatedTimePolicy: .first,
            direction: .forward
        )
        if let found, isDate(found, inSameDayAs: dayStart) { return found }
        // For some gaps (Lord Howe's half hour) the search skips the whole day; build the time on this day.
        var exact = dateComponents([.year, .month, .day], from: dayStart)
        exact.hour = hour
        exact.minute = minute
        exact.second = second
        return date(from: exact) ?? found
    }
}

extension CronExpression: ExpressibleByStringLiteral {
    /// A cron expression written in the program: `let rule: Schedule.Rule = .cron("0 */4 * * *")`.
    /// Definitions are read with ``init(_:)``, which says what is wrong; an invalid literal is a mistake
    /// in the program and stops it.
    public init(stringLiteral text: String) {
        do {
            try self.init(text)
        } catch {
            preconditionFailure("invalid cron expression literal '\(text)': \(error)")
        }
    }
}

/// The values one field of a cron expression chooses (all within 0–63), as one bit each.
///
/// A `Set<Int>` per field made parsing an expression cost tens of thousands of instructions; the bits
/// answer the same questions (membership, count, ascending order) for a few.
struct CronField: Sendable, Hashable, Sequence {
    private var bits: UInt64 = 0

    /// The number of values chosen.
    var count: Int { bits.nonzeroBitCount }

    /// Whether `value` is chosen.
    func contains(_ value: Int) -> Bool {
        value >= 0 && value < 64 && bits & (1 << UInt64(value)) != 0
    }

    /// Chooses `value`, which must be within 0–63.
    mutating func insert(_ value: Int) {
        precondition(value >= 0 && value < 64, "a cron field value is within 0-63")
        bits |= 1 << UInt64(value)
    }

    /// Unchooses `value`, returning it when it was chosen.
    @discardableResult
    mutating func remove(_ value: Int) -> Int? {
        guard contains(value) else { return nil }
        bits &= ~(1 << UInt64(value))
        return value
    }

    /// The chosen values in ascending order.
    func sorted() -> [Int] { Array(self) }

    func makeIterator() -> Iterator { Iterator(remaining: bits) }

    /// Yields the chosen values in ascending order.
    struct Iterator: IteratorProtocol {
        var remaining: UInt64

        mutating func next() -> Int? {
            guard remaining != 0 else { return nil }
            let value = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            return value
        }
    }
}
