import Foundation
import Synchronization
import WidgetJSON

extension FormattingFilters {
    static let dateEntries: [Entry] = [
        Entry(
            "relative_time", 0...0,
            { input, _, context throws(ExpressionError) in
                try checkKeywords(context, allowed: ["style"])
                let full: Bool
                switch context.keywordArguments["style"] {
                case nil, .string("short")?: full = false
                case .string("full")?: full = true
                default: throw context.error("`style:` must be 'short' or 'full'", hint: "write e.g. `relative_time: style: 'full'`")
                }
                if input.isNull { return .null }
                guard let date = LiquidDate.date(from: input, context: context) else { return input }
                return .string(relativeTime(date, now: context.now, timeZone: context.timeZone, full: full))
            }),
        Entry(
            "format_date", 1...1,
            { input, arguments, context throws(ExpressionError) in
                try checkKeywords(context, allowed: ["zone", "locale"])
                guard case .string(let pattern) = arguments[0], !pattern.isEmpty else {
                    throw context.error(
                        "the pattern must be a Unicode date pattern as text", hint: "write e.g. `format_date: 'MMM d, h:mm a'`")
                }
                let zone = try zone(context)
                let locale = try locale(context) ?? Locale(identifier: "en_US")
                if input.isNull { return .null }
                guard let date = LiquidDate.date(from: input, context: context) else { return input }
                return .string(formattedDate(date, pattern: pattern, zone: zone, locale: locale))
            }),
    ]

    // MARK: - Relative time

    /// `date` against `now` as a person says it: under a minute either way `just now`; then the nearest
    /// whole number (halves up) of minutes and hours, each until its count reaches the next unit (59.5
    /// minutes is `1 h`, 23.5 hours a day), as Foundation's `Date.RelativeFormatStyle` counts; days as
    /// calendar days in `timeZone` (yesterday evening is `1 d ago` in the morning), as Foundation too;
    /// then to the nearest 7-day weeks (under 28 days), 30-day months and 365-day years: `5 min ago`,
    /// `in 2 h`, `3 d ago`, `2 wk ago`, or in full `5 minutes ago`.
    static func relativeTime(_ date: Date, now: Date, timeZone: TimeZone, full: Bool) -> String {
        let seconds = date.timeIntervalSince(now)
        let elapsed = abs(seconds)
        if elapsed < 60 { return "just now" }
        let day = 86_400.0
        func nearest(_ unit: Double) -> Int { Int((elapsed / unit).rounded(.toNearestOrAwayFromZero)) }
        let count: Int
        let unit: (short: String, singular: String, plural: String)
        if nearest(60) < 60 {
            (count, unit) = (nearest(60), ("min", "minute", "minutes"))
        } else if nearest(3_600) < 24 {
            (count, unit) = (nearest(3_600), ("h", "hour", "hours"))
        } else if let days = calendarDays(from: now, to: date, timeZone: timeZone), days < 7 {
            (count, unit) = (max(1, days), ("d", "day", "days"))
        } else if elapsed < 28 * day {
            (count, unit) = (nearest(7 * day), ("wk", "week", "weeks"))
        } else if nearest(30 * day) < 12, elapsed < 365 * day - day / 2 {
            (count, unit) = (max(1, nearest(30 * day)), ("mo", "month", "months"))
        } else {
            (count, unit) = (max(1, nearest(365 * day)), ("y", "year", "years"))
        }
        let text = "\(count) " + (full ? (count == 1 ? unit.singular : unit.plural) : unit.short)
        return seconds < 0 ? text + " ago" : "in " + text
    }

    /// How many midnights in `timeZone` lie between the two moments.
    private static func calendarDays(from start: Date, to end: Date, timeZone: TimeZone) -> Int? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let days = calendar.dateComponents([.day], from: calendar.startOfDay(for: start), to: calendar.startOfDay(for: end)).day
        return days.map(abs)
    }

    // MARK: - Zones, locales and patterns

    /// The `zone:` keyword's time zone, or the template's zone when there is none.
    ///
    /// - Throws: When the keyword names no zone Foundation knows.
    static func zone(_ context: FilterContext) throws(ExpressionError) -> TimeZone {
        switch context.keywordArguments["zone"] {
        case nil, .null?: return context.timeZone
        case .string(let name)?:
            if let zone = TimeZone(identifier: name) { return zone }
            if name.utf8.allSatisfy({ (65...90).contains($0) }), let zone = TimeZone(abbreviation: name) { return zone }
            throw context.error(
                "`zone:` names no time zone Foundation knows",
                hint: "write an IANA zone name such as 'America/Denver', 'Europe/Paris' or 'UTC'")
        default:
            throw context.error("`zone:` must be a time zone name", hint: "write e.g. `zone: 'America/Denver'`")
        }
    }

    private static let localeIdentifiers = Set(Locale.availableIdentifiers)

    /// The `locale:` keyword's locale (`en_US`, `fr-FR`, `de`), or `nil` when there is none.
    ///
    /// - Throws: When the keyword names no locale Foundation knows.
    static func locale(_ context: FilterContext) throws(ExpressionError) -> Locale? {
        switch context.keywordArguments["locale"] {
        case nil, .null?: return nil
        case .string(let written)?:
            let identifier = written.replacing("-", with: "_")
            guard localeIdentifiers.contains(identifier) else {
                throw context.error(
                    "`locale:` names no locale Foundation knows", hint: "write a locale such as 'en_US', 'en_GB', 'fr_FR' or 'de'")
            }
            return Locale(identifier: identifier)
        default:
            throw context.error("`locale:` must be a locale name", hint: "write e.g. `locale: 'en_US'`")
        }
    }

    private static let namesByLocale = Mutex<[String: LiquidDate.Names]>([:])

    /// The month and weekday names for the `locale:` keyword: Ruby's English ones without it.
    static func dateNames(_ context: FilterContext) throws(ExpressionError) -> LiquidDate.Names {
        guard let locale = try locale(context) else { return .english }
        if let names = namesByLocale.withLock({ $0[locale.identifier] }) { return names }
        let names = LiquidDate.Names(locale)
        namesByLocale.withLock { $0[locale.identifier] = names }
        return names
    }

    /// Formatters by pattern, zone and locale; each is used only under the lock.
    private static let dateFormatters = Mutex<[String: DateFormatter]>([:])

    /// `date` written with a Unicode pattern by `DateFormatter` in `zone` and `locale` (Gregorian calendar).
    static func formattedDate(_ date: Date, pattern: String, zone: TimeZone, locale: Locale) -> String {
        let key = pattern + "\u{0}" + zone.identifier + "\u{0}" + locale.identifier
        return dateFormatters.withLock { formatters in
            if let formatter = formatters[key] { return formatter.string(from: date) }
            if formatters.count >= 256 { formatters.removeAll() }
            let formatter = DateFormatter()
            formatter.locale = locale
            formatter.calendar = Calendar(identifier: .gregorian)
            formatter.timeZone = zone
            formatter.dateFormat = pattern
            formatters[key] = formatter
            return formatter.string(from: date)
        }
    }
}
