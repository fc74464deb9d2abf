import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetObjectStorage
import WidgetStages
import WidgetTestSupport
import WidgetTesting

@testable import WidgetRuntime

/// The daemon over a bucket output in memory: a wave arrives in the bucket with the uploads' health in
/// the metrics and the daemon's record, and a daemon started in an empty working folder continues from
/// the bucket with its last good data.
@Suite(.timeLimit(.minutes(5)))
struct BucketOutputDaemonTests {
    let start = TestWidgets.date("2026-11-22T15:00:00Z")

    /// Runs the daemon over `store` until its first wave is written, then stops it.
    func runOneWave(config: TemporaryFolder, store: SnapshotStore, source: InMemorySource, at now: Date) async throws {
        let clock = ManualClock(now: now)
        let daemon = WidgetDaemon(
            configuration: .init(
                definitions: DefinitionDirectory(path: config.path), store: store, reader: TestWidgets.reader,
                refresher: TestWidgets.refresher(source), clock: clock, log: LogRecorder().log, keepsEveryRefreshReport: true))
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        _ = try #require(await reports.next())
        await clock.waitForSleeper()
        task.cancel()
        try await task.value
    }

    @Test func aWaveArrivesInTheBucketAndAnotherMachineContinuesFromIt() async throws {
        let config = try TemporaryFolder("bucket-config")
        try config.write(
            "news.json",
            #"{"title": "News", "source": {"type": "memory", "key": "news"}, "parser": "json", "schedule": {"every": "1h"}}"#)
        let bucket = MemoryObjectStore()
        let source = InMemorySource()
        source.set("news", json: #"{"headline": "first"}"#)

        let firstWork = try TemporaryFolder("bucket-work")
        let first = BucketOutput(store: bucket, bucket: "widgets", prefix: "prod", workFolder: firstWork.url)
        try await runOneWave(config: config, store: SnapshotStore(output: first), source: source, at: start)
        #expect(await first.drain(timeout: 120).isComplete)
        for key in ["news.json", "news.html", "index.json", "index.html", "widgetd.prom", ".state/news.json", ".state/_daemon.json"] {
            #expect(bucket.keys.contains("prod/\(key)"), "\(key)")
        }
        let metrics = String(decoding: bucket.data("prod/widgetd.prom") ?? Data(), as: UTF8.self)
        #expect(metrics.contains("widgetd_output_pending_objects "))
        #expect(metrics.contains("widgetd_output_failures_total 0\n"))
        let record = try #require(SnapshotStore(output: first).daemonRecord())
        #expect(record.output != nil)

        // Two hours later, another machine, an empty working folder, the upstream failing: it continues with
        // the last good data.
        source.fail("news", message: "down")
        let secondWork = try TemporaryFolder("bucket-work")
        let second = BucketOutput(store: bucket, bucket: "widgets", prefix: "prod", workFolder: secondWork.url)
        let store = SnapshotStore(output: second)
        try await runOneWave(config: config, store: store, source: source, at: start.addingTimeInterval(7200))
        #expect(await second.drain(timeout: 120).isComplete)
        #expect(store.state(for: "news").lastSuccessAt == start)
        #expect(store.snapshot(for: "news")?.entries.first?.content == ["headline": "first"])
        let snapshot = try JSONReader.read(bucket.data("prod/news.json") ?? Data())
        #expect(snapshot["entries"]?[0]?["content"]?["headline"] == "first")
    }
}
