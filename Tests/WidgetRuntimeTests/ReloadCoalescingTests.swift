import Foundation
import Testing
import WidgetCore
import WidgetRuntime
import WidgetTestSupport
import WidgetTesting

/// `widgetd reload` requests, as the daemon sees them: request files and a wake-up. Requests for a widget
/// within a second after a manual refresh of it are merged into that refresh; each refresh that runs
/// counts in the daily budget.
@Suite(.timeLimit(.minutes(5)))
struct ReloadCoalescingTests {
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

    func makeDaemon() -> WidgetDaemon {
        WidgetDaemon(
            configuration: .init(
                definitions: DefinitionDirectory(path: config.path),
                store: store,
                reader: TestWidgets.reader,
                refresher: TestWidgets.refresher(source),
                clock: clock,
                log: logs.log,
                keepsEveryRefreshReport: true
            ))
    }

    /// Does what `widgetd reload ID` does (a request file, then the signal), and waits until the daemon
    /// has handled it and is idle again.
    func requestReload(_ ids: String..., daemon: WidgetDaemon) async throws {
        let folder = store.stateDirectory.appendingPathComponent("requests")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for id in ids { try Data().write(to: folder.appendingPathComponent(id)) }
        await daemon.checkReloadRequests()
        await clock.waitForSleeper()
    }

    @Test func requestsWithinASecondAfterAManualRefreshAreMergedIntoIt() async throws {
        try config.write("news.json", WidgetDaemonTests.definition(key: "news"))
        source.set("news", json: #"{"headline": "first"}"#)
        let daemon = makeDaemon()
        let task = Task { try await daemon.run() }
        var reports = daemon.refreshes.makeAsyncIterator()
        _ = try #require(await reports.next())  // the start-up refresh
        await clock.waitForSleeper()

        clock.advance(by: 100)
        try await requestReload("news", daemon: daemon)
        let manual = try #require(await reports.next())
        #expect(manual.snapshot.generatedAt == start.addingTimeInterval(100))
        #expect(source.fetchCount("news") == 2)

        // Half a second later, then 0.9 s after the manual refresh: merged, nothing runs.
        clock.advance(by: 0.5)
        try await requestReload("news", daemon: daemon)
        clock.advance(by: 0.4)
        try await requestReload("news", daemon: daemon)
        #expect(source.fetchCount("news") == 2)
        #expect(logs.lines.filter { $0 == "news: reload requested again within a second; merged into the last one" }.count == 2)

        // 1.1 s after the manual refresh: a new one.
        clock.advance(by: 0.2)
        try await requestReload("news", daemon: daemon)
        let second = try #require(await reports.next())
        #expect(abs(second.snapshot.generatedAt.timeIntervalSince(start) - 101.1) < 0.001)
        #expect(source.fetchCount("news") == 3)
        #expect(logs.lines.filter { $0 == "news: reload requested" }.count == 2)
        // Start-up refresh and two manual ones, all in the budget.
        #expect(store.state(for: "news").budgetUsed == 3)

        task.cancel()
        try await task.value
    }

    @Test func requestsForDifferentWidgetsAreNotMerged() async throws {
        try config.write("news.json", WidgetDaemonTests.definition(key: "news"))
        try config.write("weather.json", WidgetDaemonTests.definition(key: "weather"))
        source.set("news", json: "{}")
        source.set("weather", json: "{}")
        let daemon = makeDaemon()
        let task = Task { try await daemon.run() }
        var reports = daemon.refreshes.makeAsyncIterator()
        _ = try #require(await reports.next())
        _ = try #require(await reports.next())
        await clock.waitForSleeper()

        clock.advance(by: 60)
        try await requestReload("news", daemon: daemon)
        _ = try #require(await reports.next())
        clock.advance(by: 0.5)
        try await requestReload("weather", "news", daemon: daemon)
        let report = try #require(await reports.next())
        #expect(report.id == "weather")
        #expect(report.snapshot.generatedAt == start.addingTimeInterval(60.5))
        #expect(source.fetchCount("news") == 2)
        #expect(source.fetchCount("weather") == 2)

        task.cancel()
        try await task.value
    }

    @Test func manualRefreshesCountInTheBudgetAndStopWhenItIsUsedUp() async throws {
        try config.write(
            "news.json",
            """
            {"source": {"type": "memory", "key": "news"}, "parser": "json", "timeline": "single",
             "schedule": {"every": "1h", "maxPerDay": 3}}
            """)
        source.set("news", json: "{}")
        let daemon = makeDaemon()
        let task = Task { try await daemon.run() }
        var reports = daemon.refreshes.makeAsyncIterator()
        _ = try #require(await reports.next())
        await clock.waitForSleeper()

        var errors: [String?] = []
        for _ in 0..<3 {
            clock.advance(by: 2)
            try await requestReload("news", daemon: daemon)
            errors.append(try #require(await reports.next()).error?.description)
        }
        #expect(
            errors == [
                nil, nil,
                "schedule: the daily budget of 3 refreshes is used up; the next refresh waits until 2026-11-23T00:00:00Z",
            ])
        #expect(source.fetchCount("news") == 3)
        #expect(store.snapshot(for: "news")?.nextRefreshAt == TestWidgets.date("2026-11-23T00:00:00Z"))

        task.cancel()
        try await task.value
    }
}
