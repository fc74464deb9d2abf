import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetTestSupport
import WidgetTesting

@testable import WidgetRuntime

/// A daemon's first wave over many widgets costs what `run --once` costs: it takes from the due queue
/// only what it can start, and writes the index (which describes every widget) a bounded number of
/// times, not once per finished refresh. Driven by a manual clock that does not move, so no paced write
/// falls due during the wave.
@Suite(.timeLimit(.minutes(5)))
struct FirstWaveTests {
    let start = TestWidgets.date("2026-11-22T15:00:00Z")

    @Test func aFirstWaveWritesTheIndexAtItsStartAndItsEndOnly() async throws {
        let config = try TemporaryFolder("widgetd-config")
        let local = try TemporaryFolder("widgetd-out")
        let source = InMemorySource()
        let count = 60
        for index in 0..<count {
            let key = String(format: "w%02d", index)
            try config.write("\(key).json", WidgetDaemonTests.definition(key: key))
            source.set(key, json: #"{"n": \#(index)}"#)
        }
        let output = MemoryOutput(localFolder: local.url)
        let store = SnapshotStore(output: output)
        let daemon = WidgetDaemon(
            configuration: .init(
                definitions: DefinitionDirectory(path: config.path), store: store, reader: TestWidgets.reader,
                refresher: TestWidgets.refresher(source), clock: ManualClock(now: start), maximumConcurrentRefreshes: 4,
                keepsEveryRefreshReport: true))
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        var fresh: Set<String> = []
        while fresh.count < count, let report = await reports.next() {
            if report.snapshot.status == .fresh { fresh.insert(report.id) }
        }
        task.cancel()
        try await task.value
        // The last refresh's record wrote the index with every widget fresh (nothing was due any more),
        // or the stop did.
        let index = try JSONReader.read(try #require(output.read("index.json")))
        let statuses = (index["widgets"]?.array ?? []).compactMap { $0["status"]?.string }
        #expect(statuses.count == count)
        #expect(statuses.allSatisfy { $0 == "fresh" })
        // At the start (before any refresh), and at the end; 60 records and 15 batches of first
        // refreshes put theirs off. (Before pacing: once per record and per batch, about 75 times.)
        #expect(output.writeCount(of: "index.json") <= 3, "index written \(output.writeCount(of: "index.json")) times")
        #expect(output.writeCount(of: "index.html") <= 3)
    }

    @Test func theDueQueueGivesAtMostTheFreePlacesEarliestFirst() {
        var queue = DueQueue()
        for (id, offset) in [("c", 0.0), ("a", 0), ("b", 0), ("early", -10), ("later", 5)] {
            queue[id] = start.addingTimeInterval(offset)
        }
        let first = queue.popDue(at: start, limit: 2)
        let second = queue.popDue(at: start, limit: 10)
        let third = queue.popDue(at: start, limit: 10)
        #expect(first == ["early", "a"])
        #expect(second == ["b", "c"])
        #expect(third == [])
        // Taken widgets keep their due time until they get a new one; the others stay queued.
        #expect(queue["a"] == start)
        let earliest = queue.earliest
        #expect(earliest == start.addingTimeInterval(5))
        queue["a"] = start
        let again = queue.popDue(at: start.addingTimeInterval(5), limit: 1)
        let later = queue.popDue(at: start.addingTimeInterval(5), limit: 1)
        #expect(again == ["a"])
        #expect(later == ["later"])
    }

    @Test func pacingPutsOffWritesWhileBusyAndWakesAfterTheGap() {
        var pacing = WidgetDaemon.IndexPacing()
        // Nothing written yet, or nothing under way: written at once.
        var write = pacing.shouldWrite(at: start, busy: true)
        #expect(write)
        pacing.wrote(at: start)
        pacing.cost.set(.milliseconds(10))
        write = pacing.shouldWrite(at: start, busy: false)
        #expect(write)
        #expect(!pacing.pending)
        // Busy within the gap (a second): put off, due when the gap has passed.
        write = pacing.shouldWrite(at: start.addingTimeInterval(0.5), busy: true)
        #expect(!write)
        #expect(pacing.pending)
        #expect(pacing.deadline == start.addingTimeInterval(1))
        write = pacing.shouldWrite(at: start.addingTimeInterval(1), busy: true)
        #expect(write)
        // A write that took 0.5 s makes the gap 5 s: describing the widgets stays a tenth of the time.
        pacing.wrote(at: start.addingTimeInterval(1))
        pacing.cost.set(.milliseconds(500))
        #expect(!pacing.pending)
        write = pacing.shouldWrite(at: start.addingTimeInterval(5.9), busy: true)
        #expect(!write)
        #expect(pacing.deadline == start.addingTimeInterval(6))
        // A write still under way beside the loop puts the next off, a second at a time, past the gap.
        pacing.cost.start()
        write = pacing.shouldWrite(at: start.addingTimeInterval(6), busy: true)
        #expect(!write)
        #expect(pacing.deadline == start.addingTimeInterval(7))
        pacing.cost.set(.milliseconds(500))
        write = pacing.shouldWrite(at: start.addingTimeInterval(7), busy: true)
        #expect(write)
    }
}
