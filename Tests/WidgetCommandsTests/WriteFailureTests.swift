import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A refresh whose snapshot cannot be written is not called fresh: the log says it was not written,
/// `status` shows the widget as unwritten with the reason, and a metric counts the failures. (A folder in
/// the state journal's place makes the write fail whoever runs the test, root included.)
@Suite(.timeLimit(.minutes(5)))
struct WriteFailureTests {
    @Test func aSnapshotThatCannotBeWrittenShowsInTheLogStatusAndMetrics() async throws {
        let server = try CommandLineEndToEndTests.server()
        let folder = try TemporaryFolder()
        try folder.write(
            "widgets.d/items.json",
            CommandLineEndToEndTests.items(
                server, size: 2, schedule: #"{"every": "1s", "allowFrequent": true, "maxPerDay": 100000}"#))
        let daemon = try RunningWidgetd(["run", "--config", "widgets.d", "--out", "out"], in: folder.url)
        _ = try #require(await daemon.line(containing: "items: fresh, 1 entry in "), "\(daemon.log)")

        // A folder where the state journal goes: appending the widget's state fails. The snapshot is still
        // written, so status can show the widget beside what went wrong.
        // The daemon may append (and so create the file again) between the removal and the folder's
        // creation: then both are tried again.
        let blocked = folder.file("out/.state/_states.jsonl")
        for attempt in 1... {
            try? FileManager.default.removeItem(at: blocked)
            do {
                try FileManager.default.createDirectory(at: blocked, withIntermediateDirectories: false)
                break
            } catch  where attempt < 100 {
                continue
            }
        }
        try folder.write("out/.state/_states.jsonl/in-the-way", "x")
        let failed = try #require(await daemon.line(containing: "but it was not written"), "\(daemon.log)")
        #expect(failed.contains("items: fresh, 1 entry"), "\(failed)")
        // The next refresh fails the same way, after the index, metrics and daemon record were written.
        _ = try #require(await daemon.line(containing: "but it was not written"), "\(daemon.log)")

        let status = try await Widgetd.run(["status", "--out", "out"], in: folder.url)
        #expect(status.status == 1)
        let row = try #require(status.stdoutLines.first { $0.hasPrefix("items ") }, "\(status.stdout)")
        #expect(row.contains(" unwritten "), "\(row)")
        #expect(row.contains("its last refresh could not be written: "), "\(row)")
        let json = try await Widgetd.run(["status", "--out", "out", "--format", "json"], in: folder.url)
        let report = try JSONReader.read(Data(json.stdout.utf8))
        #expect(report["daemon"]?["unwritten"]?["items"]?.string?.isEmpty == false, "\(json.stdout)")
        #expect(report["widgets"]?[0]?["writeError"]?.string?.isEmpty == false, "\(json.stdout)")
        let metrics = try String(contentsOf: folder.file("out/widgetd.prom"), encoding: .utf8)
        let failures = metrics.split(separator: "\n").first { $0.hasPrefix("widgetd_write_failures_total{widget=\"items\"}") }
        #expect(failures.flatMap { Int($0.split(separator: " ").last ?? "") }.map { $0 >= 1 } == true, "\(metrics)")

        // Once the way is clear the next refresh is written and status is clean again.
        // Two written refreshes ("fresh, 1 entry in N ms", unlike the failures' "fresh, 1 entry, but"): the
        // daemon records itself after each, so after the second the record has the first's news.
        try FileManager.default.removeItem(at: blocked)
        _ = try #require(await daemon.line(containing: "items: fresh, 1 entry in "), "\(daemon.log)")
        _ = try #require(await daemon.line(containing: "items: fresh, 1 entry in "), "\(daemon.log)")
        let recovered = try await Widgetd.run(["status", "--out", "out"], in: folder.url)
        #expect(!recovered.stdout.contains("unwritten"), "\(recovered.stdout)")
        #expect(await daemon.stop() == 0)
    }
}
