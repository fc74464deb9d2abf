import Foundation
import Testing
import WidgetCommands
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetTestSupport
import WidgetTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What an operator reads: `--log-format json` lines, `--log-level`, the reload summary, and `status`
/// saying whether a daemon runs.
@Suite(.timeLimit(.minutes(5)))
struct OperatorLogTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    // MARK: - The format, in memory

    @Test func textIsATimestampAndTheSentence() {
        let record = LogRecord(.info, "refreshed", "items: fresh, 1 entry in 12 ms", widget: "items")
        #expect(LogFormat().line(record, at: Self.now) == "\(Timestamp.string(Self.now)) items: fresh, 1 entry in 12 ms")
    }

    @Test func jsonIsOneObjectWithEveryFieldTheEventHas() throws {
        let next = Self.now.addingTimeInterval(3_600)
        let record = LogRecord(
            .warning, "refresh-failed", "news: cached, 2 entries — source: \"x\" refused\nagain", widget: "news", status: "cached",
            duration: 0.012_345_6, entries: 2, next: next, error: "source: \"x\" refused\nagain", details: ["attempt": 3])
        let line = try #require(LogFormat(style: .json).line(record, at: Self.now))
        #expect(!line.contains("\n"))
        let object = try JSONReader.read(Data(line.utf8))
        #expect(object["time"] == .string(Timestamp.milliseconds(Self.now)))
        #expect(object["level"] == "warning")
        #expect(object["event"] == "refresh-failed")
        #expect(object["message"] == .string(record.message))
        #expect(object["widget"] == "news")
        #expect(object["status"] == "cached")
        #expect(object["duration"] == .number(WidgetNumber("0.012")!))
        #expect(object["entries"] == 2)
        #expect(object["next"] == .string(Timestamp.string(next)))
        #expect(object["error"] == "source: \"x\" refused\nagain")
        #expect(object["attempt"] == 3)
        #expect(object.object?.keys.first == "time")
    }

    @Test func recordsBelowTheLevelAreDropped() {
        let format = LogFormat(style: .text, level: .warning)
        #expect(format.line(LogRecord(.info, "refreshed", "items: fresh"), at: Self.now) == nil)
        #expect(format.line(LogRecord(.notice, "stopping", "stopping"), at: Self.now) == nil)
        #expect(format.line(LogRecord(.warning, "refresh-failed", "items: cached"), at: Self.now) != nil)
        #expect(format.line(LogRecord(.error, "write-failed", "disk full"), at: Self.now) != nil)
        #expect(LogLevel.allCases.sorted() == [.debug, .info, .notice, .warning, .error])
    }

    @Test func theOptionsAreCheckedWithTheChoicesNamed() throws {
        var arguments = Arguments(["--log-format", "json", "--log-level=debug"])
        #expect(try arguments.logFormat() == LogFormat(style: .json, level: .debug))
        var defaults = Arguments([])
        #expect(try defaults.logFormat() == LogFormat(style: .text, level: .info))
        var wrong = Arguments(["--log-level", "verbose"])
        #expect(throws: UsageError.self) { try wrong.logFormat() }
        do {
            var bad = Arguments(["--log-format", "xml"])
            _ = try bad.logFormat()
        } catch {
            #expect(error.description == "--log-format takes 'text' or 'json', not 'xml'")
        }
        do {
            var bad = Arguments(["--log-level", "verbose"])
            _ = try bad.logFormat()
        } catch {
            #expect(error.description == "--log-level takes 'debug', 'info', 'notice', 'warning' or 'error', not 'verbose'")
        }
    }

    // MARK: - The daemon

    /// Reads JSON log lines until one has `event` (and, when given, whose message contains `text`);
    /// every line read on the way must be a JSON object with the four fields every record has.
    static func record(_ event: String, containing text: String = "", from daemon: RunningWidgetd) async throws -> WidgetValue? {
        while let line = await daemon.line(containing: "\"event\"") {
            let object = try JSONReader.read(Data(line.utf8))
            for field in ["time", "level", "event", "message"] {
                #expect(object[field]?.string != nil, "\(field) is missing from \(line)")
            }
            if object["event"]?.string == event, text.isEmpty || object["message"]?.string?.contains(text) == true {
                return object
            }
        }
        return nil
    }

    @Test func aDaemonLogsJSONLinesAndStatusSaysItRuns() async throws {
        let server = try CommandLineEndToEndTests.server()
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/items.json", CommandLineEndToEndTests.items(server, size: 2))
        let daemon = try RunningWidgetd(
            ["run", "--config", "widgets.d", "--out", "out", "--log-format", "json", "--log-level", "debug"], in: folder.url)

        let started = try #require(try await Self.record("started", from: daemon), "\(daemon.log)")
        #expect(started["level"] == "notice")
        #expect(started["pid"] == .number(WidgetNumber(Int(daemon.pid))))
        #expect(started["out"] == "out")
        let refreshed = try #require(try await Self.record("refreshed", from: daemon), "\(daemon.log)")
        #expect(refreshed["level"] == "info")
        #expect(refreshed["widget"] == "items")
        #expect(refreshed["status"] == "fresh")
        #expect(refreshed["entries"] == 1)
        #expect(refreshed["duration"]?.number != nil)
        // How late it started against its due time (at start: due at once).
        #expect(refreshed["late"]?.number != nil)
        #expect(refreshed["next"]?.string.flatMap(Timestamp.date) != nil)
        #expect(refreshed["message"]?.string?.hasPrefix("items: fresh, 1 entry in ") == true)
        // The wave's record is written before it logs that it is done.
        _ = try #require(try await Self.record("wave", from: daemon), "\(daemon.log)")

        let status = try await Widgetd.run(["status", "--out", "out"], in: folder.url)
        #expect(status.status == 0)
        let first = try #require(status.stdoutLines.first)
        #expect(first.hasPrefix("daemon: running, pid \(daemon.pid), since "), "\(first)")
        #expect(first.contains("last wave "), "\(first)")
        #expect(first.hasSuffix(", 1 widgets"), "\(first)")
        let json = try await Widgetd.run(["status", "--out", "out", "--format", "json"], in: folder.url)
        let report = try JSONReader.read(Data(json.stdout.utf8))
        #expect(report["daemon"]?["running"] == true)
        #expect(report["daemon"]?["pid"] == .number(WidgetNumber(Int(daemon.pid))))
        #expect(report["daemon"]?["lastWaveAt"]?.string.flatMap(Timestamp.date) != nil)
        #expect(report["daemon"]?["stoppedAt"] == .null)
        #expect(report["widgets"]?[0]?["status"] == "fresh")

        // A reload says what it changed.
        try folder.write("widgets.d/more.json", CommandLineEndToEndTests.items(server, size: 3))
        daemon.send(SIGHUP)
        let added = try #require(try await Self.record("reloaded", containing: "1 added (more)", from: daemon), "\(daemon.log)")
        #expect(added["added"] == ["more"])
        #expect(added["removed"] == [])
        #expect(added["changed"] == [])
        #expect(added["widgets"] == 2)
        #expect(added["problems"] == 0)
        #expect(added["message"] == "definitions reloaded: 1 added (more), 0 changed, 0 removed; 2 widgets, 0 problems")

        // The folder watcher may reload between these edits as well as on SIGHUP: read reloads until one
        // has seen all three, and add up what they say.
        try FileManager.default.removeItem(at: folder.file("widgets.d/items.json"))
        try folder.write("widgets.d/more.json", CommandLineEndToEndTests.items(server, size: 4))
        try folder.write("widgets.d/broken.json", "{\"title\": ")
        daemon.send(SIGHUP)
        var removed: Set<WidgetValue> = []
        var changed: Set<WidgetValue> = []
        while true {
            let reload = try #require(try await Self.record("reloaded", from: daemon), "\(daemon.log)")
            removed.formUnion(reload["removed"]?.array ?? [])
            changed.formUnion(reload["changed"]?.array ?? [])
            guard reload["problems"] == 1, removed.contains("items"), changed.contains("more") else { continue }
            #expect(reload["level"] == "warning")
            #expect(reload["widgets"] == 1)
            break
        }
        #expect(removed == ["items"])

        daemon.send(SIGTERM)
        _ = try #require(try await Self.record("stopping", from: daemon), "\(daemon.log)")
        #expect(await daemon.waitForExit() == 0)
        let after = try await Widgetd.run(["status", "--out", "out"], in: folder.url)
        #expect(after.stdoutLines.first?.hasPrefix("daemon: not running (pid \(daemon.pid) stopped at ") == true, "\(after.stdout)")
    }

    @Test func logLevelWarningLeavesOnlyProblems() async throws {
        let server = try CommandLineEndToEndTests.server()
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/items.json", CommandLineEndToEndTests.items(server, size: 2))
        try folder.write(
            "widgets.d/down.json",
            """
            {"source": {"url": "\(server.url("/status/503").absoluteString)"}, "parser": "json", "timeline": "single",
             "schedule": {"every": "1h"}}
            """)
        let daemon = try RunningWidgetd(
            ["run", "--config", "widgets.d", "--out", "out", "--log-level", "warning"], in: folder.url)
        let failed = try #require(await daemon.line(containing: "down: placeholder"), "\(daemon.log)")
        #expect(failed.contains("503"))
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        // Drain what is left: nothing below warning was written.
        _ = await daemon.line(containing: "\u{0}")
        #expect(
            !daemon.log.contains { $0.contains("items: fresh") || $0.contains("widgetd running") || $0.contains("stopping") },
            "\(daemon.log)")
    }
}
