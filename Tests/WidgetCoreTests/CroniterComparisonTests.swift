import Foundation
import Testing
import WidgetCore
import WidgetTestSupport
import WidgetTesting

/// Compares ``CronExpression/nextDate(after:calendar:)`` with Python's `croniter`, when it is installed
/// (`python3 -m pip install croniter`). Without it the test is skipped with a printed message, except under
/// `CI=true`, where it fails (see ``ExternalOracle``).
///
/// The expressions are a handful written by hand plus 500 made by a seeded generator (steps, ranges,
/// lists, month and day names, macros). Each is evaluated in four zones from a local start that is not
/// on a daylight-saving transition day, for the next 20 fire times that are not on a transition day
/// either (the documented DST policy on those days is checked by the DST table tests instead).
///
/// Shapes left out because Vixie cron and croniter disagree on them, or croniter is wrong:
/// - `*/n` in the day of month or day of week while the other day field is restricted: Vixie treats a
///   field that starts with `*` as unrestricted (so the day fields are ANDed), croniter ORs them.
/// - One-value ranges such as `5-5`: croniter 7 reads them as `*`.
/// - Day-of-week steps that can reach 7 (`3/2`, `1-7/2`): the day-of-week range runs to 7 (Sunday
///   again, as in cronie), so `3/2` is Wednesday, Friday and Sunday; croniter stops at 6.
///
/// croniter runs on local wall-clock times (naive datetimes): away from transition days that is what its
/// zone-aware mode computes, the local times do not depend on the zone, and it is several times faster,
/// so one croniter run per expression serves all four zones. All of it happens in one python process.
struct CroniterComparisonTests {
    static let handWritten = [
        "* * * * *", "*/5 * * * *", "*/7 * * * *", "0 * * * *", "30 * * * *", "15,45 * * * *",
        "0 */4 * * *", "0 0 * * *", "30 2 * * *", "0 8-18/5 * * *", "5,35 1,3-4 * * *", "10/20 * * * *",
        "0 9 * * mon-fri", "0 9 * * 1-5", "0 12 * * 7", "0 12 * * 0", "0 12 * * sun,wed", "0 0 1 * *",
        "0 0 31 * *", "0 0 29 2 *", "0 0 1 jan,jul *", "0 0 13 * fri", "0 0 1,15 * 1", "0 6 * 3-5 *",
        "59 23 31 12 *", "0 0 * * 6,0", "*/30 9-17 * * 1-5", "0 0 1-7 * *", "45 4 * feb mon", "0 12 1 */3 *",
        "@hourly", "@daily", "@weekly", "@monthly", "@yearly",
    ]
    static let generatedCount = 500
    static let zones = ["UTC", "America/New_York", "Europe/Berlin", "Australia/Sydney"]
    static let compared = 20
    /// The most fire times either side computes to find 20 that are not on transition days.
    static let limit = 5_000
    /// Local wall-clock starts, none on a transition day in any of the zones; expression i uses start i % n.
    static let starts = [
        "2026-01-15T10:17:23", "2026-05-20T23:59:00", "2026-07-01T00:00:00", "2026-10-30T12:00:00",
        "2026-12-31T23:30:00", "2027-02-27T06:45:30", "2026-03-07T18:00:00", "2026-09-30T21:10:00",
    ]

    static let expressions: [String] = {
        var seen = Set(handWritten)
        var result = handWritten
        var generator = CronGenerator(seed: 0x5EED_C0DE)
        while result.count < handWritten.count + generatedCount {
            let expression = generator.expression()
            guard !seen.contains(expression), (try? CronExpression(expression)) != nil else { continue }
            seen.insert(expression)
            result.append(expression)
        }
        return result
    }()

    /// Python's croniter; under `CI=true` the comparison runs, and fails, without it.
    static let croniter = ExternalOracle.pythonModule("croniter")

    private static let script = #"""
        import json, sys
        from datetime import datetime
        from croniter import croniter
        request = json.load(sys.stdin)
        count, limit = request["count"], request["limit"]
        skipped = {zone: set(days) for zone, days in request["transitionDays"].items()}
        result = []
        for expression, start in zip(request["expressions"], request["starts"]):
            it = croniter(expression, datetime.fromisoformat(start))
            kept = {zone: [] for zone in skipped}
            for _ in range(limit):
                if all(len(times) >= count for times in kept.values()):
                    break
                text = it.get_next(datetime).strftime("%Y-%m-%dT%H:%M:%S")
                for zone, times in kept.items():
                    if len(times) < count and text[:10] not in skipped[zone]:
                        times.append(text)
            result.append(kept)
        json.dump(result, sys.stdout)
        """#

    /// croniter's local fire times for every expression and zone, leaving out transition days, in one
    /// python run.
    private static func croniterTimes(_ expressions: [String], starts: [String], transitionDays: [String: Set<String>]) throws -> [[String:
        [String]]]
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let request: [String: Any] = [
            "expressions": expressions, "starts": starts, "count": compared, "limit": limit,
            "transitionDays": transitionDays.mapValues { $0.sorted() },
        ]
        let body = try JSONSerialization.data(withJSONObject: request)
        // Write from another thread: the answer may fill the output pipe before the request is written.
        let writer = Thread {
            input.fileHandleForWriting.write(body)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "croniter failed")
        return try JSONDecoder().decode([[String: [String]]].self, from: data)
    }

    /// A calendar in `zone`.
    private static func calendar(_ zone: String) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        return calendar
    }

    /// `2026-01-15T10:17:23` as a moment in `calendar`'s zone.
    private static func moment(_ local: String, _ calendar: Calendar) -> Date? {
        let numbers = local.split { !$0.isNumber }.compactMap { Int($0) }
        guard numbers.count == 6 else { return nil }
        return calendar.date(
            from: DateComponents(
                year: numbers[0], month: numbers[1], day: numbers[2], hour: numbers[3], minute: numbers[4], second: numbers[5]
            ))
    }

    /// `2026-01-15T10:17:23`: `date` as a local time in `calendar`'s zone.
    private static func local(_ date: Date, _ calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!)
    }

    /// The local dates (`2026-03-08`) on which `calendar`'s zone changes its offset, up to 2080.
    private static func transitionDays(_ calendar: Calendar) -> Set<String> {
        var days: Set<String> = []
        var cursor = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01
        let end = Date(timeIntervalSince1970: 3_471_292_800)  // 2080-01-01
        while let transition = calendar.timeZone.nextDaylightSavingTimeTransition(after: cursor), transition < end {
            days.insert(String(local(transition.addingTimeInterval(-1), calendar).prefix(10)))
            days.insert(String(local(transition, calendar).prefix(10)))
            cursor = transition
        }
        return days
    }

    @Test func startsAreNotOnTransitionDays() throws {
        for zone in Self.zones {
            let days = Self.transitionDays(Self.calendar(zone))
            #expect(zone == "UTC" ? days.isEmpty : days.count > 100, "\(zone)")
            for start in Self.starts {
                #expect(!days.contains(String(start.prefix(10))), "\(start) in \(zone)")
            }
        }
    }

    @Test func generatorMakesEnoughDistinctValidExpressions() throws {
        #expect(Self.expressions.count == Self.handWritten.count + Self.generatedCount)
        #expect(Set(Self.expressions).count == Self.expressions.count)
        #expect(Self.expressions.contains { $0.contains("/") && !$0.hasPrefix("*/") })
        #expect(Self.expressions.contains { $0.contains("-") && $0.contains(",") })
        #expect(Self.expressions.contains { $0.range(of: "[a-z]{3}", options: .regularExpression) != nil && !$0.hasPrefix("@") })
        #expect(Self.expressions.dropFirst(Self.handWritten.count).contains { $0.hasPrefix("@") })
    }

    @Test(.enabled(if: croniter.shouldRun, "needs python3 with croniter: python3 -m pip install croniter"))
    func nextFireTimesMatchCroniterInFourZones() throws {
        let expressions = Self.expressions
        let starts = expressions.indices.map { Self.starts[$0 % Self.starts.count] }
        let transitionDays = Dictionary(uniqueKeysWithValues: Self.zones.map { ($0, Self.transitionDays(Self.calendar($0))) })
        let expected = try Self.croniterTimes(expressions, starts: starts, transitionDays: transitionDays)
        try #require(expected.count == expressions.count)
        var equal = 0
        var total = 0
        var reported = 0
        for zone in Self.zones {
            let calendar = Self.calendar(zone)
            let skipped = transitionDays[zone]!
            for (index, expression) in expressions.enumerated() {
                let cron = try CronExpression(expression)
                var current = try #require(Self.moment(starts[index], calendar))
                var ours: [String] = []
                for _ in 0..<Self.limit where ours.count < Self.compared {
                    guard let next = cron.nextDate(after: current, calendar: calendar) else { break }
                    let text = Self.local(next, calendar)
                    if !skipped.contains(String(text.prefix(10))) { ours.append(text) }
                    current = next
                }
                let theirs = expected[index][zone] ?? []
                total += Self.compared
                equal += zip(ours, theirs).filter { $0 == $1 }.count
                if ours != theirs, reported < 30 {
                    reported += 1
                    let position =
                        zip(ours, theirs).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                        ?? min(ours.count, theirs.count)
                    let mine = position < ours.count ? ours[position] : "nothing"
                    let other = position < theirs.count ? theirs[position] : "nothing"
                    Issue.record("\(expression) in \(zone) from \(starts[index]): fire \(position + 1) is \(mine), croniter says \(other)")
                }
            }
        }
        print("croniter agreement: \(equal)/\(total) fire times equal (\(expressions.count) expressions × \(Self.zones.count) zones)")
        #expect(equal == total)
        #expect(total >= 500 * 4 * 20)
    }
}
