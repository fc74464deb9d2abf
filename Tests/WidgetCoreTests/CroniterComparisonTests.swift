import Foundation
import Testing
import WidgetCore

/// Compares ``CronExpression/nextDate(after:calendar:)`` with Python's `croniter`, when it is installed
/// (`python3 -m pip install croniter`). Without it the test is skipped, not failed.
struct CroniterComparisonTests {
    static let expressions = [
        "* * * * *", "*/5 * * * *", "*/7 * * * *", "0 * * * *", "30 * * * *", "15,45 * * * *",
        "0 */4 * * *", "0 0 * * *", "30 2 * * *", "0 8-18/5 * * *", "5,35 1,3-4 * * *", "10/20 * * * *",
        "0 9 * * mon-fri", "0 9 * * 1-5", "0 12 * * 7", "0 12 * * 0", "0 12 * * sun,wed", "0 0 1 * *",
        "0 0 31 * *", "0 0 29 2 *", "0 0 1 jan,jul *", "0 0 13 * fri", "0 0 1,15 * 1", "0 6 * 3-5 *",
        "59 23 31 12 *", "0 0 * * 6,0", "*/30 9-17 * * 1-5", "0 0 1-7 * *", "45 4 * feb mon", "0 12 1 */3 *",
        "@hourly", "@daily", "@weekly", "@monthly", "@yearly",
    ]
    static let iterations = 20
    static let start = "2026-01-01T00:00:00Z"

    /// `python3` with `croniter` importable, or `nil` (printing why).
    static let python: URL? = {
        for path in ["/usr/bin/env"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = ["python3", "-c", "import croniter"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do {
                try process.run()
                process.waitUntilExit()
                if process.terminationStatus == 0 { return URL(fileURLWithPath: path) }
            } catch {}
        }
        print("CroniterComparisonTests: skipped, python3 with croniter is not available; install it with 'python3 -m pip install croniter'")
        return nil
    }()

    private static let script = #"""
        import json, sys
        from datetime import datetime, timezone
        from croniter import croniter
        request = json.load(sys.stdin)
        start = datetime.fromisoformat(request["start"].replace("Z", "+00:00"))
        result = {}
        for expression in request["expressions"]:
            it = croniter(expression, start)
            result[expression] = [it.get_next(datetime).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
                                  for _ in range(request["iterations"])]
        json.dump(result, sys.stdout)
        """#

    private static func croniterTimes() throws -> [String: [String]] {
        let process = Process()
        process.executableURL = python
        process.arguments = ["python3", "-c", script]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let request: [String: Any] = ["start": start, "expressions": expressions, "iterations": iterations]
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: request))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return try JSONDecoder().decode([String: [String]].self, from: data)
    }

    @Test(.enabled(if: python != nil, "python3 with croniter is not installed"))
    func nextDatesMatchCroniterInUTC() throws {
        let expected = try Self.croniterTimes()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for expression in Self.expressions {
            let cron = try CronExpression(expression)
            var current = try Date(Self.start, strategy: .iso8601)
            var ours: [String] = []
            for _ in 0..<Self.iterations {
                guard let next = cron.nextDate(after: current, calendar: calendar) else { break }
                ours.append(next.formatted(.iso8601))
                current = next
            }
            #expect(ours == expected[expression], "\(expression)")
        }
    }
}
