import Foundation
import Testing
import WidgetJSON
import WidgetLiquid
import WidgetTestSupport

/// The formatting filters against Foundation's formatters over generated cases: `NumberFormatter` for
/// `number`, `currency` and `percent`, `.notation(.compactName)` for `compact_number`, `ByteCountFormatter` for
/// `bytes`, `DateFormatter` for `format_date` and `date`'s `zone:` and `locale:`.
///
/// Numbers are generated as decimal texts of at most 15 significant digits, so that the `Double` the
/// formatter is given prints as the same digits (Foundation rounds the double's shortest decimal form).
/// The one difference on purpose: a negative value that rounds to zero is written without Foundation's
/// minus (`0.00`, not `-0.00`).
struct FormattingAgreementTests {
    private static let cases = 5000
    private static let enUS = Locale(identifier: "en_US")

    /// A decimal text such as `-1234.5`, `0.000125` or `98765432101234`, biased toward halves.
    private static func decimalText(_ generator: inout SeededGenerator) -> String {
        let count = Int.random(in: 1...15, using: &generator)
        var digits = (0..<count).map { _ in UInt8.random(in: 0...9, using: &generator) }
        if Int.random(in: 0..<3, using: &generator) == 0 { digits[count - 1] = 5 }
        let scale = Int.random(in: 0...min(count + 3, 10), using: &generator)
        var text = String(decoding: digits.map { $0 + 48 }, as: UTF8.self)
        if scale > 0 {
            if text.count <= scale { text = String(repeating: "0", count: scale - text.count + 1) + text }
            text.insert(".", at: text.index(text.endIndex, offsetBy: -scale))
        }
        while text.count > 1, text.hasPrefix("0"), !text.hasPrefix("0.") { text.removeFirst() }
        return Int.random(in: 0..<3, using: &generator) == 0 ? "-" + text : text
    }

    private static func render(_ template: Template, _ value: WidgetValue) throws -> String {
        try template.renderString(TemplateScope(globals: ["x": value]))
    }

    /// Counts one case: equal, or Foundation's minus on a value that rounds to zero (on purpose).
    private struct Tally {
        var equal = 0
        var negativeZero = 0
        var differences: [String] = []

        mutating func count(ours: String, theirs: String, input: String) {
            if ours == theirs {
                equal += 1
            } else if theirs.hasPrefix("-") || theirs.hasPrefix("("),
                theirs.replacing("-", with: "").replacing("(", with: "").replacing(")", with: "") == ours,
                !ours.contains(where: { ("1"..."9").contains($0) })
            {
                negativeZero += 1
            } else if differences.count < 20 {
                differences.append("\(input): ours \(ours.debugDescription), Foundation \(theirs.debugDescription)")
            } else {
                differences.append("…")
            }
        }

        func line(_ oracle: String, total: Int) -> String {
            var line = "\(oracle) agreement: \(equal + negativeZero)/\(total)"
            if negativeZero > 0 {
                line += " (\(negativeZero) differ on purpose: a negative value rounding to zero has no minus)"
            }
            return line
        }
    }

    // MARK: - NumberFormatter

    @Test func numberCurrencyAndPercentMatchNumberFormatter() throws {
        var generator = SeededGenerator(seed: 32)
        var tally = Tally()
        var total = 0
        // Each formatter is configured once, before its first use (Linux's caches its ICU formatter). Linux's
        // `.decimal` ignores a maximum of 1 to 3 fraction digits, so grouped plain numbers are asked of
        // `.none` with grouping, which is `.decimal` without its default digits.
        func formatter(_ style: NumberFormatter.Style, digits: Int? = nil, code: String? = nil) -> NumberFormatter {
            let formatter = NumberFormatter()
            formatter.locale = Self.enUS
            formatter.numberStyle = style == .decimal ? .none : style
            if style == .decimal {
                formatter.usesGroupingSeparator = true
                formatter.groupingSize = 3
            }
            if let code { formatter.currencyCode = code }
            if let digits {
                formatter.minimumFractionDigits = digits
                formatter.maximumFractionDigits = digits
            }
            formatter.roundingMode = .halfEven
            return formatter
        }
        var configurations: [(template: Template, formatter: NumberFormatter, percent: Bool)] = []
        for digits in 0...6 {
            configurations.append((try Template("{{ x | number: \(digits) }}"), formatter(.decimal, digits: digits), false))
            configurations.append((try Template("{{ x | percent: \(digits) }}"), formatter(.percent, digits: digits), true))
        }
        for code in ["USD", "EUR", "JPY"] {
            configurations.append((try Template("{{ x | currency: '\(code)' }}"), formatter(.currency, code: code), false))
        }
        configurations.append(
            (try Template("{{ x | currency: 'USD', accounting: true }}"), formatter(.currencyAccounting, code: "USD"), false))
        var inexact = 0
        while total < Self.cases {
            let text = Self.decimalText(&generator)
            let value = WidgetValue.number(WidgetNumber(text)!)
            let double = Double(text)!
            let configuration = configurations[Int.random(in: 0..<configurations.count, using: &generator)]
            // `.percent` multiplies the double by 100: cases where that product is not the exact one
            // (8931864321.00347 × 100 gives …100.34699…) lie outside what the double can tell.
            if configuration.percent, WidgetNumber(double * 100) != WidgetNumber(text)!.multiplied(by: 100) {
                inexact += 1
                continue
            }
            let theirs = try #require(configuration.formatter.string(from: NSNumber(value: double)))
            tally.count(ours: try Self.render(configuration.template, value), theirs: theirs, input: text)
            total += 1
        }
        print(tally.line("NumberFormatter", total: total) + "; \(inexact) percent cases not compared (the double times 100 is not exact)")
        #expect(tally.differences.isEmpty, "\(tally.differences.joined(separator: "\n"))")
    }

    @Test func currencySymbolsMatchNumberFormatter() throws {
        var equal = 0
        var differences: [String] = []
        for code in Locale.commonISOCurrencyCodes {
            let formatter = NumberFormatter()
            formatter.locale = Self.enUS
            formatter.numberStyle = .currency
            formatter.currencyCode = code
            let theirs = try #require(formatter.string(from: -1234.5))
            let ours = try Self.render(try Template("{{ x | currency: '\(code)' }}"), .number(WidgetNumber("-1234.5")!))
            if ours == theirs { equal += 1 } else { differences.append("\(code): ours \(ours), Foundation \(theirs)") }
        }
        print("NumberFormatter currency agreement: \(equal)/\(Locale.commonISOCurrencyCodes.count) codes")
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }

    @Test func compactMatchesCompactNameNotation() throws {
        var generator = SeededGenerator(seed: 3200)
        var tally = Tally()
        let template = try Template("{{ x | compact_number }}")
        let money = try Template("{{ x | currency: 'USD', compact: true }}")
        let style = FloatingPointFormatStyle<Double>(locale: Self.enUS).notation(.compactName)
        let currencyStyle = FloatingPointFormatStyle<Double>.Currency(code: "USD", locale: Self.enUS).notation(.compactName)
        for index in 0..<Self.cases {
            let text = Self.decimalText(&generator)
            let value = WidgetValue.number(WidgetNumber(text)!)
            if index % 4 == 3 {
                let theirs = Double(text)!.formatted(currencyStyle)
                tally.count(ours: try Self.render(money, value), theirs: theirs, input: text + " USD")
            } else {
                tally.count(ours: try Self.render(template, value), theirs: Double(text)!.formatted(style), input: text)
            }
        }
        print(tally.line(".compactName", total: Self.cases))
        #expect(tally.differences.isEmpty, "\(tally.differences.joined(separator: "\n"))")
    }

    // MARK: - ByteCountFormatter

    @Test func bytesMatchByteCountFormatter() throws {
        var generator = SeededGenerator(seed: 320)
        var tally = Tally()
        let file = ByteCountFormatter()
        file.countStyle = .file
        let memory = ByteCountFormatter()
        memory.countStyle = .memory
        let decimal = try Template("{{ x | bytes }}")
        let binary = try Template("{{ x | bytes: units: 'binary' }}")
        for index in 0..<Self.cases {
            // Every magnitude from 1 to 2^53, with halves and unit edges (999…, 1000…, 1024…) often.
            let bits = Int.random(in: 0...53, using: &generator)
            var count = Int64.random(in: 0...(Int64(1) << bits), using: &generator)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: count = Int64(pow(10, Double(Int.random(in: 0...15, using: &generator)))) + Int64.random(in: -2...2, using: &generator)
            case 1: count = (Int64(1) << Int64.random(in: 0...52, using: &generator)) + Int64.random(in: -2...2, using: &generator)
            default: break
            }
            if index % 7 == 0 { count = -count }
            let useBinary = index % 2 == 1
            let theirs = (useBinary ? memory : file).string(fromByteCount: count)
            let ours = try Self.render(useBinary ? binary : decimal, .number(WidgetNumber(Int(count))))
            tally.count(ours: ours, theirs: theirs, input: "\(count) \(useBinary ? "binary" : "decimal")")
        }
        print(tally.line("ByteCountFormatter", total: Self.cases))
        #expect(tally.differences.isEmpty, "\(tally.differences.joined(separator: "\n"))")
    }

    // MARK: - Date.RelativeFormatStyle

    /// `relative_time: style: 'full'` against Foundation's `Date.AnchoredRelativeFormatStyle` (`.numeric`,
    /// `.wide`) from a minute to a week either way. Under a minute we write `just now` on purpose; from a
    /// week on Foundation rounds calendar weeks and months its own way, where we count 7-day weeks,
    /// 30-day months and 365-day years to the nearest.
    @Test func relativeTimeMatchesRelativeFormatStyle() throws {
        var generator = SeededGenerator(seed: 3203)
        var tally = Tally()
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        let template = try Template("{{ x | relative_time: style: 'full' }}")
        for _ in 0..<Self.cases {
            // Whole seconds, a third of them on a unit's half (90 s, 1.5 h, 3.5 days) give or take one.
            var seconds = Int.random(in: 60..<(6 * 86_400), using: &generator)
            if Int.random(in: 0..<3, using: &generator) == 0 {
                let unit = [60, 3_600, 86_400][Int.random(in: 0..<3, using: &generator)]
                seconds = max(60, min(6 * 86_400, (seconds / unit) * unit + unit / 2 + Int.random(in: -1...1, using: &generator)))
            }
            if Bool.random(using: &generator) { seconds = -seconds }
            let date = now.addingTimeInterval(Double(seconds))
            let style = Date.AnchoredRelativeFormatStyle(
                anchor: date, presentation: .numeric, unitsStyle: .wide, locale: Self.enUS, calendar: Self.utcCalendar)
            let scope = TemplateScope(globals: ["x": .number(WidgetNumber(1_795_000_000 + seconds))], now: now)
            tally.count(ours: try template.renderString(scope), theirs: style.format(now), input: "\(seconds) s")
        }
        print(tally.line("Date.RelativeFormatStyle", total: Self.cases))
        #expect(tally.differences.isEmpty, "\(tally.differences.joined(separator: "\n"))")
    }

    private static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    // MARK: - DateFormatter

    @Test func datesMatchDateFormatter() throws {
        var generator = SeededGenerator(seed: 3232)
        var tally = Tally()
        let zones = ["UTC", "America/Denver", "Europe/Paris", "Asia/Kolkata", "Australia/Adelaide", "America/St_Johns"]
        let locales = ["en_US", "en_GB", "fr_FR", "de_DE", "ja_JP"]
        // A `format_date` pattern, and the `date` (strftime) format that writes the same.
        let patterns: [(unicode: String, strftime: String)] = [
            ("yyyy-MM-dd HH:mm:ss", "%Y-%m-%d %H:%M:%S"),
            ("MMM d, h:mm a", "%b %-d, %-I:%M %p"),
            ("EEEE d MMMM yyyy", "%A %-d %B %Y"),
            ("EEE, dd MMM", "%a, %d %b"),
            ("HH:mm", "%H:%M"),
        ]
        var formatters: [String: DateFormatter] = [:]
        for index in 0..<Self.cases {
            let date = Date(timeIntervalSince1970: Double(Int64.random(in: 0...4_102_444_800, using: &generator)))
            let zone = zones[Int.random(in: 0..<zones.count, using: &generator)]
            // strftime's words are compared in English (`en_US`): the other locales write `AM`/`PM` and
            // short names with their own punctuation (`lun.`) that only the Unicode pattern spells.
            let locale = index % 2 == 0 ? "en_US" : locales[Int.random(in: 0..<locales.count, using: &generator)]
            let pattern = patterns[Int.random(in: 0..<patterns.count, using: &generator)]
            let key = pattern.unicode + zone + locale
            let formatter =
                formatters[key]
                ?? {
                    let formatter = DateFormatter()
                    formatter.locale = Locale(identifier: locale)
                    formatter.timeZone = TimeZone(identifier: zone)
                    formatter.dateFormat = pattern.unicode
                    formatters[key] = formatter
                    return formatter
                }()
            let theirs = formatter.string(from: date)
            let seconds = WidgetValue.number(WidgetNumber(Int(date.timeIntervalSince1970)))
            let unicode = try Template("{{ x | format_date: '\(pattern.unicode)', zone: '\(zone)', locale: '\(locale)' }}")
            tally.count(ours: try Self.render(unicode, seconds), theirs: theirs, input: "\(date) \(pattern.unicode) \(zone) \(locale)")
            if locale == "en_US" {
                let strftime = try Template("{{ x | date: '\(pattern.strftime)', zone: '\(zone)', locale: 'en_US' }}")
                tally.count(ours: try Self.render(strftime, seconds), theirs: theirs, input: "\(date) \(pattern.strftime) \(zone)")
            }
        }
        print(tally.line("DateFormatter", total: tally.equal + tally.negativeZero + tally.differences.count))
        #expect(tally.differences.isEmpty, "\(tally.differences.joined(separator: "\n"))")
    }
}
