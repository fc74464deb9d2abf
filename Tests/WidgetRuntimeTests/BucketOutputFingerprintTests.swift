import Foundation
import Testing
import WidgetObjectStorage
import WidgetRuntime
import WidgetTestSupport
import WidgetTesting

/// The bucket output's fingerprints: a write whose fingerprint is the one last sent waits for the
/// heartbeat, a changed fingerprint goes at once, and neither a restart nor a clock set back loses a
/// change.
struct BucketOutputFingerprintTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func object(_ fingerprint: String?, heartbeat: Double? = 900) -> OutputObject {
        OutputObject(contentType: "application/json", cacheControl: "public, max-age=60", fingerprint: fingerprint, heartbeat: heartbeat)
    }

    /// A bucket output of `store` under `prod`, working in `work`, prepared.
    func output(_ store: MemoryObjectStore, work: URL, clock: ManualClock) async throws -> BucketOutput {
        let output = BucketOutput(store: store, bucket: "widgets", prefix: "prod", workFolder: work, clock: clock)
        try await output.prepare()
        return output
    }

    @Test func theSameFingerprintWaitsForTheHeartbeat() async throws {
        let folder = try TemporaryFolder()
        let store = MemoryObjectStore()
        let clock = ManualClock(now: start)
        let output = try await output(store, work: folder.url, clock: clock)
        try output.write(Data("at 0".utf8), to: "news.json", as: Self.object("A"))
        #expect(await output.drain(timeout: 60).isComplete)
        #expect(store.counts.puts == 1)

        // Other bytes, the same fingerprint: the copy changes, the bucket does not.
        clock.advance(by: 899)
        try output.write(Data("at 899".utf8), to: "news.json", as: Self.object("A"))
        #expect(output.health.pendingObjects == 0)
        #expect(output.read("news.json") == Data("at 899".utf8))
        #expect(store.data("prod/news.json") == Data("at 0".utf8))

        // The heartbeat is over: sent once, and the next 15 minutes counted from this write.
        clock.advance(by: 1)
        try output.write(Data("at 900".utf8), to: "news.json", as: Self.object("A"))
        #expect(await output.drain(timeout: 60).isComplete)
        #expect(store.data("prod/news.json") == Data("at 900".utf8))
        clock.advance(by: 10)
        try output.write(Data("at 910".utf8), to: "news.json", as: Self.object("A"))
        #expect(output.health.pendingObjects == 0)

        // Another fingerprint goes at once.
        try output.write(Data("changed".utf8), to: "news.json", as: Self.object("B"))
        #expect(await output.drain(timeout: 60).isComplete)
        #expect(store.data("prod/news.json") == Data("changed".utf8))
        #expect(store.counts.puts == 3)
    }

    @Test func withoutAFingerprintTheBytesDecideAndWithoutAHeartbeatTheFingerprintAlone() async throws {
        let folder = try TemporaryFolder()
        let store = MemoryObjectStore()
        let clock = ManualClock(now: start)
        let output = try await output(store, work: folder.url, clock: clock)
        try output.write(Data("one".utf8), to: "plain.json", as: Self.object(nil))
        try output.write(Data("one".utf8), to: "forever.json", as: Self.object("F", heartbeat: nil))
        #expect(await output.drain(timeout: 60).isComplete)
        clock.advance(by: 86_400)
        try output.write(Data("two".utf8), to: "plain.json", as: Self.object(nil))
        try output.write(Data("two".utf8), to: "forever.json", as: Self.object("F", heartbeat: nil))
        #expect(await output.drain(timeout: 60).isComplete)
        #expect(store.data("prod/plain.json") == Data("two".utf8))
        #expect(store.data("prod/forever.json") == Data("one".utf8))
    }

    @Test func aClockSetBackSendsAgain() async throws {
        let folder = try TemporaryFolder()
        let store = MemoryObjectStore()
        let clock = ManualClock(now: start)
        let output = try await output(store, work: folder.url, clock: clock)
        try output.write(Data("one".utf8), to: "news.json", as: Self.object("A"))
        #expect(await output.drain(timeout: 60).isComplete)

        // A working folder whose manifest says the upload was written in the future (a clock set back).
        let later = ManualClock(now: start.addingTimeInterval(-60))
        let restarted = try await self.output(store, work: folder.url, clock: later)
        try restarted.write(Data("two".utf8), to: "news.json", as: Self.object("A"))
        #expect(await restarted.drain(timeout: 60).isComplete)
        #expect(store.data("prod/news.json") == Data("two".utf8))
    }

    @Test func aRestartSendsNeitherAnUnsentEquivalentCopyNorForgetsTheHeartbeat() async throws {
        let folder = try TemporaryFolder()
        let store = MemoryObjectStore()
        let clock = ManualClock(now: start)
        let before = try await output(store, work: folder.url, clock: clock)
        try before.write(Data("at 0".utf8), to: "news.json", as: Self.object("A"))
        #expect(await before.drain(timeout: 60).isComplete)
        clock.advance(by: 60)
        try before.write(Data("at 60".utf8), to: "news.json", as: Self.object("A"))
        before.flush()

        // The same working folder: the copy differs from the bucket only by what the fingerprint leaves
        // out, so nothing is queued; the fingerprint and its age are remembered.
        let after = try await output(store, work: folder.url, clock: clock)
        #expect(after.health.pendingObjects == 0)
        clock.advance(by: 60)
        try after.write(Data("at 120".utf8), to: "news.json", as: Self.object("A"))
        #expect(after.health.pendingObjects == 0)
        clock.advance(by: 780)
        try after.write(Data("at 900".utf8), to: "news.json", as: Self.object("A"))
        #expect(await after.drain(timeout: 60).isComplete)
        #expect(store.data("prod/news.json") == Data("at 900".utf8))
        #expect(store.counts.puts == 2)
    }
}
