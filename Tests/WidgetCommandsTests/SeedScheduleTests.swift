import Foundation
import Testing
import WidgetTestSupport

/// The seeds' schedules as definitions (`Tests/Fixtures/seed-schedules`), and what `widgetd next` says
/// about them, across a daylight-saving change each.
@Suite(.timeLimit(.minutes(5)))
struct SeedScheduleTests {
    static let config = "Tests/Fixtures/seed-schedules"

    func next(_ arguments: String...) async throws -> Widgetd.Output {
        try await Widgetd.run(["next"] + arguments + ["--config", Self.config])
    }

    @Test func seedDefinitionsAreValid() async throws {
        let output = try await Widgetd.run(["validate", "--config", Self.config])
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
    }

    @Test func artworksRefreshAt4SoTheMorningSetIsReady20HoursAfterTheLastMorningUpdate() async throws {
        let output = try await next("artworks", "--from", "2026-03-06T12:00:00Z", "--count", "3")
        #expect(output.status == 0)
        #expect(
            output.stdoutLines == [
                "artworks: at 04:00 (America/New_York)",
                "  Sat 2026-03-07 04:00:00 EST  2026-03-07T09:00:00Z",
                "  Sun 2026-03-08 04:00:00 EDT  2026-03-08T08:00:00Z",
                "  Mon 2026-03-09 04:00:00 EDT  2026-03-09T08:00:00Z",
            ])
    }

    @Test func runwaysRefreshEvery15MinutesOfElapsedTimeThroughTheRepeatedHour() async throws {
        let output = try await next("runways", "--from", "2026-11-01T08:40:00Z", "--count", "3")
        #expect(output.status == 0)
        #expect(
            output.stdoutLines == [
                "runways: every 15m (America/Los_Angeles)",
                "  Sun 2026-11-01 01:55:00 PDT  2026-11-01T08:55:00Z",
                "  Sun 2026-11-01 01:10:00 PST  2026-11-01T09:10:00Z",
                "  Sun 2026-11-01 01:25:00 PST  2026-11-01T09:25:00Z",
            ])
    }

    @Test func jokesRefreshAtMidnightInNewYork() async throws {
        let output = try await next("jokes", "--from", "2026-10-30T12:00:00Z", "--count", "3")
        #expect(output.status == 0)
        #expect(
            output.stdoutLines == [
                "jokes: at 00:00 (America/New_York)",
                "  Sat 2026-10-31 00:00:00 EDT  2026-10-31T04:00:00Z",
                "  Sun 2026-11-01 00:00:00 EDT  2026-11-01T04:00:00Z",
                "  Mon 2026-11-02 00:00:00 EST  2026-11-02T05:00:00Z",
            ])
    }
}
