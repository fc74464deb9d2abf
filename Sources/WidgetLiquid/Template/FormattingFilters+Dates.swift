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
                return .string(relativeTime(date, now: context.now, full: full))
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

    /// `date` against `now` as a person says it: under a minute either way `just now`; then whole
    /// minutes, hours, days (under 30), months (of 30 days, under 12) and years (of 365 days), counted
    /// down (59 minutes 59 seconds is `59 min`): `5 min ago`, `in 2 h`, or in full `5 minutes ago`.
    static func relativeTime(_ date: Date, now: Date, full: Bool) -> String {
        let seconds = date.timeIntervalSince(now)
        let elapsed = abs(seconds)
        if elapsed < 60 { return "just now" }
        let units: [(seconds: Double, short: String, singular: String, plural: String)] = [
            (365 * 86_400, "y", "year", "years"),
            (30 * 86_400, "mo", "month", "months"),
            (86_400, "d", "day", "days"),
            (3_600, "h", "hour", "hours"),
            (60, "min", "minute", "minutes"),
        ]
        let limits: [Double] = [.infinity, 365 * 86_400, 30 * 86_400, 86_400, 3_600]
        var text = ""
        for (index, unit) in units.enumerated() where elapsed >= unit.seconds && elapsed < limits[index] {
            let count = Int((elapsed / unit.seconds).rounded(.down))
            text = "\(count) " + (full ? (count == 1 ? unit.singular : unit.plural) : unit.short)
            break
        }
        return seconds < 0 ? text + " ago" : "in " + text
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
