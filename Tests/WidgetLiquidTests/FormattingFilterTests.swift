import Foundation
import Testing
import WidgetJSON
import WidgetLiquid

/// The formatting filters' written examples: `number`, `currency`, `percent`, `compact_number`, `bytes`,
/// `relative_time`, `format_date` and `date`'s `zone:` and `locale:`.
struct FormattingFilterTests {
    private static let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18T11:06:40Z

    private func render(_ source: String, _ globals: WidgetObject = [:], zone: String = "UTC") throws -> String {
        try Template(source).renderString(TemplateScope(globals: globals, now: Self.now, timeZone: TimeZone(identifier: zone)!))
    }

    private func failure(_ source: String, _ globals: WidgetObject = [:]) -> String? {
        do {
            _ = try render(source, globals)
            return nil
        } catch {
            return "\(error)"
        }
    }

    // MARK: - number

    @Test func numberGroupsAndRounds() throws {
        #expect(try render("{{ 1234567.891 | number: 2 }}") == "1,234,567.89")
        #expect(try render("{{ 1234567.891 | number }}") == "1,234,567.891")
        #expect(try render("{{ 1234567 | number: 0, group: false }}") == "1234567")
        #expect(try render("{{ 12.5 | number: 0 }} {{ 13.5 | number: 0 }} {{ 0.125 | number: 2 }}") == "12 14 0.12")
        #expect(try render("{{ 5 | number: 2, sign: true }} {{ -5 | number: 1 }}") == "+5.00 -5.0")
        #expect(try render("{{ -0.001 | number: 2 }} {{ 0 | number: 1, sign: true }}") == "0.00 0.0")
        #expect(try render("{{ x | number: 1 }}", ["x": "1234.56"]) == "1,234.6")
        #expect(try render("{{ x | number }}", ["x": .number(WidgetNumber("2.50")!)]) == "2.50")
        #expect(try render("{{ x | number }}", ["x": .number(WidgetNumber("1.5e3")!)]) == "1,500")
        #expect(try render("{{ x | number }}", ["x": .number(WidgetNumber("1.5e-3")!)]) == "0.0015")
    }

    @Test func numberStaysExactPastDouble() throws {
        let huge = WidgetValue.number(WidgetNumber("12345678901234567890.125")!)
        #expect(try render("{{ x | number: 2 }}", ["x": huge]) == "12,345,678,901,234,567,890.12")
        #expect(try render("{{ x | number: 3 }}", ["x": huge]) == "12,345,678,901,234,567,890.125")
        let tiny = WidgetValue.number(WidgetNumber("1e-30")!)
        #expect(try render("{{ x | number: 2 }} {{ x | percent: 30 }}", ["x": tiny]) == "0.00 0.000000000000000000000000000100%")
        let big = WidgetValue.number(WidgetNumber("1e20")!)
        #expect(try render("{{ x | compact_number }}", ["x": big]) == "100,000,000T")
        #expect(try render("{{ 1500000000000000 | compact_number }} {{ 15000000000000000 | compact_number }}") == "1500T 15,000T")
    }

    @Test func nonNumbersPassThrough() throws {
        #expect(try render("{{ 'soon' | number: 2 }}|{{ nil | currency: 'USD' }}|{{ true | percent }}") == "soon||true")
        #expect(try render("{{ x | bytes | default: 'none' }}", ["x": .null]) == "none")
    }

    @Test func badArgumentsNameTheFilterAndTheFix() {
        #expect(failure("{{ 1 | number: -1 }}")?.contains("number: the number of decimals must be a whole number") == true)
        #expect(failure("{{ 1 | number: 2, grouping: false }}")?.contains("number: does not take the keyword `grouping:`") == true)
        #expect(failure("{{ 1 | currency: 'dollars' }}")?.contains("three-letter ISO 4217 code") == true)
        #expect(failure("{{ 1 | bytes: units: 'kibi' }}")?.contains("bytes: `units:` must be 'decimal'") == true)
        #expect(failure("{{ 1 | date: '%H', zone: 'Mars/Base' }}")?.contains("date: `zone:` names no time zone") == true)
        #expect(failure("{{ 1 | format_date: 'H', locale: 'xx_YY' }}")?.contains("`locale:` names no locale") == true)
        #expect(failure("{{ 1 | relative_time: style: 'long' }}")?.contains("relative_time: `style:`") == true)
        #expect(failure("{{ x | number }}", ["x": .number(WidgetNumber("1e999999999")!)])?.contains("digits") == true)
    }

    // MARK: - currency, percent, compact

    @Test func currencyWritesSymbolsSignsAndAccounting() throws {
        #expect(try render("{{ 1234.5 | currency: 'USD' }} {{ -1234.5 | currency: 'USD' }}") == "$1,234.50 -$1,234.50")
        #expect(try render("{{ 1234.5 | currency: 'USD', sign: true }}") == "+$1,234.50")
        #expect(try render("{{ -1234.5 | currency: 'USD', accounting: true }}") == "($1,234.50)")
        #expect(try render("{{ 123456 | currency: 'USD', compact: true }} {{ 1234567 | currency: 'USD', compact: true }}") == "$123K $1.2M")
        #expect(try render("{{ 1234.5 | currency: 'USD', symbol: 'US$' }}") == "US$1,234.50")
        #expect(try render("{{ 1234.5 | currency: 'USD', decimals: 0 }}") == "$1,234")
        #expect(
            try render("{{ 1234.5 | currency: 'eur' }} {{ 1234.5 | currency: 'GBP' }} {{ 1234.5 | currency: 'JPY' }}")
                == "€1,234.50 £1,234.50 ¥1,234")
        #expect(try render("{{ 1234.5 | currency: 'CHF' }}") == "CHF\u{A0}1,234.50")
    }

    @Test func percentTakesARatio() throws {
        #expect(try render("{{ 0.1234 | percent: 1 }} {{ 0.1234 | percent: 1, sign: true }} {{ -0.5 | percent }}") == "12.3% +12.3% -50%")
        #expect(try render("{{ 12.34 | divided_by: 100 | percent: 1 }}") == "12.3%")
    }

    @Test func compactWritesThousandsShort() throws {
        #expect(try render("{{ 123456 | compact_number }} {{ 1234567 | compact_number }} {{ 999 | compact_number }}") == "123K 1.2M 999")
        #expect(
            try render(
                "{{ 999999 | compact_number }} {{ 1500000000 | compact_number }} {{ -1234 | compact_number }} {{ 9950 | compact_number }}")
                == "1M 1.5B -1.2K 10K")
        #expect(
            try render("{{ 1250 | compact_number }} {{ 1350 | compact_number }} {{ 12.5 | compact_number }} {{ 0.125 | compact_number }}")
                == "1.2K 1.4K 12 0.12")
        // Liquid's `compact` still removes nil from a list.
        #expect(try render("{{ a | compact | join: '#' }}", ["a": ["b", .null, "c"]]) == "b#c")
    }

    // MARK: - bytes

    @Test func bytesFollowByteCountFormatter() throws {
        #expect(try render("{{ 5242880 | bytes }} {{ 5242880 | bytes: units: 'binary' }}") == "5.2 MB 5 MB")
        #expect(
            try render("{{ 0 | bytes }}|{{ 1 | bytes }}|{{ 999 | bytes }}|{{ 1500 | bytes }}|{{ 2500 | bytes }}")
                == "Zero KB|1 byte|999 bytes|2 KB|2 KB")
        #expect(
            try render("{{ 999500 | bytes }}|{{ 1015000000 | bytes }}|{{ 1000 | bytes: units: 'binary' }}")
                == "1,000 KB|1.02 GB|1,000 bytes")
        #expect(try render("{{ speed | bytes }}/s", ["speed": 5_242_880]) == "5.2 MB/s")
    }

    /// Each of `ByteCountFormatter`'s ways, as Linux's Foundation writes them (`.file`, then `.memory`).
    @Test func bytesKeepByteCountFormattersQuirks() throws {
        let cases: [(Int64, String, String)] = [
            (0, "Zero KB", "Zero KB"), (1, "1 byte", "1 byte"), (2, "2 bytes", "2 bytes"),
            (999, "999 bytes", "999 bytes"), (1000, "1 KB", "1,000 bytes"), (1023, "1 KB", "1,023 bytes"),
            (1024, "1 KB", "1 KB"), (1500, "2 KB", "1 KB"), (2500, "2 KB", "2 KB"), (99_500, "100 KB", "97 KB"),
            (999_500, "1,000 KB", "976 KB"), (1_000_000, "1 MB", "977 KB"), (1_150_000, "1.2 MB", "1.1 MB"),
            (1_250_000, "1.2 MB", "1.2 MB"), (5_242_880, "5.2 MB", "5 MB"), (99_950_000, "100 MB", "95.3 MB"),
            (999_999_999, "1,000 MB", "953.7 MB"), (1_005_000_000, "1 GB", "958.4 MB"),
            (1_015_000_000, "1.02 GB", "968 MB"), (1_000_000_000_000, "1 TB", "931.32 GB"),
            (1_234_567_890_123_456_789, "1.23 EB", "1.07 EB"), (-1, "-1 byte", "-1 byte"),
            (-5_242_880, "-5.2 MB", "-5 MB"), (.max, "9.22 EB", "8 EB"),
        ]
        for (count, file, memory) in cases {
            let value = WidgetValue.number(WidgetNumber(Int(count)))
            #expect(try render("{{ x | bytes }}", ["x": value]) == file, "\(count)")
            #expect(try render("{{ x | bytes: units: 'binary' }}", ["x": value]) == memory, "\(count)")
        }
        // Past Int64, exactly: 10^24 bytes, and 2^80 in binary units.
        #expect(try render("{{ x | bytes }}", ["x": .number(WidgetNumber("1e24")!)]) == "1 YB")
        #expect(try render("{{ x | bytes: units: 'binary' }}", ["x": .number(WidgetNumber("1208925819614629174706176")!)]) == "1 YB")
    }

    @Test func theCatalogsExampleRendersAsItSays() throws {
        let card = try Template("{{ price | currency: 'USD' }} {{ change | percent: 1, sign: true }} {{ size | bytes }}")
        #expect(
            try card.renderString(TemplateScope(globals: ["price": 1234.5, "change": 0.0123, "size": 5_242_880]))
                == "$1,234.50 +1.2% 5.2 MB")
    }

    // MARK: - Dates

    @Test func relativeTimeCountsFromTheTemplatesNow() throws {
        func ago(_ seconds: Int, _ style: String = "") throws -> String {
            try render("{{ t | relative_time\(style) }}", ["t": .number(WidgetNumber(1_795_000_000 - seconds))])
        }
        #expect(try ago(0) == "just now")
        #expect(try ago(59) == "just now")
        #expect(try ago(-59) == "just now")
        #expect(try ago(60) == "1 min ago")
        #expect(try ago(300) == "5 min ago")
        #expect(try ago(300, ": style: 'full'") == "5 minutes ago")
        #expect(try ago(60, ": style: 'full'") == "1 minute ago")
        #expect(try ago(7200) == "2 h ago")
        #expect(try ago(-7200) == "in 2 h")
        #expect(try ago(3 * 86_400) == "3 d ago")
        // Days are calendar days in the zone: at 11:06, 35 hours back is 00:06 yesterday, 36 hours back
        // 23:06 the day before.
        #expect(try ago(35 * 3_600) == "1 d ago")
        #expect(try ago(36 * 3_600) == "2 d ago")
        #expect(try ago(12 * 3_600) == "12 h ago")
        #expect(try ago(3 * 86_400, ": style: 'full'") == "3 days ago")
        #expect(try ago(89) == "1 min ago")
        #expect(try ago(90) == "2 min ago")
        #expect(try ago(3_569) == "59 min ago")
        #expect(try ago(3_570) == "1 h ago")
        #expect(try ago(10 * 86_400) == "1 wk ago")
        #expect(try ago(11 * 86_400, ": style: 'full'") == "2 weeks ago")
        #expect(try ago(40 * 86_400) == "1 mo ago")
        #expect(try ago(800 * 86_400) == "2 y ago")
        #expect(try render("{{ '2026-11-18T10:20:00Z' | relative_time }}") == "47 min ago")
    }

    @Test func datesInAZoneAndLocale() throws {
        let source = "{{ '2026-03-14T18:30:00Z' | format_date: 'MMM d, h:mm a', zone: 'Europe/Paris' }}"
        #expect(try render(source) == "Mar 14, 7:30 PM")
        #expect(try render("{{ '2026-03-14T18:30:00Z' | format_date: 'yyyy-MM-dd HH:mm' }}", zone: "America/Denver") == "2026-03-14 12:30")
        #expect(try render("{{ '2026-03-14T18:30:00Z' | date: '%H:%M %Z', zone: 'America/Denver' }}") == "12:30 MDT")
        #expect(try render("{{ '2026-03-16T18:30:00Z' | date: '%A %-d %B', locale: 'fr_FR' }}") == "lundi 16 mars")
        // A date without a zone is read in the widget's zone, then shown in the one asked for.
        #expect(try render("{{ '2026-03-14 12:00' | date: '%H:%M', zone: 'Europe/Paris' }}", zone: "UTC") == "13:00")
        #expect(try render("{{ '2026-03-16T18:30:00Z' | format_date: 'EEEE d MMMM', locale: 'de' }}") == "Montag 16 März")
    }
}
