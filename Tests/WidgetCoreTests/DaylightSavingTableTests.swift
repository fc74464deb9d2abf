import Foundation
import Testing
import WidgetCore

/// The documented daylight-saving policy (Snapshots, "Schedules and DST"), zone by zone, as a table: each row is a rule, a zone, a moment to
/// look after, and the refreshes that must follow, written as local times with their offsets.
///
/// - `every` counts elapsed time: never skipped or doubled.
/// - `at` and daily `cron`: a local time that does not exist runs once at the same minutes after the gap
///   (02:30 becomes 03:30); a local time that occurs twice runs once, at its first occurrence.
/// - Hourly and finer `cron`: every real instant that matches (twice in a repeated hour, never in a
///   skipped one).
struct DaylightSavingTableTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var zone: String
        var rule: Schedule.Rule
        var after: String
        var expected: [String]

        init(_ zone: String, _ rule: Schedule.Rule, after: String, _ expected: [String]) {
            self.zone = zone
            self.rule = rule
            self.after = after
            self.expected = expected
        }

        var testDescription: String { "\(zone) \(Schedule(rule: rule).summary) after \(after)" }
    }

    static func at(_ times: String...) -> Schedule.Rule { .at(times.map { TimeOfDay($0)! }) }
    static func every(_ seconds: Int) -> Schedule.Rule { .every(WidgetDuration(seconds: seconds)) }

    static let newYork = "America/New_York"
    static let london = "Europe/London"
    static let lordHowe = "Australia/Lord_Howe"
    static let santiago = "America/Santiago"
    static let cairo = "Africa/Cairo"

    // MARK: - America/New_York: 2026-03-08 02:00 EST → 03:00 EDT; 2026-11-01 02:00 EDT → 01:00 EST

    static let newYorkRows = [
        Row(
            newYork, at("02:30"), after: "2026-03-06T12:00:00-05:00",
            ["2026-03-07T02:30:00-05:00", "2026-03-08T03:30:00-04:00", "2026-03-09T02:30:00-04:00"]),
        Row(
            newYork, .cron("30 2 * * *"), after: "2026-03-06T12:00:00-05:00",
            ["2026-03-07T02:30:00-05:00", "2026-03-08T03:30:00-04:00", "2026-03-09T02:30:00-04:00"]),
        // Asked from inside the gap's aftermath: 02:30 never happened, so 03:30 still comes.
        Row(
            newYork, at("02:30"), after: "2026-03-08T03:10:00-04:00",
            ["2026-03-08T03:30:00-04:00", "2026-03-09T02:30:00-04:00"]),
        // Two times that meet after the gap fire once.
        Row(
            newYork, at("02:30", "03:30"), after: "2026-03-08T00:00:00-05:00",
            ["2026-03-08T03:30:00-04:00", "2026-03-09T02:30:00-04:00", "2026-03-09T03:30:00-04:00"]),
        Row(
            newYork, .cron("30 * * * *"), after: "2026-03-08T00:00:00-05:00",
            ["2026-03-08T00:30:00-05:00", "2026-03-08T01:30:00-05:00", "2026-03-08T03:30:00-04:00", "2026-03-08T04:30:00-04:00"]),
        Row(
            newYork, every(3_600), after: "2026-03-08T00:30:00-05:00",
            ["2026-03-08T01:30:00-05:00", "2026-03-08T03:30:00-04:00", "2026-03-08T04:30:00-04:00"]),
        Row(
            newYork, at("01:30"), after: "2026-10-30T12:00:00-04:00",
            ["2026-10-31T01:30:00-04:00", "2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"]),
        Row(
            newYork, .cron("30 1 * * *"), after: "2026-10-30T12:00:00-04:00",
            ["2026-10-31T01:30:00-04:00", "2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"]),
        // Asked during the second 01:xx: the first 01:30 already happened.
        Row(newYork, at("01:30"), after: "2026-11-01T01:10:00-05:00", ["2026-11-02T01:30:00-05:00"]),
        Row(newYork, .cron("30 1 * * *"), after: "2026-11-01T01:10:00-05:00", ["2026-11-02T01:30:00-05:00"]),
        Row(
            newYork, .cron("30 * * * *"), after: "2026-11-01T00:00:00-04:00",
            ["2026-11-01T00:30:00-04:00", "2026-11-01T01:30:00-04:00", "2026-11-01T01:30:00-05:00", "2026-11-01T02:30:00-05:00"]),
        // A rule for chosen hours is not hourly: its times in the repeated hour run once, the first time.
        Row(
            newYork, .cron("*/20 1 * * *"), after: "2026-11-01T00:00:00-04:00",
            [
                "2026-11-01T01:00:00-04:00", "2026-11-01T01:20:00-04:00", "2026-11-01T01:40:00-04:00",
                "2026-11-02T01:00:00-05:00", "2026-11-02T01:20:00-05:00", "2026-11-02T01:40:00-05:00", "2026-11-03T01:00:00-05:00",
            ]),
        // Every minute is a finer-than-hourly rule: the repeated hour's minutes run twice.
        Row(
            newYork, .cron("*/30 * * * *"), after: "2026-11-01T00:45:00-04:00",
            [
                "2026-11-01T01:00:00-04:00", "2026-11-01T01:30:00-04:00", "2026-11-01T01:00:00-05:00", "2026-11-01T01:30:00-05:00",
                "2026-11-01T02:00:00-05:00",
            ]),
        Row(
            newYork, every(1_800), after: "2026-11-01T00:45:00-04:00",
            ["2026-11-01T01:15:00-04:00", "2026-11-01T01:45:00-04:00", "2026-11-01T01:15:00-05:00", "2026-11-01T01:45:00-05:00"]),
        Row(
            newYork, every(86_400), after: "2026-03-07T12:00:00-05:00",
            ["2026-03-08T13:00:00-04:00", "2026-03-09T13:00:00-04:00"]),
    ]

    // MARK: - Europe/London: 2026-03-29 01:00 GMT → 02:00 BST; 2026-10-25 02:00 BST → 01:00 GMT

    static let londonRows = [
        Row(
            london, at("01:30"), after: "2026-03-27T12:00:00+00:00",
            ["2026-03-28T01:30:00Z", "2026-03-29T02:30:00+01:00", "2026-03-30T01:30:00+01:00"]),
        Row(
            london, .cron("30 1 * * *"), after: "2026-03-27T12:00:00+00:00",
            ["2026-03-28T01:30:00Z", "2026-03-29T02:30:00+01:00", "2026-03-30T01:30:00+01:00"]),
        Row(
            london, .cron("30 * * * *"), after: "2026-03-29T00:00:00+00:00",
            ["2026-03-29T00:30:00Z", "2026-03-29T02:30:00+01:00", "2026-03-29T03:30:00+01:00"]),
        Row(
            london, every(3_600), after: "2026-03-29T00:30:00+00:00",
            ["2026-03-29T02:30:00+01:00", "2026-03-29T03:30:00+01:00"]),
        Row(
            london, at("01:30"), after: "2026-10-24T12:00:00+01:00",
            ["2026-10-25T01:30:00+01:00", "2026-10-26T01:30:00Z"]),
        Row(
            london, .cron("30 1 * * *"), after: "2026-10-24T12:00:00+01:00",
            ["2026-10-25T01:30:00+01:00", "2026-10-26T01:30:00Z"]),
        Row(
            london, .cron("0 * * * *"), after: "2026-10-25T00:30:00+01:00",
            ["2026-10-25T01:00:00+01:00", "2026-10-25T01:00:00Z", "2026-10-25T02:00:00Z"]),
        Row(
            london, every(3_600), after: "2026-10-25T00:30:00+01:00",
            ["2026-10-25T01:30:00+01:00", "2026-10-25T01:30:00Z", "2026-10-25T02:30:00Z"]),
        // Times away from the change are untouched on the change's day.
        Row(
            london, at("08:00", "20:00"), after: "2026-03-29T00:00:00Z",
            ["2026-03-29T08:00:00+01:00", "2026-03-29T20:00:00+01:00", "2026-03-30T08:00:00+01:00"]),
    ]

    // MARK: - Australia/Lord_Howe (half-hour DST): 2026-04-05 02:00 → 01:30; 2026-10-04 02:00 → 02:30

    static let lordHoweRows = [
        Row(
            lordHowe, at("02:15"), after: "2026-10-03T20:30:00+10:30",
            ["2026-10-04T02:45:00+11:00", "2026-10-05T02:15:00+11:00"]),
        Row(
            lordHowe, .cron("15 2 * * *"), after: "2026-10-03T20:30:00+10:30",
            ["2026-10-04T02:45:00+11:00", "2026-10-05T02:15:00+11:00"]),
        // 02:45 exists on the spring day: it runs at 02:45 as usual.
        Row(
            lordHowe, at("02:45"), after: "2026-10-03T20:30:00+10:30",
            ["2026-10-04T02:45:00+11:00", "2026-10-05T02:45:00+11:00"]),
        Row(
            lordHowe, .cron("15 * * * *"), after: "2026-10-04T00:00:00+10:30",
            ["2026-10-04T00:15:00+10:30", "2026-10-04T01:15:00+10:30", "2026-10-04T03:15:00+11:00"]),
        Row(
            lordHowe, .cron("45 * * * *"), after: "2026-10-04T00:00:00+10:30",
            ["2026-10-04T00:45:00+10:30", "2026-10-04T01:45:00+10:30", "2026-10-04T02:45:00+11:00"]),
        Row(
            lordHowe, every(3_600), after: "2026-10-04T01:15:00+10:30",
            ["2026-10-04T02:45:00+11:00", "2026-10-04T03:45:00+11:00"]),
        Row(
            lordHowe, at("01:45"), after: "2026-04-04T12:00:00+11:00",
            ["2026-04-05T01:45:00+11:00", "2026-04-06T01:45:00+10:30"]),
        Row(
            lordHowe, .cron("45 1 * * *"), after: "2026-04-04T12:00:00+11:00",
            ["2026-04-05T01:45:00+11:00", "2026-04-06T01:45:00+10:30"]),
        Row(
            lordHowe, .cron("45 * * * *"), after: "2026-04-05T00:00:00+11:00",
            ["2026-04-05T00:45:00+11:00", "2026-04-05T01:45:00+11:00", "2026-04-05T01:45:00+10:30", "2026-04-05T02:45:00+10:30"]),
        // 01:15 comes before the repeated half hour, so it happens once.
        Row(
            lordHowe, .cron("15 * * * *"), after: "2026-04-05T00:00:00+11:00",
            ["2026-04-05T00:15:00+11:00", "2026-04-05T01:15:00+11:00", "2026-04-05T02:15:00+10:30"]),
        Row(
            lordHowe, every(1_800), after: "2026-04-05T01:00:00+11:00",
            ["2026-04-05T01:30:00+11:00", "2026-04-05T01:30:00+10:30", "2026-04-05T02:00:00+10:30"]),
    ]

    // MARK: - America/Santiago (DST starts at midnight): 2026-09-06 00:00 → 01:00; 2026-04-05 00:00 → 04-04 23:00

    static let santiagoRows = [
        Row(
            santiago, at("00:00"), after: "2026-09-05T12:00:00-04:00",
            ["2026-09-06T01:00:00-03:00", "2026-09-07T00:00:00-03:00", "2026-09-08T00:00:00-03:00"]),
        Row(
            santiago, .cron("0 0 * * *"), after: "2026-09-05T12:00:00-04:00",
            ["2026-09-06T01:00:00-03:00", "2026-09-07T00:00:00-03:00", "2026-09-08T00:00:00-03:00"]),
        Row(
            santiago, at("00:30"), after: "2026-09-05T12:00:00-04:00",
            ["2026-09-06T01:30:00-03:00", "2026-09-07T00:30:00-03:00"]),
        Row(
            santiago, .cron("30 * * * *"), after: "2026-09-05T22:00:00-04:00",
            ["2026-09-05T22:30:00-04:00", "2026-09-05T23:30:00-04:00", "2026-09-06T01:30:00-03:00", "2026-09-06T02:30:00-03:00"]),
        Row(
            santiago, every(3_600), after: "2026-09-05T23:30:00-04:00",
            ["2026-09-06T01:30:00-03:00", "2026-09-06T02:30:00-03:00"]),
        Row(
            santiago, at("23:30"), after: "2026-04-04T12:00:00-03:00",
            ["2026-04-04T23:30:00-03:00", "2026-04-05T23:30:00-04:00"]),
        Row(
            santiago, .cron("30 23 * * *"), after: "2026-04-04T12:00:00-03:00",
            ["2026-04-04T23:30:00-03:00", "2026-04-05T23:30:00-04:00"]),
        Row(
            santiago, .cron("30 * * * *"), after: "2026-04-04T22:00:00-03:00",
            ["2026-04-04T22:30:00-03:00", "2026-04-04T23:30:00-03:00", "2026-04-04T23:30:00-04:00", "2026-04-05T00:30:00-04:00"]),
        // The day after the repeated hour starts at its own midnight, once.
        Row(
            santiago, at("00:00"), after: "2026-04-04T12:00:00-03:00",
            ["2026-04-05T00:00:00-04:00", "2026-04-06T00:00:00-04:00"]),
        Row(
            santiago, every(3_600), after: "2026-04-04T22:30:00-03:00",
            ["2026-04-04T23:30:00-03:00", "2026-04-04T23:30:00-04:00", "2026-04-05T00:30:00-04:00"]),
    ]

    // MARK: - Africa/Cairo (DST starts at midnight): 2026-04-24 00:00 → 01:00

    static let cairoRows = [
        Row(
            cairo, at("00:00"), after: "2026-04-23T12:00:00+02:00",
            ["2026-04-24T01:00:00+03:00", "2026-04-25T00:00:00+03:00"]),
        Row(
            cairo, .cron("0 0 * * *"), after: "2026-04-23T12:00:00+02:00",
            ["2026-04-24T01:00:00+03:00", "2026-04-25T00:00:00+03:00"]),
    ]

    // MARK: - Feb 29

    static let leapDayRows = [
        Row("UTC", .cron("0 12 29 2 *"), after: "2026-01-01T00:00:00Z", ["2028-02-29T12:00:00Z", "2032-02-29T12:00:00Z"]),
        Row(
            newYork, .cron("0 12 29 2 *"), after: "2026-01-01T00:00:00Z",
            ["2028-02-29T12:00:00-05:00", "2032-02-29T12:00:00-05:00"]),
        Row(newYork, .cron("0 12 29 feb *"), after: "2028-02-29T12:00:00-05:00", ["2032-02-29T12:00:00-05:00"]),
        Row(newYork, at("12:00"), after: "2028-02-28T13:00:00-05:00", ["2028-02-29T12:00:00-05:00", "2028-03-01T12:00:00-05:00"]),
        Row(newYork, every(86_400), after: "2028-02-28T12:00:00-05:00", ["2028-02-29T12:00:00-05:00", "2028-03-01T12:00:00-05:00"]),
    ]

    static let rows = newYorkRows + londonRows + lordHoweRows + santiagoRows + cairoRows + leapDayRows

    /// The refreshes that follow `row.after`, one after another, as local times with offsets.
    static func refreshes(_ row: Row) throws -> [String] {
        let zone = try #require(TimeZone(identifier: row.zone))
        let style = Date.ISO8601FormatStyle(timeZoneSeparator: .colon, timeZone: zone)
        var current = try Date(row.after, strategy: .iso8601)
        var result: [String] = []
        for _ in row.expected {
            guard let next = Schedule(rule: row.rule).nextRefresh(after: current, timeZone: zone) else { break }
            result.append(next.formatted(style))
            current = next
        }
        return result
    }

    @Test(arguments: rows)
    func refreshesFollowTheDaylightSavingPolicy(_ row: Row) throws {
        let actual = try Self.refreshes(row)
        #expect(actual == row.expected, "\(actual)")
    }

    @Test func tableCoversEveryZoneAndRuleKind() {
        for zone in [Self.newYork, Self.london, Self.lordHowe, Self.santiago] {
            let rows = Self.rows.filter { $0.zone == zone }
            #expect(rows.contains { if case .at = $0.rule { true } else { false } }, "\(zone): at")
            #expect(rows.contains { if case .every = $0.rule { true } else { false } }, "\(zone): every")
            #expect(
                rows.contains {
                    if case .cron(let cron) = $0.rule, case let text = cron.text {
                        text.hasPrefix("30 * ") || text.hasPrefix("15 * ") || text.hasPrefix("45 * ") || text.hasPrefix("0 * ")
                    } else {
                        false
                    }
                }, "\(zone): hourly cron")
            #expect(
                rows.contains { if case .cron(let cron) = $0.rule, case let text = cron.text { !text.contains(" * * * ") } else { false } },
                "\(zone): daily cron")
        }
    }
}
