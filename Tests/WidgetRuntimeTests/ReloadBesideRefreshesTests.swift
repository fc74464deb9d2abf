import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages
import WidgetTestSupport
import WidgetTesting

/// A reload reads the definitions beside the daemon's loop: however long a definition takes to load (its
/// templates rendered within their step budget), due refreshes start and finish meanwhile.
@Suite(.timeLimit(.minutes(5)))
struct ReloadBesideRefreshesTests {
    static let registry: StageRegistry = {
        var builder = StageRegistry.Builder.builtIn()
        builder.register(InMemoryFetcher.self)
        builder.register(GatedLoadFetcher.self)
        do {
            return try builder.build()
        } catch {
            preconditionFailure("The test registry does not build: \(error)")
        }
    }()

    @Test func aRefreshDueWhileAReloadIsStillReadingRunsAndTheReloadLands() async throws {
        let config = try TemporaryFolder("widgetd-config")
        let out = try TemporaryFolder("widgetd-out")
        let start = TestWidgets.date("2026-11-22T15:00:00Z")
        let clock = ManualClock(now: start)
        let source = InMemorySource()
        source.set("news", json: #"{"headline": "first"}"#)
        try config.write("news.json", WidgetDaemonTests.definition(key: "news"))
        let (events, lifecycle) = AsyncStream.makeStream(of: WidgetDaemon.LifecycleEvent.self)
        let daemon = WidgetDaemon(
            configuration: .init(
                definitions: DefinitionDirectory(path: config.path),
                store: SnapshotStore(directory: out.url),
                reader: DefinitionReader(registry: Self.registry, defaultTimeZone: TestWidgets.utc),
                refresher: TestWidgets.refresher(source),
                clock: clock,
                lifecycle: { lifecycle.yield($0) },
                keepsEveryRefreshReport: true
            ))
        var reports = daemon.refreshes.makeAsyncIterator()
        var lifecycleEvents = events.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        #expect(await lifecycleEvents.next() == .ready(widgets: 1))
        #expect(try #require(await reports.next()).id == "news")
        await clock.waitForSleeper()

        // A definition that loads only when the gate opens, then a reload.
        try config.write(
            "slow.json", #"{"source": {"type": "gated-load"}, "parser": "json", "schedule": {"every": "1h"}, "timeline": "single"}"#)
        await daemon.reloadDefinitions()
        await GatedLoadFetcher.gate.waitForLoad()
        #expect(await lifecycleEvents.next() == .reloading)

        // The load waits at the gate; the news is due, and refreshes.
        source.set("news", json: #"{"headline": "second"}"#)
        clock.advance(by: 3_600)
        let second = try #require(await reports.next())
        #expect(second.id == "news")
        #expect(second.snapshot.entries.map(\.content) == [["headline": "second"]])

        // Once the load is done, the new widget joins and refreshes.
        GatedLoadFetcher.gate.open()
        #expect(await lifecycleEvents.next() == .reloaded(widgets: 2))
        let third = try #require(await reports.next())
        #expect(third.id == "slow")
        #expect(third.snapshot.entries.map(\.content) == [["gated": true]])

        task.cancel()
        try await task.value
    }
}
