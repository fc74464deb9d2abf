import Foundation
import Testing
import WidgetCore

struct TemplateDateTests {
    private func date(_ source: String, now: Date = Date(timeIntervalSince1970: 0), zone: String) throws -> String {
        try Template(source).renderString(TemplateScope(now: now, timeZone: TimeZone(identifier: zone)!))
    }

    @Test func nowIsShownInTheScopesZone() throws {
        let now = try #require(ISO8601DateFormatter().date(from: "2026-11-22T03:30:00Z"))
        #expect(try date("{{ 'now' | date: '%Y-%m-%d %H:%M' }}", now: now, zone: "UTC") == "2026-11-22 03:30")
        #expect(try date("{{ 'now' | date: '%Y-%m-%d %H:%M %z' }}", now: now, zone: "America/New_York")
            == "2026-11-21 22:30 -0500")
        #expect(try date("{{ 'today' | date: '%A %-d %B' }}", now: now, zone: "Asia/Tokyo") == "Sunday 22 November")
    }

    @Test func springForwardInNewYork() throws {
        // 2026-03-08: clocks go from 02:00 EST to 03:00 EDT (07:00 UTC).
        #expect(try date("{{ '2026-03-08T06:59:00Z' | date: '%H:%M %Z %z' }}", zone: "America/New_York")
            == "01:59 EST -0500")
        #expect(try date("{{ '2026-03-08T07:00:00Z' | date: '%H:%M %Z %:z' }}", zone: "America/New_York")
            == "03:00 EDT -04:00")
        // A zone-less time is read in the scope's zone.
        #expect(try date("{{ '2026-03-08 12:00' | date: '%s' }}", zone: "America/New_York") == "1772985600")
    }

    @Test func fallBackInNewYork() throws {
        // 2026-11-01: clocks go from 02:00 EDT back to 01:00 EST (06:00 UTC).
        #expect(try date("{{ '2026-11-01T05:30:00Z' | date: '%l:%M %p %Z' }}", zone: "America/New_York")
            == " 1:30 AM EDT")
        #expect(try date("{{ '2026-11-01T06:30:00Z' | date: '%-I:%M %P %Z' }}", zone: "America/New_York")
            == "1:30 am EST")
        #expect(try date("{{ '2026-11-01T12:00:00+00:00' | date: '%j %U %a %b %e %y' }}", zone: "America/New_York")
            == "305 44 Sun Nov  1 26")
    }

    @Test func readsTimestampsAndWrittenDates() throws {
        #expect(try date("{{ 1152098955 | date: '%m/%d/%Y' }}", zone: "UTC") == "07/05/2006")
        #expect(try date("{{ 'Mon, 14 Mar 2016 10:15:00 +0100' | date: '%F %T' }}", zone: "UTC")
            == "2016-03-14 09:15:00")
        #expect(try date("{{ 'March 14, 2016' | date: '%^b %-m %%' }}", zone: "UTC") == "MAR 3 %")
        #expect(try date("{{ '2016-03-14T10:15:00.250Z' | date: '%L' }}", zone: "UTC") == "250")
        #expect(try date("{{ 'not a date' | date: '%Y' }}", zone: "UTC") == "not a date")
    }
}
