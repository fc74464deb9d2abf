import Foundation
import Testing
import WidgetCore
import WidgetTesting

/// What `widgetd validate` checks beyond the format: schedules against their daily budget (a warning).
@Suite(.timeLimit(.minutes(5)))
struct ValidateChecksTests {
    // MARK: - Schedules and maxPerDay

    @Test func aScheduleBeyondMaxPerDayIsAWarningThatDoesNotFailValidate() async throws {
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/data.txt", "[]")
        try folder.write(
            "widgets.d/ticker.json",
            #"""
            {
              "source": { "path": "data.txt" },
              "schedule": { "cron": "*/2 * * * *", "allowFrequent": true, "maxPerDay": 100 }
            }
            """#)
        try folder.write("widgets.d/calm.json", #"{"source": {"path": "data.txt"}, "schedule": {"every": "15m", "maxPerDay": 96}}"#)
        let output = try await Widgetd.run(["validate", "--config", "widgets.d"], in: folder.url)
        #expect(output.status == 0)
        #expect(
            output.stdoutLines == [
                #"widgets.d/ticker.json:3:25: $.schedule.cron: warning: cron "*/2 * * * *" fires 720 times on each day it runs, but maxPerDay is 100: after 100 refreshes in a day the widget waits for the next day; raise "maxPerDay" to 720, or fire less often"#
            ])
        #expect(output.stderrLines == ["2 files checked, 2 widgets valid, 0 problems, 1 warning"])

        let json = try await Widgetd.run(["validate", "--config", "widgets.d", "--format", "json"], in: folder.url)
        #expect(json.status == 0)
        let reported = try #require(try JSONReader.read(Data(json.stdout.utf8)).array)
        #expect(reported.map { $0["severity"] } == ["warning"])
        #expect(reported.map { $0["path"] } == ["$.schedule.cron"])
        #expect(reported.map { $0["line"] } == [3])
    }
}
