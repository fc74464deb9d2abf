import Foundation
import Testing
import WidgetJSON
import WidgetLiquid
import WidgetTestSupport

struct TemplateDateTests {
    private func date(_ source: String, now: Date = Date(timeIntervalSince1970: 0), zone: String) throws -> String {
        try Template(source).renderString(TemplateScope(now: now, timeZone: TimeZone(identifier: zone)!))
    }

    @Test func nowIsShownInTheScopesZone() throws {
        let now = try #require(ISO8601DateFormatter().date(from: "2026-11-22T03:30:00Z"))
        #expect(try date("{{ 'now' | date: '%Y-%m-%d %H:%M' }}", now: now, zone: "UTC") == "2026-11-22 03:30")
        #expect(
            try date("{{ 'now' | date: '%Y-%m-%d %H:%M %z' }}", now: now, zone: "America/New_York")
                == "2026-11-21 22:30 -0500")
        #expect(try date("{{ 'today' | date: '%A %-d %B' }}", now: now, zone: "Asia/Tokyo") == "Sunday 22 November")
    }

    @Test func springForwardInNewYork() throws {
        // 2026-03-08: clocks go from 02:00 EST to 03:00 EDT (07:00 UTC).
        #expect(
            try date("{{ '2026-03-08T06:59:00Z' | date: '%H:%M %Z %z' }}", zone: "America/New_York")
                == "01:59 EST -0500")
        #expect(
            try date("{{ '2026-03-08T07:00:00Z' | date: '%H:%M %Z %:z' }}", zone: "America/New_York")
                == "03:00 EDT -04:00")
        // A zone-less time is read in the scope's zone.
        #expect(try date("{{ '2026-03-08 12:00' | date: '%s' }}", zone: "America/New_York") == "1772985600")
    }

    @Test func fallBackInNewYork() throws {
        // 2026-11-01: clocks go from 02:00 EDT back to 01:00 EST (06:00 UTC).
        #expect(
            try date("{{ '2026-11-01T05:30:00Z' | date: '%l:%M %p %Z' }}", zone: "America/New_York")
                == " 1:30 AM EDT")
        #expect(
            try date("{{ '2026-11-01T06:30:00Z' | date: '%-I:%M %P %Z' }}", zone: "America/New_York")
                == "1:30 am EST")
        #expect(
            try date("{{ '2026-11-01T12:00:00+00:00' | date: '%j %U %a %b %e %y' }}", zone: "America/New_York")
                == "305 44 Sun Nov  1 26")
    }

    @Test func readsTimestampsAndWrittenDates() throws {
        #expect(try date("{{ 1152098955 | date: '%m/%d/%Y' }}", zone: "UTC") == "07/05/2006")
        #expect(
            try date("{{ 'Mon, 14 Mar 2016 10:15:00 +0100' | date: '%F %T' }}", zone: "UTC")
                == "2016-03-14 09:15:00")
        #expect(try date("{{ 'March 14, 2016' | date: '%^b %-m %%' }}", zone: "UTC") == "MAR 3 %")
        #expect(try date("{{ '2016-03-14T10:15:00.250Z' | date: '%L' }}", zone: "UTC") == "250")
        #expect(try date("{{ 'not a date' | date: '%Y' }}", zone: "UTC") == "not a date")
    }
}

/// The `date` filter reads ISO 8601 date-times with a zone and works out the Gregorian fields by
/// arithmetic; both must agree with Foundation's Calendar for any instant from 1600 to 9999 in any zone.
/// Seeded random instants, offsets and zones are checked against Calendar's own reading and fields.
struct DateArithmeticAgreementTests {
    private static let zones = [
        "UTC", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Chatham", "Europe/London",
        "America/St_Johns", "Pacific/Kiritimati", "America/Adak",
    ]

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    @Test func isoDateTimesAndFieldsAgreeWithCalendar() throws {
        var random = SeededGenerator(seed: 1125)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let start = -11_676_096_000.0  // 1600-01-02
        let end = 253_402_214_400.0  // 9999-12-31
        for round in 0..<4_000 {
            // Half the instants near today, where DST rules are dense; half anywhere in 1600–9999.
            let seconds =
                round % 2 == 0
                ? Double(Int.random(in: 1_500_000_000...2_100_000_000, using: &random))
                : Double(Int.random(in: Int(start)...Int(end), using: &random))
            let instant = Date(timeIntervalSince1970: seconds)
            let zone = TimeZone(identifier: Self.zones.randomElement(using: &random)!)!
            var utc = Calendar(identifier: .gregorian)
            utc.timeZone = TimeZone(identifier: "UTC")!
            // The input, written with a random whole-minute offset.
            let offsetMinutes = Int.random(in: -14 * 60...14 * 60, using: &random)
            let written = instant.addingTimeInterval(Double(offsetMinutes * 60))
            let w = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: written)
            let sign = offsetMinutes < 0 ? "-" : "+"
            let zoneText =
                offsetMinutes == 0 && round % 3 == 0
                ? "Z" : "\(sign)\(Self.two(abs(offsetMinutes) / 60)):\(Self.two(abs(offsetMinutes) % 60))"
            let input =
                "\(w.year!)-\(Self.two(w.month!))-\(Self.two(w.day!))T\(Self.two(w.hour!)):\(Self.two(w.minute!)):\(Self.two(w.second!))\(zoneText)"
            guard w.year! >= 1600, w.year! <= 9999 else { continue }

            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: instant)
            let dayOfYear = calendar.ordinality(of: .day, in: .year, for: instant)!
            let expected =
                "\(c.year!)-\(Self.two(c.month!))-\(Self.two(c.day!)) \(Self.two(c.hour!)):\(Self.two(c.minute!)):\(Self.two(c.second!)) "
                + "\(dayOfYear) \(weekdays[c.weekday! - 1]) \(c.weekday! - 1) \(Int(seconds))"
            let rendered = try Template("{{ d | date: '%Y-%m-%d %H:%M:%S %-j %a %w %s' }}")
                .renderString(TemplateScope(globals: ["d": .string(input)], timeZone: zone))
            #expect(rendered == expected, "\(input) in \(zone.identifier)")
        }
    }
}
