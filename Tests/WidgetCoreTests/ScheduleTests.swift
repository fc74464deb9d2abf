import Foundation
import Testing
import WidgetCore

struct ScheduleTests {
    private static let newYork = TimeZone(identifier: "America/New_York")!

    private func date(_ text: String) -> Date {
        try! Date(text, strategy: .iso8601)
    }

    /// The next `count` refreshes after `start`, in New York local time with the offset.
    private func refreshes(_ rule: Schedule.Rule, after start: String, count: Int) -> [String] {
        let schedule = Schedule(rule: rule)
        let style = Date.ISO8601FormatStyle(timeZoneSeparator: .colon, timeZone: Self.newYork)
        var current = date(start)
        var result: [String] = []
        for _ in 0..<count {
            guard let next = schedule.nextRefresh(after: current, timeZone: Self.newYork) else { break }
            result.append(next.formatted(style))
            current = next
        }
        return result
    }

    // MARK: - Spring forward: 2026-03-08, 02:00 EST becomes 03:00 EDT

    @Test func dailyTimeInTheSkippedHourFiresOnceAnHourLater() {
        let expected = ["2026-03-07T02:30:00-05:00", "2026-03-08T03:30:00-04:00", "2026-03-09T02:30:00-04:00"]
        #expect(refreshes(.at([TimeOfDay(hour: 2, minute: 30)]), after: "2026-03-06T12:00:00-05:00", count: 3) == expected)
        #expect(refreshes(.cron("30 2 * * *"), after: "2026-03-06T12:00:00-05:00", count: 3) == expected)
    }

    @Test func dailyTimeInTheSkippedHourFiresOnceWhenAskedFromInsideTheDay() {
        #expect(
            refreshes(.at([TimeOfDay(hour: 2, minute: 30)]), after: "2026-03-08T01:59:00-05:00", count: 2)
                == ["2026-03-08T03:30:00-04:00", "2026-03-09T02:30:00-04:00"])
        #expect(
            refreshes(.cron("30 2 * * *"), after: "2026-03-08T01:59:00-05:00", count: 2)
                == ["2026-03-08T03:30:00-04:00", "2026-03-09T02:30:00-04:00"])
    }

    @Test func hourlyCronSkipsTheMissingHour() {
        #expect(
            refreshes(.cron("30 * * * *"), after: "2026-03-08T00:00:00-05:00", count: 4) == [
                "2026-03-08T00:30:00-05:00", "2026-03-08T01:30:00-05:00", "2026-03-08T03:30:00-04:00", "2026-03-08T04:30:00-04:00",
            ])
    }

    // MARK: - Fall back: 2026-11-01, 02:00 EDT becomes 01:00 EST

    @Test func dailyTimeInTheRepeatedHourFiresOnceAtTheFirst() {
        let expected = ["2026-10-31T01:30:00-04:00", "2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"]
        #expect(refreshes(.at([TimeOfDay(hour: 1, minute: 30)]), after: "2026-10-30T12:00:00-04:00", count: 3) == expected)
        #expect(refreshes(.cron("30 1 * * *"), after: "2026-10-30T12:00:00-04:00", count: 3) == expected)
    }

    @Test func dailyTimeInTheRepeatedHourDoesNotFireAgainInTheSecondPass() {
        #expect(
            refreshes(.at([TimeOfDay(hour: 1, minute: 30)]), after: "2026-11-01T01:30:03-04:00", count: 1)
                == ["2026-11-02T01:30:00-05:00"])
        #expect(
            refreshes(.at([TimeOfDay(hour: 1, minute: 30)]), after: "2026-11-01T01:45:00-04:00", count: 1)
                == ["2026-11-02T01:30:00-05:00"])
        #expect(
            refreshes(.cron("30 1 * * *"), after: "2026-11-01T01:45:00-04:00", count: 1)
                == ["2026-11-02T01:30:00-05:00"])
    }

    @Test func hourlyCronFiresTwiceInTheRepeatedHour() {
        #expect(
            refreshes(.cron("30 * * * *"), after: "2026-11-01T00:00:00-04:00", count: 4) == [
                "2026-11-01T00:30:00-04:00", "2026-11-01T01:30:00-04:00", "2026-11-01T01:30:00-05:00", "2026-11-01T02:30:00-05:00",
            ])
    }

    @Test func everyIsElapsedTimeAcrossDaylightSavingChanges() {
        #expect(
            refreshes(.every(WidgetDuration(seconds: 3_600)), after: "2026-11-01T00:30:00-04:00", count: 3) == [
                "2026-11-01T01:30:00-04:00", "2026-11-01T01:30:00-05:00", "2026-11-01T02:30:00-05:00",
            ])
        #expect(
            refreshes(.every(WidgetDuration(seconds: 86_400)), after: "2026-03-07T12:00:00-05:00", count: 2) == [
                "2026-03-08T13:00:00-04:00", "2026-03-09T13:00:00-04:00",
            ])
    }

    // MARK: - A skipped midnight: America/Santiago, 2026-09-06 starts at 01:00

    @Test func dayAfterASkippedMidnightStillFires() {
        let santiago = TimeZone(identifier: "America/Santiago")!
        let style = Date.ISO8601FormatStyle(timeZoneSeparator: .colon, timeZone: santiago)
        for rule in [Schedule.Rule.at([TimeOfDay(hour: 0, minute: 0)]), .cron("0 0 * * *")] {
            var current = date("2026-09-05T12:00:00Z")
            var result: [String] = []
            for _ in 0..<3 {
                guard let next = Schedule(rule: rule).nextRefresh(after: current, timeZone: santiago) else { break }
                result.append(next.formatted(style))
                current = next
            }
            #expect(result == ["2026-09-06T01:00:00-03:00", "2026-09-07T00:00:00-03:00", "2026-09-08T00:00:00-03:00"], "\(rule)")
        }
    }

    // MARK: - A half-hour gap: Australia/Lord_Howe, 2026-10-04 02:00 becomes 02:30

    @Test func timeInAHalfHourGapFiresAfterTheGap() {
        let lordHowe = TimeZone(identifier: "Australia/Lord_Howe")!
        let style = Date.ISO8601FormatStyle(timeZoneSeparator: .colon, timeZone: lordHowe)
        for rule in [Schedule.Rule.at([TimeOfDay(hour: 2, minute: 15)]), .cron("15 2 * * *")] {
            var current = date("2026-10-03T10:00:00Z")
            var result: [String] = []
            for _ in 0..<2 {
                guard let next = Schedule(rule: rule).nextRefresh(after: current, timeZone: lordHowe) else { break }
                result.append(next.formatted(style))
                current = next
            }
            #expect(result == ["2026-10-04T02:45:00+11:00", "2026-10-05T02:15:00+11:00"], "\(rule)")
        }
    }

    // MARK: - Other rules

    @Test func severalTimesOfDayFireInOrder() {
        let times = [TimeOfDay(hour: 20, minute: 0), TimeOfDay(hour: 8, minute: 0)]
        #expect(
            refreshes(.at(times), after: "2026-06-01T09:00:00-04:00", count: 3) == [
                "2026-06-01T20:00:00-04:00", "2026-06-02T08:00:00-04:00", "2026-06-02T20:00:00-04:00",
            ])
    }

    @Test func atEndFiresAtTheLastEntryWhenItIsAhead() {
        let schedule = Schedule(rule: .atEnd)
        let now = date("2026-06-01T12:00:00Z")
        #expect(
            schedule.nextRefresh(after: now, timeZone: Self.newYork, lastEntryDate: date("2026-06-01T18:00:00Z"))
                == date("2026-06-01T18:00:00Z"))
        #expect(schedule.nextRefresh(after: now, timeZone: Self.newYork, lastEntryDate: date("2026-06-01T06:00:00Z")) == nil)
        #expect(schedule.nextRefresh(after: now, timeZone: Self.newYork) == nil)
    }

    @Test func neverHasNoNextRefresh() {
        #expect(Schedule(rule: .never).nextRefresh(after: date("2026-06-01T12:00:00Z"), timeZone: Self.newYork) == nil)
    }

    @Test func typicalIntervalIsTheGapToTheNextRefresh() {
        let now = date("2026-06-01T12:00:00Z")
        #expect(Schedule(rule: .every(WidgetDuration(seconds: 900))).typicalInterval(after: now, timeZone: Self.newYork) == 900)
        #expect(Schedule(rule: .cron("0 */4 * * *")).typicalInterval(after: now, timeZone: TimeZone(identifier: "UTC")!) == 14_400)
        #expect(Schedule(rule: .never).typicalInterval(after: now, timeZone: Self.newYork) == 86_400)
    }

    // MARK: - Jitter

    @Test func jitterIsStablePerWidget() {
        let schedule = Schedule(rule: .every(WidgetDuration(seconds: 3_600)), jitter: WidgetDuration(seconds: 600))
        #expect(schedule.jitterOffset(for: "jotd") == 230)
        #expect(schedule.jitterOffset(for: "news") == 246)
        #expect(schedule.jitterOffset(for: "bitdream.home") == 372)
        #expect(schedule.jitterOffset(for: "jotd") == schedule.jitterOffset(for: "jotd"))
    }

    @Test func jitterStaysWithinItsRange() {
        let schedule = Schedule(rule: .every(WidgetDuration(seconds: 3_600)), jitter: WidgetDuration(seconds: 90))
        let offsets = (0..<500).map { schedule.jitterOffset(for: "widget-\($0)") }
        #expect(offsets.allSatisfy { (0..<90).contains($0) })
        #expect(Set(offsets).count > 45, "jitter should spread widgets out")
    }

    @Test func noJitterMeansNoOffset() {
        #expect(Schedule().jitterOffset(for: "jotd") == 0)
        #expect(Schedule(jitter: WidgetDuration(seconds: 0)).jitterOffset(for: "jotd") == 0)
    }

    // MARK: - Summary

    @Test func summaryDescribesTheRule() {
        #expect(Schedule(rule: .every(WidgetDuration(seconds: 900))).summary == "every 15m")
        #expect(Schedule(rule: .at([TimeOfDay(hour: 8, minute: 0), TimeOfDay(hour: 20, minute: 0)])).summary == "at 08:00,20:00")
        #expect(Schedule(rule: .cron("0 */4 * * *")).summary == "cron 0 */4 * * *")
        #expect(Schedule(rule: .atEnd).summary == "atEnd")
        #expect(Schedule(rule: .never).summary == "never")
    }
}
