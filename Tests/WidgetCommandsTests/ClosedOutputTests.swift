import Foundation
import Testing
import WidgetTestSupport

/// A closed or broken standard error (or output) never stops `widgetd`: `widgetd run 2>&1 | head -1`
/// must go on refreshing and stop cleanly.
struct ClosedOutputTests {
    /// A folder with one widget that reads a local file every second.
    static func config(in folder: TemporaryFolder) throws {
        try folder.write("widgets.d/data/items.json", #"{"items": [{"title": "one"}, {"title": "two"}]}"#)
        try folder.write(
            "widgets.d/items.json",
            #"""
            {
              "source": { "path": "data/items.json" },
              "transforms": [{ "type": "select", "path": "$.items[*]" }],
              "schedule": { "every": "1s", "allowFrequent": true, "maxPerDay": 100000 }
            }
            """#)
    }

    /// How many fresh refreshes the metrics file counts for `widget`.
    static func freshRefreshes(_ folder: TemporaryFolder, widget: String) -> Int {
        guard let text = try? folder.read("out/widgetd.prom") else { return 0 }
        let prefix = "widgetd_refreshes_total{widget=\"\(widget)\",status=\"fresh\"} "
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return 0 }
        return Int(line.dropFirst(prefix.count)) ?? 0
    }

    @Test func runOnceWithBothStreamsClosedWritesItsSnapshots() async throws {
        let folder = try TemporaryFolder()
        try Self.config(in: folder)
        // Nobody will ever read: every line the command prints meets a broken pipe.
        let widgetd = try RunningWidgetd(["run", "--config", "widgets.d", "--out", "out", "--once"], in: folder.url, closedOutput: true)
        #expect(await widgetd.waitForExit() == 0)
        let snapshot = try folder.read("out/items.json")
        #expect(snapshot.contains(#""status" : "fresh""#) || snapshot.contains(#""status": "fresh""#))
    }

    @Test func daemonWhoseStandardErrorIsClosedKeepsRefreshingAndStopsCleanly() async throws {
        let folder = try TemporaryFolder()
        try Self.config(in: folder)
        // Its output goes nowhere from the start, as after `widgetd run 2>&1 | head -1`.
        let widgetd = try RunningWidgetd(["run", "--config", "widgets.d", "--out", "out"], in: folder.url, closedOutput: true)
        // Each refresh logs a line into the broken pipe; the daemon must live through several of them.
        // Waits for the files the daemon writes (up to 2 minutes on a busy machine), not for a time.
        var refreshes = 0
        for _ in 0..<1_200 where refreshes < 3 {
            try await Task.sleep(for: .milliseconds(100))
            refreshes = Self.freshRefreshes(folder, widget: "items")
            guard widgetd.isRunning else { break }
        }
        #expect(refreshes >= 3, "the daemon refreshed \(refreshes) times before it stopped or the wait ended")
        #expect(widgetd.isRunning)
        #expect(await widgetd.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: folder.file("out/.state/daemon.pid").path))
    }
}
