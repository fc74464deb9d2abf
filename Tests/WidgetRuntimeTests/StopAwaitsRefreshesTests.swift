import Dispatch
import Foundation
import Synchronization
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetTestSupport
import WidgetTesting

/// The daemon's refreshes are child tasks of its loop's task group: a stop cancels them and waits for
/// each one before `run()` returns, so nothing a refresh does comes after the daemon's end. Driven by a
/// manual clock; no test here sleeps.
@Suite(.timeLimit(.minutes(5)))
struct StopAwaitsRefreshesTests {
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

    /// Holds a refresh in its writing until the test opens it: the output check a refresh makes on the
    /// file queue, outside any task, just before it writes its files, waits; the loop's own checks (in
    /// its task) pass at once.
    final class WriteGate: Sendable {
        let entered: AsyncStream<Void>
        private let enteredContinuation: AsyncStream<Void>.Continuation
        private let opened = DispatchSemaphore(value: 0)

        init() {
            (entered, enteredContinuation) = AsyncStream.makeStream()
        }

        func check() {
            guard withUnsafeCurrentTask(body: { $0 == nil }) else { return }
            enteredContinuation.yield()
            opened.wait()
        }

        func open() {
            opened.signal()
        }
    }

    /// Hands the daemon's lifecycle events to the test as they happen.
    final class Lifecycle: Sendable {
        let events: AsyncStream<WidgetDaemon.LifecycleEvent>
        private let continuation: AsyncStream<WidgetDaemon.LifecycleEvent>.Continuation

        init() {
            (events, continuation) = AsyncStream.makeStream()
        }

        var callback: @Sendable (WidgetDaemon.LifecycleEvent) -> Void {
            { [continuation] event in continuation.yield(event) }
        }
    }

    @Test func aStopWaitsForARefreshWritingItsFilesAndRecordsIt() async throws {
        try config.write("news.json", WidgetDaemonTests.definition(key: "news"))
        source.set("news", json: #"{"headline": "first"}"#)
        let gate = WriteGate()
        let lifecycle = Lifecycle()
        let store = SnapshotStore(directory: out.url)
        let daemon = WidgetDaemon(
            configuration: .init(
                definitions: DefinitionDirectory(path: config.path), store: store, reader: TestWidgets.reader,
                refresher: TestWidgets.refresher(source), clock: clock, log: logs.log, lifecycle: lifecycle.callback,
                keepsEveryRefreshReport: true, outputCheck: { gate.check() }))
        var reports = daemon.refreshes.makeAsyncIterator()
        var events = lifecycle.events.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        var entered = gate.entered.makeAsyncIterator()
        _ = await entered.next()  // the start-up refresh is about to write its files

        task.cancel()
        // The loop has stopped; its refresh is still held in its writing.
        while let event = await events.next(), event != .stopping {}
        #expect(!logs.lines.contains("stopping"))
        gate.open()
        try await task.value

        // run() returned after the refresh: its files are written, and it is recorded, before the stop.
        let report = try #require(await reports.next())
        #expect(report.id == "news")
        #expect(report.snapshot.status == .fresh)
        #expect(store.snapshot(for: "news")?.entries.map(\.content) == [["headline": "first"]])
        let lines = logs.lines
        let refreshed = try #require(lines.firstIndex { $0.hasPrefix("news: fresh, 1 entry") })
        let stopping = try #require(lines.firstIndex(of: "stopping"))
        #expect(refreshed < stopping)
        #expect(!lines.contains("news: refresh interrupted by the stop; its last snapshot stays"))
    }

    @Test func aStopCancelsARefreshUnderWayAndWaitsForItToEnd() async throws {
        try config.write("slow.json", #"{"source": {"type": "hang"}, "parser": "json", "schedule": {"every": "1h"}}"#)
        let started = HangingFetcher.Started()
        let lifecycle = Lifecycle()
        let daemon = WidgetDaemon(
            configuration: .init(
                definitions: DefinitionDirectory(path: config.path), store: SnapshotStore(directory: out.url),
                reader: TestWidgets.reader, refresher: TestWidgets.refresher(source, started: started), clock: clock,
                log: logs.log, lifecycle: lifecycle.callback, keepsEveryRefreshReport: true))
        var events = lifecycle.events.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        var fetches = started.fetches.makeAsyncIterator()
        _ = await fetches.next()

        task.cancel()
        while let event = await events.next(), event != .stopping {}
        try await task.value

        // The refresh saw the stop (the hanging source ends only when cancelled), ended, and said so
        // before the daemon's last line.
        let lines = logs.lines
        let interrupted = try #require(lines.firstIndex(of: "slow: refresh interrupted by the stop; its last snapshot stays"))
        #expect(interrupted < (lines.firstIndex(of: "stopping") ?? -1))
        #expect(!out.names().contains("slow.json"))
    }
}
