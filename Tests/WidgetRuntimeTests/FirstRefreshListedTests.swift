import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetTestSupport
import WidgetTesting

/// A widget whose first refresh is under way is listed from the start, as `refreshing` with when it
/// started: its snapshot, `index.json` and the gallery. Driven by a manual clock; the refresh is held in
/// its writing by the output check, so no test here sleeps.
@Suite(.timeLimit(.minutes(5)))
struct FirstRefreshListedTests {
    let start = TestWidgets.date("2026-11-22T15:00:00Z")
    let config: TemporaryFolder
    let out: TemporaryFolder
    let clock: ManualClock
    let source = InMemorySource()
    let logs = LogRecorder()

    init() throws {
        config = try TemporaryFolder("widgetd-config")
        out = try TemporaryFolder("widgetd-out")
        clock = ManualClock(now: start)
    }

    @Test func aWidgetIsListedAsRefreshingUntilItsFirstRefreshEnds() async throws {
        try config.write("news.json", WidgetDaemonTests.definition(key: "news"))
        source.set("news", json: #"{"headline": "first"}"#)
        let gate = StopAwaitsRefreshesTests.WriteGate()
        let store = SnapshotStore(directory: out.url)
        let daemon = WidgetDaemon(
            configuration: .init(
                definitions: DefinitionDirectory(path: config.path), store: store, reader: TestWidgets.reader,
                refresher: TestWidgets.refresher(source), clock: clock, log: logs.log, keepsEveryRefreshReport: true,
                outputCheck: { gate.check() }))
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        var entered = gate.entered.makeAsyncIterator()
        _ = await entered.next()  // the first refresh is about to write its files

        // Its snapshot, the index and the gallery say it is refreshing, since when.
        let snapshot = try #require(store.snapshot(for: "news"))
        #expect(snapshot.status == .refreshing)
        #expect(snapshot.refreshStartedAt == start)
        #expect(snapshot.title == "Widget news")
        let file = try JSONReader.read(try Data(contentsOf: store.snapshotFile(for: "news")))
        #expect(file["status"] == "refreshing")
        #expect(file["refreshStartedAt"] == "2026-11-22T15:00:00Z")
        let index = try JSONReader.read(try Data(contentsOf: store.indexFile))
        #expect(index["widgets"]?[0]?["id"] == "news")
        #expect(index["widgets"]?[0]?["status"] == "refreshing")
        #expect(index["widgets"]?[0]?["refreshStartedAt"] == "2026-11-22T15:00:00Z")
        let gallery = try String(contentsOf: store.galleryFile, encoding: .utf8)
        #expect(gallery.contains(#"data-id="news" data-status="refreshing""#))
        #expect(gallery.contains(#"<span class="badge badge-refreshing">refreshing</span>"#))
        #expect(gallery.contains("first refresh started"))

        // Once it ends, its own snapshot replaces it everywhere.
        gate.open()
        let report = try #require(await reports.next())
        #expect(report.snapshot.status == .fresh)
        #expect(store.snapshot(for: "news")?.status == .fresh)
        #expect(store.snapshot(for: "news")?.refreshStartedAt == nil)
        task.cancel()
        try await task.value
        let after = try JSONReader.read(try Data(contentsOf: store.indexFile))
        #expect(after["widgets"]?[0]?["status"] == "fresh")
        #expect(after["widgets"]?[0]?["refreshStartedAt"] == nil)
        #expect(!(try String(contentsOf: store.galleryFile, encoding: .utf8)).contains(#"data-status="refreshing""#))
    }

    @Test func aFirstRefreshInterruptedByTheStopLeavesNoRefreshingWidget() async throws {
        try config.write("slow.json", #"{"source": {"type": "hang"}, "parser": "json", "schedule": {"every": "1h"}}"#)
        let started = HangingFetcher.Started()
        let store = SnapshotStore(directory: out.url)
        let daemon = WidgetDaemon(
            configuration: .init(
                definitions: DefinitionDirectory(path: config.path), store: store, reader: TestWidgets.reader,
                refresher: TestWidgets.refresher(source, started: started), clock: clock, log: logs.log))
        let task = Task { try await daemon.run() }
        var fetches = started.fetches.makeAsyncIterator()
        _ = await fetches.next()
        #expect(store.snapshot(for: "slow")?.status == .refreshing)
        task.cancel()
        try await task.value
        #expect(store.snapshot(for: "slow") == nil)
        let index = try JSONReader.read(try Data(contentsOf: store.indexFile))
        #expect(index["widgets"] == [])
    }
}
