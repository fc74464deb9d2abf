import Foundation
import Testing
import WidgetJSON
import WidgetLiquid

/// The formatting filters' written examples: `number`, `currency`, `percent`, `compact`, `bytes`,
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
        #expect(try render("{{ x | compact }}", ["x": big]) == "100,000,000T")
        #expect(try render("{{ 1500000000000000 | compact }} {{ 15000000000000000 | compact }}") == "1500T 15,000T")
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
        #expect(try render("{{ 123456 | compact }} {{ 1234567 | compact }} {{ 999 | compact }}") == "123K 1.2M 999")
        #expect(
            try render("{{ 999999 | compact }} {{ 1500000000 | compact }} {{ -1234 | compact }} {{ 9950 | compact }}")
                == "1M 1.5B -1.2K 10K")
        #expect(try render("{{ 1250 | compact }} {{ 1350 | compact }} {{ 12.5 | compact }} {{ 0.125 | compact }}") == "1.2K 1.4K 12 0.12")
        // A list is still compacted as in Liquid.
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
        #expect(try ago(3 * 86_400, ": style: 'full'") == "3 days ago")
        #expect(try ago(45 * 86_400) == "1 mo ago")
        #expect(try ago(800 * 86_400) == "2 y ago")
        #expect(try render("{{ '2026-11-18T10:20:00Z' | relative_time }}") == "46 min ago")
    }

    @Test func datesInAZoneAndLocale() throws {
        let source = "{{ '2026-03-14T18:30:00Z' | format_date: 'MMM d, h:mm a', zone: 'Europe/Paris' }}"
        #expect(try render(source) == "Mar 14, 7:30 PM")
        #expect(try render("{{ '2026-03-14T18:30:00Z' | format_date: 'yyyy-MM-dd HH:mm' }}", zone: "America/Denver") == "2026-03-14 12:30")
        #expect(try render("{{ '2026-03-14T18:30:00Z' | date: '%H:%M %Z', zone: 'America/Denver' }}") == "12:30 MDT")
        #expect(try render("{{ '2026-03-16T18:30:00Z' | date: '%A %-d %B', locale: 'fr_FR' }}") == "lundi 16 mars")
        #expect(try render("{{ '2026-03-16T18:30:00Z' | format_date: 'EEEE d MMMM', locale: 'de' }}") == "Montag 16 März")
    }
}
