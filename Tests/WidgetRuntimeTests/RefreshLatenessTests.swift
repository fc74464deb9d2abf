import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetTestSupport
import WidgetTesting

/// How late each refresh starts against its due time: the `late` of its log record and the
/// `widgetd_refresh_lateness_seconds` histogram. Driven by a manual clock, moved past the due times.
@Suite(.timeLimit(.minutes(5)))
struct RefreshLatenessTests {
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

    var store: SnapshotStore { SnapshotStore(directory: out.url) }

    func makeDaemon(places: Int = 16, gate: StubbornFetcher.Gate? = nil) -> WidgetDaemon {
        WidgetDaemon(
            configuration: .init(
                definitions: DefinitionDirectory(path: config.path), store: store, reader: TestWidgets.reader,
                refresher: TestWidgets.refresher(source, gate: gate), clock: clock, maximumConcurrentRefreshes: places,
                log: logs.log, keepsEveryRefreshReport: true))
    }

    /// Writes widget `id`'s definition (its source `source`) and what an earlier run left: fresh data,
    /// next due at `nextDueAt`.
    func remember(_ id: String, source: String, nextDueAt: Date) throws {
        try config.write(
            "\(id).json", #"{"source": \#(source), "parser": "json", "timeline": "single", "schedule": {"every": "1h"}}"#)
        let entries = [TimelineEntry(date: start, content: ["old": true])]
        try FolderOutput(folder: store.directory).prepareFolder()
        try store.write(
            Snapshot(
                id: id, title: nil, status: .fresh, generatedAt: start, lastSuccessAt: start, nextRefreshAt: nextDueAt,
                entries: entries, error: nil))
        var state = WidgetState()
        state.lastGoodEntries = entries
        state.lastSuccessAt = start
        state.nextDueAt = nextDueAt
        try store.writeState(state, for: id)
    }

    /// The `late` of the last refresh record of `id`.
    func late(of id: String) -> WidgetValue? {
        logs.records.last { $0.widget == id && ($0.event == "refreshed" || $0.event == "refresh-failed") }?.details["late"]
    }

    @Test func aRefreshReportsHowLongAfterItsDueTimeItStarted() async throws {
        try remember("news", source: #"{"type": "memory", "key": "news"}"#, nextDueAt: start.addingTimeInterval(1_800))
        source.set("news", json: #"{"headline": "late"}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }

        await clock.waitForSleeper()
        // The loop wakes 2.5 s after the due time, as a busy machine would wake it.
        clock.advance(by: 1_802.5)
        let report = try #require(await reports.next())
        #expect(report.snapshot.generatedAt == start.addingTimeInterval(1_802.5))
        #expect(late(of: "news") == 2.5)
        await clock.waitForSleeper()
        let metrics = try out.read("widgetd.prom").split(separator: "\n").filter { $0.contains("lateness") }
        #expect(
            metrics == [
                "# HELP widgetd_refresh_lateness_seconds How long after its due time each refresh started.",
                "# TYPE widgetd_refresh_lateness_seconds histogram",
                #"widgetd_refresh_lateness_seconds_bucket{le="0.005"} 0"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="0.01"} 0"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="0.025"} 0"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="0.05"} 0"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="0.1"} 0"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="0.25"} 0"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="0.5"} 0"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="1.0"} 0"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="2.5"} 1"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="5.0"} 1"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="10.0"} 1"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="30.0"} 1"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="60.0"} 1"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="300.0"} 1"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="+Inf"} 1"#,
                "widgetd_refresh_lateness_seconds_sum 2.500000",
                "widgetd_refresh_lateness_seconds_count 1",
            ])

        // On time: not late at all.
        clock.advance(to: try #require(report.snapshot.nextRefreshAt))
        _ = try #require(await reports.next())
        #expect(late(of: "news") == 0)

        task.cancel()
        try await task.value
    }

    /// A widget due while every place is taken waits, and its lateness counts from its own due time, not
    /// from the moment it was found waiting.
    @Test func aWidgetWaitingForAPlaceIsLateFromItsOwnDueTime() async throws {
        let gate = StubbornFetcher.Gate()
        let due = start.addingTimeInterval(60)
        try remember("a-stuck", source: #"{"type": "stubborn"}"#, nextDueAt: due)
        try remember("b-news", source: #"{"type": "memory", "key": "b-news"}"#, nextDueAt: due)
        source.set("b-news", json: #"{"headline": "waited"}"#)
        let daemon = makeDaemon(places: 1, gate: gate)
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }

        await clock.waitForSleeper()
        // Both due; the one place goes to the first by id, 2 s late.
        clock.advance(to: due.addingTimeInterval(2))
        while gate.started < 1 { await Task.yield() }
        clock.advance(to: due.addingTimeInterval(5))
        gate.open()
        let first = try #require(await reports.next())
        #expect(first.id == "a-stuck")
        #expect(late(of: "a-stuck") == 2)
        let second = try #require(await reports.next())
        #expect(second.id == "b-news")
        #expect(late(of: "b-news") == 5)

        task.cancel()
        try await task.value
    }

    @Test func runOnceReportsNoLateness() async throws {
        try remember("news", source: #"{"type": "memory", "key": "news"}"#, nextDueAt: start.addingTimeInterval(1_800))
        source.set("news", json: #"{"headline": "once"}"#)
        _ = try await makeDaemon().runOnce()
        let record = try #require(logs.records.last { $0.event == "refreshed" })
        #expect(record.details["late"] == nil)
    }
}
