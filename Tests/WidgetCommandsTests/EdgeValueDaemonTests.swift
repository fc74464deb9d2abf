import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetTestSupport
import WidgetTesting

/// The built daemon against the two responses that once stopped it with a trap: `Cache-Control:
/// max-age=-9223372036854775808` with `Age: 1` (an overflow in the freshness arithmetic) and an item dated
/// `1e19` (an overflow writing the snapshot, and on every restart after). The daemon must live, the
/// far-dated widget must say which date is wrong, the others stay fresh, and a restart on the same folder
/// (its state included) must do the same again.
@Suite(.timeLimit(.minutes(3)))
struct EdgeValueDaemonTests {
    private static func widgets(_ server: TestHTTPServer, in folder: TemporaryFolder) throws {
        func url(_ path: String) -> String { server.url(path).absoluteString }
        let maxAge = url("/cache-control?value=max-age%3D-9223372036854775808&age=1")
        try folder.write(
            "widgets.d/overflow.json",
            #"{"source": {"url": "\#(maxAge)"}, "parser": "json", "schedule": {"every": "1s", "allowFrequent": true, "maxPerDay": 100000}}"#
        )
        let body = "%5B%7B%22t%22%3A%201e19%2C%20%22title%22%3A%20%22far%22%7D%5D"  // [{"t": 1e19, "title": "far"}]
        try folder.write(
            "widgets.d/far.json",
            #"""
            {"source": {"url": "\#(url("/content?type=application/json&body=\(body)"))"}, "parser": "json",
             "timeline": {"type": "each", "date": "$.t"}, "schedule": {"every": "1s", "allowFrequent": true, "maxPerDay": 100000}}
            """#)
        try folder.write(
            "widgets.d/good.json",
            #"{"source": {"url": "\#(url("/json?size=2"))"}, "parser": "json", "schedule": {"every": "1s", "allowFrequent": true, "maxPerDay": 100000}}"#
        )
    }

    @Test func aStateHoldingFarDatesLoadsAndWritesWithoutATrap() throws {
        var state = WidgetState()
        state.lastGoodEntries = [1e19, -1e19, .nan, .infinity].map { TimelineEntry(date: Date(timeIntervalSince1970: $0), content: "far") }
        state.fallbackItems = [["t": .number(WidgetNumber("1e19")!)], ["t": .number(WidgetNumber("-9223372036854775808")!)]]
        state.nextDueAt = Date(timeIntervalSince1970: 1e300)
        let saved = state.value
        let dates = saved["lastGoodEntries"]?.array?.compactMap { $0["date"]?.string }
        #expect(dates?.first == "9999-12-31T23:59:59Z")
        #expect(saved["nextDueAt"] == "9999-12-31T23:59:59Z")
        // What was written reads back; dates no reader takes (a year of five digits) are dropped, not fatal.
        let loaded = WidgetState(value: try JSONReader.read(JSONWriter.string(saved)))
        #expect(loaded.lastGoodEntries.count == 4)
        #expect(loaded.fallbackItems == state.fallbackItems)
        var odd = try #require(saved.object)
        odd["lastGoodEntries"] = [["date": "+10000-01-01T00:00:00Z", "content": 1], ["date": .number(WidgetNumber("1e19")!)]]
        odd["nextDueAt"] = .number(WidgetNumber("1e19")!)
        let oddState = WidgetState(value: .object(odd))
        #expect(oddState.lastGoodEntries.isEmpty)
        #expect(oddState.nextDueAt == nil)
    }

    private static let farError = "the date 1e19 at $.t is outside the years 1 to 9999"

    @Test func overflowingHeadersAndFarDatesNeitherStopTheDaemonNorItsRestart() async throws {
        let server = try TestHTTPServer()
        let folder = try TemporaryFolder()
        try Self.widgets(server, in: folder)

        for run in 1...2 {
            // `run --once`, twice on the same folder: the second starts from the state the first left.
            let once = try await Widgetd.run(["run", "--config", "widgets.d", "--out", "out", "--once"], in: folder.url)
            #expect(!once.stderr.contains("crashed"), "run \(run): \(once.stderr)")
            #expect(once.status == 0 || once.status == 1, "run \(run) ended with \(once.status): \(once.stderr)")
            let overflow = try JSONReader.read(try Data(contentsOf: folder.file("out/overflow.json")))
            #expect(overflow["status"] == "fresh", "run \(run): \(overflow)")
            let far = try JSONReader.read(try Data(contentsOf: folder.file("out/far.json")))
            #expect(far["status"] == "placeholder", "run \(run): \(far)")
            #expect(far["error"]?.string?.contains(Self.farError) == true, "run \(run): \(far)")
            let good = try JSONReader.read(try Data(contentsOf: folder.file("out/good.json")))
            #expect(good["status"] == "fresh", "run \(run): \(good)")
            // The state the next run starts from is whole.
            for line in try folder.read("out/.state/_states.jsonl").split(separator: "\n") {
                _ = try JSONReader.read(String(line))
            }
        }

        // The daemon itself: both bad widgets refresh on their 1 s schedule beside the good one, and it
        // stops cleanly on SIGTERM.
        let daemon = try RunningWidgetd(["run", "--config", "widgets.d", "--out", "out"], in: folder.url)
        _ = try #require(await daemon.line(containing: "widgetd running"), "\(daemon.log)")
        // The far widget fails in the first wave (then waits 30 s to retry); the others go on each second.
        if !daemon.log.contains(where: { $0.contains(Self.farError) }) {
            _ = try #require(await daemon.line(containing: Self.farError), "\(daemon.log)")
        }
        for _ in 0..<2 {
            _ = try #require(await daemon.line(containing: "good: fresh"), "\(daemon.log)")
            _ = try #require(await daemon.line(containing: "overflow: fresh"), "\(daemon.log)")
        }
        #expect(await daemon.stop() == 0, "\(daemon.log)")
        withExtendedLifetime(server) {}
    }
}
