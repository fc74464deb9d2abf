import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetTestSupport
import WidgetTesting

/// One definition, several widgets: the title and placeholder each instance renders from its params, and
/// its own time zone and schedule, as `run`, `list`, `status` and the snapshots show them.
@Suite(.timeLimit(.minutes(5)))
struct InstanceEndToEndTests {
    /// Two cities from one definition, their source down, so that each serves its rendered placeholder.
    static func cities(_ server: TestHTTPServer) -> String {
        """
        {
          "title": "{{ params.city }} weather",
          "source": { "url": "\(server.url("/status/503").absoluteString)" },
          "schedule": { "every": "2h" },
          "placeholder": { "message": "Waiting for {{ params.city }}", "city": "{{ params.city }}" },
          "instances": [
            { "id": "oslo", "params": { "city": "Oslo" } },
            { "id": "lima", "title": "Lima ({{ widget.timeZone }})", "timeZone": "America/Lima",
              "schedule": { "at": ["06:00"] }, "params": { "city": "Lima" } }
          ]
        }
        """
    }

    @Test func renderedTitlesAndPlaceholdersReachSnapshotsIndexListAndStatus() async throws {
        let server = try CommandLineEndToEndTests.server()
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/weather.json", Self.cities(server))

        let run = try await Widgetd.run(["run", "--config", "widgets.d", "--out", "out", "--once"], in: folder.url)
        #expect(run.status == 1)
        let oslo = try CommandLineEndToEndTests.read(folder.file("out/weather.oslo.json"))
        let lima = try CommandLineEndToEndTests.read(folder.file("out/weather.lima.json"))
        #expect(oslo["title"] == "Oslo weather")
        #expect(lima["title"] == "Lima (America/Lima)")
        #expect(oslo["status"] == "placeholder")
        #expect(oslo["entries"]?[0]?["content"] == ["message": "Waiting for Oslo", "city": "Oslo"])
        #expect(lima["entries"]?[0]?["content"] == ["message": "Waiting for Lima", "city": "Lima"])
        let index = try CommandLineEndToEndTests.read(folder.file("out/index.json"))
        #expect(index["widgets"]?.array?.map { $0["title"] } == ["Lima (America/Lima)", "Oslo weather"])

        let list = try await Widgetd.run(["list", "--config", "widgets.d", "--out", "out"], in: folder.url)
        #expect(list.status == 0)
        let rows = list.stdoutLines.map(CommandLineEndToEndTests.columns)
        #expect(
            rows.map { Array($0.prefix(2)) } == [
                ["ID", "TITLE"], ["weather.lima", "Lima (America/Lima)"], ["weather.oslo", "Oslo weather"],
            ])
        #expect(rows.dropFirst().map { $0[4] } == ["at 06:00", "every 2h"])

        let status = try await Widgetd.run(["status", "--out", "out"], in: folder.url)
        let statusRows = status.stdoutLines.dropFirst(2).map(CommandLineEndToEndTests.columns)
        #expect(
            statusRows.map { Array($0.prefix(3)) } == [
                ["ID", "TITLE", "STATUS"], ["weather.lima", "Lima (America/Lima)", "placeholder"],
                ["weather.oslo", "Oslo weather", "placeholder"],
            ])
    }

    @Test func nextUsesTheInstancesOwnTimeZoneAndSchedule() async throws {
        let server = try CommandLineEndToEndTests.server()
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/weather.json", Self.cities(server))
        let next = try await Widgetd.run(
            ["next", "weather.lima", "--config", "widgets.d", "--count", "2", "--from", "2026-11-22T12:00:00Z"], in: folder.url)
        #expect(next.status == 0, "\(next.stderr)")
        // 06:00 in Lima (UTC-5) is 11:00 UTC.
        #expect(next.stdout.contains("2026-11-23T11:00:00Z"), "\(next.stdout)")
        #expect(next.stdout.contains("2026-11-24T11:00:00Z"), "\(next.stdout)")
    }
}
