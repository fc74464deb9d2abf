import Foundation
import Testing
import WidgetCore
import WidgetObjectStorage
import WidgetTestSupport
import WidgetTesting

@testable import WidgetRuntime

/// The daemon over a bucket output in memory, its clock driven by hand: a wave whose refreshes all got
/// the same data costs no PUT, a changed widget sends its own objects and the index, and the heartbeats
/// send the times again.
@Suite(.timeLimit(.minutes(2)))
struct UnchangedWaveTests {
    let start = TestWidgets.date("2026-11-22T15:00:00Z")
    let ids = ["alpha", "beta", "gamma"]

    /// A widget refreshed every 20 s (allowed: the source is in memory) from the in-memory source under its id.
    static func definition(key: String) -> String {
        """
        {"title": "Widget \(key)", "source": {"type": "memory", "key": "\(key)"}, "parser": "json",
         "timeline": "single", "schedule": {"every": "20s", "allowFrequent": true}}
        """
    }

    /// Every key of the bucket with its entity tag (a PUT changes it).
    static func tags(of bucket: MemoryObjectStore) async throws -> [String: String] {
        var tags: [String: String] = [:]
        for object in try await bucket.list(prefix: "prod/") { tags[String(object.key.dropFirst(5))] = object.etag }
        return tags
    }

    /// The keys whose object changed from `before` to `after`.
    static func sent(_ before: [String: String], _ after: [String: String]) -> Set<String> {
        Set(after.filter { before[$0.key] != $0.value }.keys)
    }

    @Test func anUnchangedWaveCostsNoPutAndAChangedWidgetSendsOnlyItsOwn() async throws {
        let config = try TemporaryFolder("unchanged-config")
        let work = try TemporaryFolder("unchanged-work")
        let source = InMemorySource()
        for id in ids {
            try config.write("\(id).json", Self.definition(key: id))
            source.set(id, json: #"{"headline": "\#(id) one"}"#)
        }
        let bucket = MemoryObjectStore()
        let clock = ManualClock(now: start)
        let output = BucketOutput(store: bucket, bucket: "widgets", prefix: "prod", workFolder: work.url, clock: clock)
        let daemon = WidgetDaemon(
            configuration: .init(
                definitions: DefinitionDirectory(path: config.path), store: SnapshotStore(output: output), reader: TestWidgets.reader,
                refresher: TestWidgets.refresher(source), clock: clock, log: LogRecorder().log, keepsEveryRefreshReport: true))
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        let perWidget = { (id: String) in ["\(id).json", "\(id).html", ".state/\(id).json"] }
        let listings = ["index.json", "index.html"]
        let records = ["widgetd.prom", ".state/_daemon.json"]
        let heartbeat = OutputObject.contentHeartbeat
        // The waves, in seconds after the start: beta's data changes at 40; 960 is past the content
        // heartbeat counted from beta's last upload (40), and past the records' from theirs (60).
        let moments: [Double] = [0, 20, 40, 60, 40 + heartbeat + 20, 40 + heartbeat + 40]
        var waves: [(keys: Set<String>, puts: Int)] = []
        for seconds in moments {
            if seconds == 40 { source.set("beta", json: #"{"headline": "beta two"}"#) }
            let before = try await Self.tags(of: bucket)
            let puts = bucket.counts.puts
            if seconds > 0 { clock.advance(to: start.addingTimeInterval(seconds)) }
            // Every widget's refresh, then the wave's index, gallery, metrics and record.
            for _ in ids { _ = try #require(await reports.next()) }
            await clock.waitForSleeper()
            let drained = await output.drain(timeout: 120)
            #expect(drained.isComplete, "\(drained.summary)")
            waves.append((Self.sent(before, try await Self.tags(of: bucket)), bucket.counts.puts - puts))
        }
        task.cancel()
        try await task.value

        // The first wave sends everything.
        #expect(waves[0].keys.isSuperset(of: ids.flatMap(perWidget) + listings + records))
        print("PUTs of the first wave: \(waves[0].puts)")

        // The same data 20 s later: only the times moved.
        print("PUTs per unchanged wave: \(waves[1].puts)")
        #expect(waves[1].puts == 0)
        #expect(waves[1].keys.isEmpty)

        // One widget's data changed: its snapshot, page and state, and the index and gallery.
        #expect(waves[2].keys == Set(perWidget("beta") + listings))
        #expect(waves[2].puts == waves[2].keys.count)
        let beta = try #require(bucket.data("prod/beta.json"))
        #expect(String(decoding: beta, as: UTF8.self).contains("beta two"))

        // A minute after they were sent, the metrics and the daemon's record go again, alone.
        #expect(waves[3].keys == Set(records))

        // Past the content heartbeat everything is sent once more, with its current times …
        #expect(waves[4].keys == Set(ids.flatMap(perWidget) + listings + records))
        let alpha = try #require(bucket.data("prod/alpha.json"))
        #expect(String(decoding: alpha, as: UTF8.self).contains(Timestamp.string(start.addingTimeInterval(moments[4]))))

        // … and once only.
        print("PUTs per unchanged wave after the heartbeat: \(waves[5].puts)")
        #expect(waves[5].puts == 0)
    }
}
