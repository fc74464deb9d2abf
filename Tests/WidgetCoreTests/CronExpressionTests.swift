import Foundation
import Testing
import WidgetCore
import WidgetJSON

struct CronExpressionTests {
    private static let utc = TimeZone(identifier: "UTC")!

    private func date(_ text: String) -> Date {
        try! Date(text, strategy: .iso8601)
    }

    /// The next `count` times of `expression` after `start`, as UTC ISO 8601 strings.
    private func times(_ expression: String, after start: String, count: Int = 4, zone: TimeZone = utc) throws -> [String] {
        let cron = try CronExpression(expression)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var current = date(start)
        var result: [String] = []
        for _ in 0..<count {
            guard let next = cron.nextDate(after: current, calendar: calendar) else { break }
            result.append(next.formatted(.iso8601))
            current = next
        }
        return result
    }

    private func problem(_ expression: String) -> String? {
        do {
            _ = try CronExpression(expression)
            return nil
        } catch {
            return error.description
        }
    }

    // MARK: - Vixie semantics

    @Test func stepsOverTheWholeRange() throws {
        #expect(
            try times("*/15 * * * *", after: "2026-01-01T00:00:00Z") == [
                "2026-01-01T00:15:00Z", "2026-01-01T00:30:00Z", "2026-01-01T00:45:00Z", "2026-01-01T01:00:00Z",
            ])
    }

    @Test func stepsOverARange() throws {
        #expect(
            try times("0 8-18/5 * * *", after: "2026-01-01T00:00:00Z") == [
                "2026-01-01T08:00:00Z", "2026-01-01T13:00:00Z", "2026-01-01T18:00:00Z", "2026-01-02T08:00:00Z",
            ])
    }

    @Test func stepFromAStartRunsToTheEndOfTheRange() throws {
        #expect(
            try times("10/20 * * * *", after: "2026-01-01T00:00:00Z") == [
                "2026-01-01T00:10:00Z", "2026-01-01T00:30:00Z", "2026-01-01T00:50:00Z", "2026-01-01T01:10:00Z",
            ])
    }

    @Test func listsCombineValuesAndRanges() throws {
        #expect(
            try times("5,35 1,3-4 * * *", after: "2026-01-01T00:00:00Z", count: 7) == [
                "2026-01-01T01:05:00Z", "2026-01-01T01:35:00Z", "2026-01-01T03:05:00Z", "2026-01-01T03:35:00Z",
                "2026-01-01T04:05:00Z", "2026-01-01T04:35:00Z", "2026-01-02T01:05:00Z",
            ])
    }

    @Test func monthAndDayNamesAreCaseInsensitive() throws {
        // 2026-01-30 is a Friday.
        #expect(
            try times("0 9 * JAN,feb Mon-Fri", after: "2026-01-30T10:00:00Z") == [
                "2026-02-02T09:00:00Z", "2026-02-03T09:00:00Z", "2026-02-04T09:00:00Z", "2026-02-05T09:00:00Z",
            ])
        #expect(
            try times("0 0 1 dec *", after: "2026-01-01T00:00:00Z", count: 2) == [
                "2026-12-01T00:00:00Z", "2027-12-01T00:00:00Z",
            ])
    }

    @Test func sevenAndZeroAreBothSunday() throws {
        // 2026-01-04 is a Sunday.
        let sundays = ["2026-01-04T12:00:00Z", "2026-01-11T12:00:00Z"]
        #expect(try times("0 12 * * 7", after: "2026-01-01T00:00:00Z", count: 2) == sundays)
        #expect(try times("0 12 * * 0", after: "2026-01-01T00:00:00Z", count: 2) == sundays)
        #expect(try times("0 12 * * sun", after: "2026-01-01T00:00:00Z", count: 2) == sundays)
        #expect(
            try times("0 12 * * 5-7", after: "2026-01-01T00:00:00Z", count: 4) == [
                "2026-01-02T12:00:00Z", "2026-01-03T12:00:00Z", "2026-01-04T12:00:00Z", "2026-01-09T12:00:00Z",
            ])
    }

    @Test func restrictedDayOfMonthAndDayOfWeekMatchEither() throws {
        // The 13th, or any Friday (2026-01-02 is a Friday; the 13th is a Tuesday).
        #expect(
            try times("0 0 13 * fri", after: "2026-01-01T00:00:00Z", count: 5) == [
                "2026-01-02T00:00:00Z", "2026-01-09T00:00:00Z", "2026-01-13T00:00:00Z", "2026-01-16T00:00:00Z",
                "2026-01-23T00:00:00Z",
            ])
    }

    @Test func starredDayFieldDefersToTheOther() throws {
        #expect(
            try times("0 0 13 * *", after: "2026-01-01T00:00:00Z", count: 2) == [
                "2026-01-13T00:00:00Z", "2026-02-13T00:00:00Z",
            ])
        #expect(
            try times("0 0 * * fri", after: "2026-01-01T00:00:00Z", count: 2) == [
                "2026-01-02T00:00:00Z", "2026-01-09T00:00:00Z",
            ])
        // A day-of-month field starting with '*' counts as unrestricted: both must match (Vixie's DOM_STAR).
        #expect(
            try times("0 0 */10 * mon", after: "2026-01-01T00:00:00Z", count: 2) == [
                "2026-05-11T00:00:00Z", "2026-06-01T00:00:00Z",
            ])
    }

    @Test func macrosStandForTheirExpressions() throws {
        let start = "2026-01-01T10:20:00Z"
        #expect(try times("@hourly", after: start, count: 2) == ["2026-01-01T11:00:00Z", "2026-01-01T12:00:00Z"])
        #expect(try times("@daily", after: start, count: 2) == ["2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"])
        #expect(try times("@midnight", after: start, count: 1) == ["2026-01-02T00:00:00Z"])
        #expect(try times("@weekly", after: start, count: 2) == ["2026-01-04T00:00:00Z", "2026-01-11T00:00:00Z"])
        #expect(try times("@monthly", after: start, count: 2) == ["2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"])
        #expect(try times("@yearly", after: start, count: 2) == ["2027-01-01T00:00:00Z", "2028-01-01T00:00:00Z"])
        #expect(try times("@annually", after: start, count: 1) == ["2027-01-01T00:00:00Z"])
        #expect(try times("@DAILY", after: start, count: 1) == ["2026-01-02T00:00:00Z"])
    }

    @Test func leapDayRuleWaitsForALeapYear() throws {
        #expect(
            try times("0 0 29 2 *", after: "2026-03-01T00:00:00Z", count: 2) == [
                "2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z",
            ])
    }

    @Test func thirtyFirstSkipsShortMonths() throws {
        #expect(
            try times("0 0 31 * *", after: "2026-01-31T00:00:00Z", count: 3) == [
                "2026-03-31T00:00:00Z", "2026-05-31T00:00:00Z", "2026-07-31T00:00:00Z",
            ])
    }

    @Test func nextDateIsStrictlyAfterTheGivenMoment() throws {
        #expect(try times("30 9 * * *", after: "2026-01-01T09:30:00Z", count: 1) == ["2026-01-02T09:30:00Z"])
        #expect(try times("30 9 * * *", after: "2026-01-01T09:29:59Z", count: 1) == ["2026-01-01T09:30:00Z"])
        #expect(try times("30 * * * *", after: "2026-01-01T09:30:00Z", count: 1) == ["2026-01-01T10:30:00Z"])
        #expect(try times("30 * * * *", after: "2026-01-01T09:29:30Z", count: 1) == ["2026-01-01T09:30:00Z"])
    }

    @Test func localTimesFollowTheCalendarsZone() throws {
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!
        #expect(
            try times("0 8 * * *", after: "2026-01-01T00:00:00Z", count: 2, zone: tokyo) == [
                "2026-01-01T23:00:00Z", "2026-01-02T23:00:00Z",
            ])
    }

    @Test func coversEveryHourOnlyForHourlyRules() throws {
        #expect(CronExpression("*/5 * * * *").coversEveryHour)
        #expect(CronExpression("@hourly").coversEveryHour)
        #expect(!CronExpression("0 */2 * * *").coversEveryHour)
        #expect(!CronExpression("@daily").coversEveryHour)
    }

    @Test func textIsKeptAsWritten() throws {
        #expect(CronExpression("0  */4 * * *").description == "0  */4 * * *")
    }

    // MARK: - Invalid expressions

    @Test func valueOutOfRangeNamesTheFieldAndColumn() {
        #expect(
            problem("0 25 * * *")
                == "'25' is not allowed in the hour field at column 3; use numbers 0-23, '*', ranges 'a-b', steps '/n' and lists 'a,b'")
        #expect(
            problem("0 0 0 * *")
                == "'0' is not allowed in the day of month field at column 5; use numbers 1-31, '*', ranges 'a-b', steps '/n' and lists 'a,b'"
        )
        #expect(
            problem("0 0 * 13 *")
                == "'13' is not allowed in the month field at column 7; use numbers 1-12 or names such as 'jan', '*', ranges 'a-b', steps '/n' and lists 'a,b'"
        )
        #expect(
            problem("0 0 * * 8")
                == "'8' is not allowed in the day of week field at column 9; use numbers 0-7 or names such as 'sun', '*', ranges 'a-b', steps '/n' and lists 'a,b'"
        )
    }

    @Test func badListElementPointsAtItsOwnColumn() {
        #expect(
            problem("0,5,99 * * * *")
                == "'99' is not allowed in the minute field at column 5; use numbers 0-59, '*', ranges 'a-b', steps '/n' and lists 'a,b'")
        #expect(
            problem("0,,5 * * * *")
                == "'' is not allowed in the minute field at column 3; use numbers 0-59, '*', ranges 'a-b', steps '/n' and lists 'a,b'")
    }

    @Test func badStepsAndRangesAreRejected() {
        #expect(
            problem("*/0 * * * *")
                == "'0' is not a step in the minute field at column 1; use numbers 0-59, '*', ranges 'a-b', steps '/n' and lists 'a,b'")
        #expect(
            problem("5-1 * * * *")
                == "the range '5-1' runs backwards in the minute field at column 1; use numbers 0-59, '*', ranges 'a-b', steps '/n' and lists 'a,b'"
        )
        #expect(
            problem("1/2/3 * * * *")
                == "'1/2/3' is not allowed in the minute field at column 1; use numbers 0-59, '*', ranges 'a-b', steps '/n' and lists 'a,b'"
        )
        #expect(
            problem("foo * * * *")
                == "'foo' is not allowed in the minute field at column 1; use numbers 0-59, '*', ranges 'a-b', steps '/n' and lists 'a,b'")
    }

    @Test func signedNumbersAreNotCronValues() {
        #expect(
            problem("+5 * * * *")
                == "'+5' is not allowed in the minute field at column 1; use numbers 0-59, '*', ranges 'a-b', steps '/n' and lists 'a,b'")
        #expect(
            problem("*/+5 * * * *")
                == "'+5' is not a step in the minute field at column 1; use numbers 0-59, '*', ranges 'a-b', steps '/n' and lists 'a,b'")
    }

    @Test func columnsCountLeadingSpaces() {
        #expect(
            problem("  0 25 * * *")
                == "'25' is not allowed in the hour field at column 5; use numbers 0-23, '*', ranges 'a-b', steps '/n' and lists 'a,b'")
    }

    @Test func wrongNumberOfFieldsIsRejected() {
        #expect(
            problem("0 0 * *")
                == #"a cron expression has 5 fields (minute hour day-of-month month day-of-week), but this one has 4; write e.g. "0 */4 * * *""#
        )
        #expect(
            problem("0 0 0 * * * *")
                == #"a cron expression has 5 fields (minute hour day-of-month month day-of-week), but this one has 7; write e.g. "0 */4 * * *""#
        )
        #expect(
            problem("")
                == #"a cron expression has 5 fields (minute hour day-of-month month day-of-week), but this one has 0; write e.g. "0 */4 * * *""#
        )
    }

    @Test func unknownMacroSuggestsTheClosest() {
        #expect(problem("@dayly") == "unknown cron macro '@dayly' at column 1; did you mean '@daily'?")
        #expect(problem("@reboot") == "unknown cron macro '@reboot' at column 1; use @hourly, @daily, @weekly, @monthly or @yearly")
    }

    @Test func ruleThatNeverFiresIsRejected() {
        #expect(
            problem("0 0 30 2 *")
                == #"the cron expression "0 0 30 2 *" can never fire: no chosen month has the chosen day at column 5; check the day of month and the month"#
        )
        #expect(problem("0 0 31 apr,jun,sep,nov *") != nil)
        #expect(problem("0 0 29 2 *") == nil)
        // With a day of week as well, the OR rule makes it fire on that weekday.
        #expect(problem("0 0 30 2 mon") == nil)
    }
}
