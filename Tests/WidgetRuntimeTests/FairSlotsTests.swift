import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetTestSupport
import WidgetTesting

@testable import WidgetRuntime

/// Slow hosts cannot keep a healthy widget from its schedule: a widget whose refreshes take 5 s or more
/// is slow, and slow widgets take at most half the places for refreshes. Driven by a manual clock: the
/// slow servers answer when the test moves the clock, and the healthy widget must refresh at every step.
@Suite(.timeLimit(.minutes(5)))
struct FairSlotsTests {
    let start = TestWidgets.date("2026-11-22T15:00:00Z")
    let config: TemporaryFolder
    let out: TemporaryFolder
    let clock: ManualClock
    let source = InMemorySource()

    init() throws {
        config = try TemporaryFolder("widgetd-config")
        out = try TemporaryFolder("widgetd-out")
        clock = ManualClock(now: start)
    }

    /// Two dozen slow hosts (each refresh takes 10 s and fails, and is retried 30 s after it started: 8
    /// places' worth) beside one healthy widget on a 2-second schedule, with 4 places for refreshes: once
    /// the slow ones are known, the healthy widget refreshes at every one of its 45 due times in 90 s,
    /// while the slow ones keep being retried, 2 at a time.
    @Test func aHealthyWidgetKeepsEveryRefreshBesideMoreSlowHostsThanPlaces() async throws {
        for index in 1...24 {
            try config.write(
                "slow-\(index).json",
                #"{"source": {"type": "slowhost", "seconds": 10}, "parser": "json", "schedule": {"every": "2s", "allowFrequent": true}}"#)
        }
        try config.write(
            "zz-good.json",
            #"{"source": {"type": "memory", "key": "zz-good"}, "parser": "json", "schedule": {"every": "2s", "allowFrequent": true}}"#)
        source.set("zz-good", json: #"{"ok": true}"#)
        // The healthy widget's first refresh comes once every slow host has been tried once.
        let store = SnapshotStore(directory: out.url)
        try await store.prepare()
        let first = start.addingTimeInterval(62)
        let entries = [TimelineEntry(date: start, content: ["ok": true])]
        try store.write(
            Snapshot(
                id: "zz-good", title: nil, status: .fresh, generatedAt: start, lastSuccessAt: start, nextRefreshAt: first, entries: entries,
                error: nil))
        var state = WidgetState()
        state.lastGoodEntries = entries
        state.lastSuccessAt = start
        state.nextDueAt = first
        try store.writeState(state, for: "zz-good")

        let started = HangingFetcher.Started()
        var refresher = TestWidgets.refresher(source, started: started)
        refresher.resources.insert(clock)
        let daemon = WidgetDaemon(
            configuration: .init(
                definitions: DefinitionDirectory(path: config.path), store: store, reader: TestWidgets.reader, refresher: refresher,
                clock: clock, maximumConcurrentRefreshes: 4, keepsEveryRefreshReport: true))
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }

        // The slow hosts are tried 4 at a time, 10 s each (untried ones first): after 60 s each has failed
        // once, slowly, and is due again 30 s after it started.
        var slowFailures = 0
        var fetches = started.fetches.makeAsyncIterator()
        for tens in 1...6 {
            for _ in 0..<4 { _ = await fetches.next() }
            clock.advance(to: start.addingTimeInterval(Double(tens) * 10))
            for _ in 0..<4 {
                let report = try #require(await reports.next())
                #expect(report.id.hasPrefix("slow-") && report.error != nil, "\(report.id)")
                slowFailures += 1
            }
        }

        // 90 s: the healthy widget refreshes at each of its due times, the slow ones go on failing.
        var healthy = 0
        var laterSlowFailures = 0
        for step in 0..<45 {
            let now = first.addingTimeInterval(Double(step) * 2)
            clock.advance(to: now)
            while let report = await reports.next() {
                if report.id == "zz-good" {
                    #expect(report.snapshot.generatedAt == now, "step \(step)")
                    #expect(report.snapshot.status == .fresh)
                    healthy += 1
                    break
                }
                laterSlowFailures += 1
            }
        }
        #expect(healthy == 45)
        #expect(source.fetchCount("zz-good") == 45)
        // Retried all along, never more than half the places at once.
        #expect(slowFailures == 24)
        #expect(laterSlowFailures >= 8, "\(laterSlowFailures)")

        task.cancel()
        try await task.value
    }

    /// The places themselves: slow widgets run at most half of them, one due meanwhile waits until one of
    /// theirs ends, and a widget is slow only while its last refresh was.
    @Test func slowWidgetsTakeAtMostHalfThePlaces() {
        var running = WidgetDaemon.RunningRefreshes(limit: 4)
        for id in ["a", "b", "c"] { running.noteDuration(of: id, seconds: WidgetDaemon.slowRefreshSeconds) }
        running.noteDuration(of: "fast", seconds: 0.2)
        #expect(running.slowLimit == 2)
        var waits = running.mustWait("a")
        #expect(!waits)
        running.add("a", start: running.nextStart(), abandonment: WidgetDaemon.Abandonment())
        waits = running.mustWait("b")
        #expect(!waits)
        running.add("b", start: running.nextStart(), abandonment: WidgetDaemon.Abandonment())
        waits = running.mustWait("c")
        #expect(waits)
        waits = running.mustWait("fast")
        #expect(!waits)
        var taken = running.takeWaitingSlow()
        #expect(taken == [])
        let finished = running.finish("a", start: 1)
        #expect(finished)
        taken = running.takeWaitingSlow()
        #expect(taken == ["c"])
        taken = running.takeWaitingSlow()
        #expect(taken == [])
        // A quick refresh makes a widget fast again.
        running.noteDuration(of: "c", seconds: 1)
        #expect(!running.isSlow("c"))
        #expect(WidgetDaemon.RunningRefreshes(limit: 1).slowLimit == 1)
    }
}
