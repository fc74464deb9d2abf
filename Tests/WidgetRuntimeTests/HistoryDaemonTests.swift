import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetTestSupport
import WidgetTesting

@testable import WidgetRuntime

/// A daemon on a manual clock keeping a widget's history: a point per fresh refresh, seen by the
/// pipeline's templates as it was before the refresh and by the views with it, kept across restarts and
/// reloads, gone with its widget, and within its bounds over a month of refreshes.
@Suite(.timeLimit(.minutes(5)))
struct HistoryDaemonTests {
    let start = TestWidgets.date("2026-11-01T00:00:00Z")
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

    func makeDaemon() -> WidgetDaemon {
        WidgetDaemon(
            configuration: .init(
                definitions: DefinitionDirectory(path: config.path),
                store: SnapshotStore(directory: out.url),
                reader: TestWidgets.reader,
                refresher: TestWidgets.refresher(source),
                clock: clock,
                log: logs.log,
                keepsEveryRefreshReport: true
            ))
    }

    /// The portfolio widget: every 5 minutes, a `total` series, a `compute` field counting the points
    /// before the refresh, and a view listing the points with it.
    func writePortfolio(history: String = #"{"values": {"total": "$.total"}}"#) throws {
        try config.write(
            "portfolio.json",
            #"""
            {"source": {"type": "memory", "key": "portfolio"}, "schedule": {"every": "5m"}, "history": \#(history),
             "transforms": [{"type": "compute", "fields": {"seen": "{{ history.total | size }}"}}],
             "view": "<p class=\"points\">{{ history.total | size }}:{% for p in history.total %}{{ p.value }}@{{ p.at }};{% endfor %}</p>"}
            """#)
    }

    /// The widget's history as the file holds it.
    func saved(_ id: String = "portfolio") -> WidgetHistory? {
        HistoryStore(output: FolderOutput(folder: out.url)).saved(for: id)
    }

    func values(_ name: String = "total", of id: String = "portfolio") -> [String] {
        saved(id)?[name]?.points.map { JSONWriter.string($0.value) } ?? []
    }

    /// The points the widget's page shows.
    func pagePoints() throws -> String {
        let page = try out.read("portfolio.html")
        guard let start = page.range(of: #"<p class="points">"#), let end = page.range(of: "</p>", range: start.upperBound..<page.endIndex)
        else { return "" }
        return String(page[start.upperBound..<end.lowerBound])
    }

    @Test func eachFreshRefreshAddsAPointThatTemplatesSeeBeforeAndViewsWithIt() async throws {
        try writePortfolio()
        source.set("portfolio", json: #"{"total": 100.10}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }

        let first = try #require(await reports.next())
        #expect(first.snapshot.entries.first?.content["seen"] == .number(0))
        await clock.waitForSleeper()
        #expect(values() == ["100.10"])
        #expect(try pagePoints() == "1:100.10@2026-11-01T00:00:00Z;")

        source.set("portfolio", json: #"{"total": 0.30000000000000004}"#)
        clock.advance(to: try #require(clock.earliestDeadline))
        let second = try #require(await reports.next())
        #expect(second.snapshot.generatedAt == start + 300)
        #expect(second.snapshot.entries.first?.content["seen"] == .number(1))
        await clock.waitForSleeper()
        #expect(values() == ["100.10", "0.30000000000000004"])
        #expect(try pagePoints() == "2:100.10@2026-11-01T00:00:00Z;0.30000000000000004@2026-11-01T00:05:00Z;")

        // A failed refresh serves the last data, cached, and adds no point.
        source.fail("portfolio", message: "down")
        clock.advance(to: try #require(clock.earliestDeadline))
        let third = try #require(await reports.next())
        #expect(third.snapshot.status == .cached)
        await clock.waitForSleeper()
        #expect(values() == ["100.10", "0.30000000000000004"])

        task.cancel()
        try await task.value
        let file = try JSONReader.read(Data(contentsOf: out.file("portfolio.history.json")))
        #expect(file["id"] == .string("portfolio"))
        #expect(file["series"]?["total"]?["times"] == .array([.number(WidgetNumber(1_793_491_200)), .number(WidgetNumber(1_793_491_500))]))
        // The history is no widget of its own.
        #expect(SnapshotStore(directory: out.url).snapshotIDs() == ["portfolio"])
    }

    @Test func theHistorySurvivesARestart() async throws {
        try writePortfolio()
        source.set("portfolio", json: #"{"total": 1}"#)
        let first = makeDaemon()
        var reports = first.refreshes.makeAsyncIterator()
        var task = Task { try await first.run() }
        _ = try #require(await reports.next())
        await clock.waitForSleeper()
        task.cancel()
        try await task.value

        source.set("portfolio", json: #"{"total": 2}"#)
        clock.advance(by: 600)
        let second = makeDaemon()
        reports = second.refreshes.makeAsyncIterator()
        task = Task { try await second.run() }
        let report = try #require(await reports.next())
        #expect(report.snapshot.entries.first?.content["seen"] == .number(1))
        await clock.waitForSleeper()
        task.cancel()
        try await task.value
        #expect(values() == ["1", "2"])
        #expect(try pagePoints().hasPrefix("2:1@"))
    }

    @Test func aReloadWithAChangedBlockKeepsTheSeriesWhosePathsDidNotChange() async throws {
        try writePortfolio(history: #"{"values": {"total": "$.total", "down": "$.down"}}"#)
        source.set("portfolio", json: #"{"total": 1, "down": 5, "speed": {"down": 7}}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        _ = try #require(await reports.next())
        await clock.waitForSleeper()
        #expect(values("down") == ["5"])

        clock.advance(by: 60)
        try writePortfolio(history: #"{"points": 5, "values": {"total": "$.total", "down": "$.speed.down", "up": "$.up"}}"#)
        await daemon.reloadDefinitions()
        let report = try #require(await reports.next())
        #expect(report.snapshot.entries.first?.content["seen"] == .number(1))
        await clock.waitForSleeper()
        let history = try #require(saved())
        #expect(history.series.map(\.name) == ["total", "down", "up"])
        #expect(values("total") == ["1", "1"])
        #expect(values("down") == ["7"])
        #expect(values("up").isEmpty)
        #expect(history.limit == 5)

        task.cancel()
        try await task.value
    }

    @Test func aRemovedWidgetTakesItsHistoryWithItAndARemovedBlockItsFile() async throws {
        try writePortfolio()
        try config.write("other.json", #"{"source": {"type": "memory", "key": "other"}, "history": {"values": {"v": "$.v"}}}"#)
        source.set("portfolio", json: #"{"total": 1}"#)
        source.set("other", json: #"{"v": 1}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        _ = try #require(await reports.next())
        _ = try #require(await reports.next())
        await clock.waitForSleeper()
        #expect(FileManager.default.fileExists(atPath: out.file("portfolio.history.json").path))
        #expect(FileManager.default.fileExists(atPath: out.file("other.history.json").path))

        try FileManager.default.removeItem(at: config.file("other.json"))
        clock.advance(by: 60)
        try config.write(
            "portfolio.json", #"{"source": {"type": "memory", "key": "portfolio"}, "schedule": {"every": "5m"}}"#)
        await daemon.reloadDefinitions()
        _ = try #require(await reports.next())
        await clock.waitForSleeper()
        #expect(!FileManager.default.fileExists(atPath: out.file("other.json").path))
        #expect(!FileManager.default.fileExists(atPath: out.file("other.history.json").path))
        #expect(!FileManager.default.fileExists(atPath: out.file("portfolio.history.json").path))

        task.cancel()
        try await task.value
    }

    @Test func runOnceRecordsAPointToo() async throws {
        try writePortfolio()
        source.set("portfolio", json: #"{"total": 3}"#)
        _ = try await makeDaemon().runOnce()
        clock.advance(by: 3_600)
        source.set("portfolio", json: #"{"total": 4}"#)
        let report = try await makeDaemon().runOnce()
        #expect(report.outcomes.first?.snapshot.entries.first?.content["seen"] == .number(1))
        #expect(values() == ["3", "4"])
    }

    @Test func aBucketRestoresTheHistoryInAnEmptyWorkingFolder() async throws {
        let bucket = MemoryObjectStore()
        let before = BucketOutput(
            store: bucket, bucket: "widgets", prefix: "prod", workFolder: out.url.appendingPathComponent("a"), clock: clock)
        try await before.prepare()
        let definition = try TestWidgets.pipeline(
            #"{"source": {"type": "memory", "key": "p"}, "history": {"values": {"total": "$.total"}}}"#, file: "widgets.d/portfolio.json"
        ).definition
        let snapshot = Snapshot(
            id: "portfolio", title: nil, status: .fresh, generatedAt: start, lastSuccessAt: start, nextRefreshAt: nil,
            entries: [TimelineEntry(date: start, content: ["total": .number(WidgetNumber("98765432109876543210.01")!)])], error: nil)
        let written = try #require(try HistoryStore(output: before).record(snapshot, definition: definition))
        #expect(await before.drain(timeout: 60).isComplete)
        #expect(BucketOutput.restoresByDefault("portfolio.history.json"))

        let after = BucketOutput(
            store: bucket, bucket: "widgets", prefix: "prod", workFolder: out.url.appendingPathComponent("b"), clock: clock)
        try await after.prepare()
        #expect(HistoryStore(output: after).saved(for: "portfolio") == written)
        #expect(SnapshotStore(output: after).history.templateValue(for: definition, now: start) == written.templateValue)
    }

    /// A month of 5-minute refreshes through the store's record function, the one the daemon's write path
    /// calls before the snapshot (each call writes the whole file; the daemon's waves are not run, which
    /// would take minutes), keeping a week: the bounds hold after every refresh, and the file read back
    /// is what was kept. (The default bounds over a month: `WidgetHistoryTests`.)
    @Test func aMonthOfRefreshesStaysWithinItsBounds() throws {
        for (block, expected) in [(#"{"keep": "7d", "points": 10000, "values": {"total": "$.total"}}"#, 2_016)] {
            // In memory: a folder's flushes would make this a test of the disk.
            let output = MemoryOutput(localFolder: out.url)
            let store = SnapshotStore(output: output)
            let definition = try TestWidgets.pipeline(
                #"{"source": {"type": "memory", "key": "p"}, "schedule": {"every": "5m"}, "history": \#(block)}"#,
                file: "widgets.d/portfolio.json"
            ).definition
            let history = try #require(definition.history)
            let refreshes = 30 * 24 * 12
            var generator = SeededGenerator(seed: 34)
            var total = Decimal(string: "12345.67")!
            var outOfBounds: [Int] = []
            for step in 0..<refreshes {
                let now = start + Double(step * 300)
                total += Decimal(Int.random(in: -5_000...5_000, using: &generator)) / 100
                let content: WidgetValue = ["total": .number(WidgetNumber(total)!)]
                let snapshot = Snapshot(
                    id: "portfolio", title: nil, status: .fresh, generatedAt: now, lastSuccessAt: now, nextRefreshAt: now + 300,
                    entries: [TimelineEntry(date: now, content: content)], error: nil)
                let kept = try #require(try store.history.record(snapshot, definition: definition))
                let expired = Int64(now.timeIntervalSince1970) - Int64(history.keep.seconds)
                let within = kept.series.allSatisfy { series in
                    series.points.count <= min(history.points, expected) && (series.points.first?.time ?? .max) > expired
                }
                if !within { outOfBounds.append(step) }
            }
            #expect(outOfBounds.isEmpty, "out of bounds after the refreshes \(outOfBounds.prefix(5))…")
            let data = try #require(output.read("portfolio.history.json"))
            let read = try #require(WidgetHistory(fileData: data))
            #expect(read.series.map(\.points.count) == [expected])
            #expect(read == store.history.saved(for: "portfolio"))
            let perPoint = Double(data.count) / Double(read.pointCount)
            print(
                "history over a simulated month: \(refreshes) refreshes, \(read.pointCount) points kept "
                    + "(keep \(history.keep), points \(history.points)), \(data.count / 1024) KB (\(String(format: "%.1f", perPoint)) bytes per point)"
            )
        }
    }
}
