import Foundation
import Synchronization
import Testing
import WidgetObjectStorage
import WidgetRuntime
import WidgetTestSupport
import WidgetTesting

/// The bucket output's uploader when the store fails: retries after a pause on an injected clock, the
/// store's `Retry-After`, one entry per key however long the store is away, the write gate, and a
/// drain that says what stayed.
struct BucketOutputUploaderTests {
    static let json = OutputObject(contentType: "application/json", cacheControl: "public, max-age=60")
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func output(_ store: MemoryObjectStore, work: URL, clock: ManualClock, mayWrite: (@Sendable () -> Bool)? = nil) -> BucketOutput {
        BucketOutput(store: store, bucket: "widgets", prefix: "prod", workFolder: work, clock: clock, mayWrite: mayWrite)
    }

    @Test func aStoreDownForAWhileGetsTheNewestOfEveryKeyOnceWhenItIsBack() async throws {
        let folder = try TemporaryFolder()
        let store = MemoryObjectStore()
        let clock = ManualClock(now: Self.start)
        let output = Self.output(store, work: folder.url, clock: clock)
        try await output.prepare()
        store.goDown(.unreachable)
        let uploads = Task { await output.run() }
        for version in 1...3 {
            for index in 0..<20 {
                try output.write(Data("w\(index) v\(version)".utf8), to: "w\(index).json", as: Self.json)
            }
        }
        await clock.waitForSleeper()
        #expect(output.health.pendingObjects == 20)
        #expect(output.health.failuresInARow >= 1)
        #expect(output.health.lastError?.contains("down") == true)
        #expect(output.health.puts == 0)
        // A minute passes: the writes are a minute behind.
        clock.advance(by: 60)
        await clock.waitForSleeper()
        #expect(output.health.oldestPendingAge(at: clock.now()) >= 60)
        var health = output.health
        health.pausedUntil = nil
        #expect(health.prometheusLines(at: clock.now()).contains("widgetd_output_pending_objects 20\n"))
        #expect(health.prometheusLines(at: clock.now()).contains("widgetd_output_oldest_pending_seconds 60\n"))
        #expect(BucketOutput.Health(value: health.value) == health)
        #expect(health.summary(at: clock.now()).hasPrefix("20 objects pending for 60 s, "))
        store.comeBack()
        clock.advance(by: 60)
        #expect(await output.drain(timeout: 600).isComplete)
        uploads.cancel()
        await uploads.value
        for index in 0..<20 {
            #expect(store.data("prod/w\(index).json") == Data("w\(index) v3".utf8))
        }
        #expect(output.health.puts == 20)
        #expect(output.health.failuresInARow == 0)
        #expect(output.health.pendingObjects == 0)
    }

    @Test func aThrottledAnswerWaitsAsLongAsTheStoreSaid() async throws {
        let folder = try TemporaryFolder()
        let store = MemoryObjectStore()
        let clock = ManualClock(now: Self.start)
        let output = Self.output(store, work: folder.url, clock: clock)
        try await output.prepare()
        store.failNext([.throttled(retryAfter: 20)])
        let uploads = Task { await output.run() }
        try output.write(Data("a".utf8), to: "news.json", as: Self.json)
        await clock.waitForSleeper()
        #expect(clock.earliestDeadline == Self.start.addingTimeInterval(20))
        #expect(store.counts.puts == 1)
        clock.advance(by: 19)
        #expect(store.counts.puts == 1)
        clock.advance(by: 1)
        #expect(await output.drain(timeout: 600).isComplete)
        uploads.cancel()
        await uploads.value
        #expect(store.counts.puts == 2)
        #expect(store.data("prod/news.json") == Data("a".utf8))
    }

    @Test func aRefusedKeyWaitsTheLongestPause() async throws {
        let folder = try TemporaryFolder()
        let store = MemoryObjectStore()
        let clock = ManualClock(now: Self.start)
        let output = Self.output(store, work: folder.url, clock: clock)
        try await output.prepare()
        store.failNext([.denied])
        let uploads = Task { await output.run() }
        try output.write(Data("a".utf8), to: "news.json", as: Self.json)
        await clock.waitForSleeper()
        #expect(clock.earliestDeadline == Self.start.addingTimeInterval(30))
        clock.advance(by: 30)
        #expect(await output.drain(timeout: 600).isComplete)
        uploads.cancel()
        await uploads.value
        #expect(output.health.failuresTotal == 1)
    }

    @Test func backoffGrowsWithFullJitterUpToTheCap() {
        let settings = BucketOutput.Settings()
        let error = ObjectStoreError(.server(status: 503), message: "PUT x: 503")
        for failures in 1...40 {
            let ceiling = min(30, 0.5 * pow(2, Double(failures - 1)))
            for _ in 0..<20 {
                let delay = BucketOutput.retryDelay(after: error, failuresInARow: failures, settings)
                #expect(delay >= 0 && delay <= ceiling)
            }
        }
    }

    @Test func manyWritesOfABigObjectWhileDownKeepOneEntryPerKey() async throws {
        let folder = try TemporaryFolder()
        let store = MemoryObjectStore()
        let clock = ManualClock(now: Self.start)
        let output = Self.output(store, work: folder.url, clock: clock)
        try await output.prepare()
        store.goDown(.server(status: 503))
        let uploads = Task { await output.run() }
        var big = Data(repeating: 0x41, count: 256 << 10)
        for round in 0..<40 {
            big[0] = UInt8(round)
            try output.write(big, to: "big.json", as: Self.json)
            for index in 0..<10 {
                try output.write(Data("\(index) \(round)".utf8), to: "small\(index).json", as: Self.json)
            }
            #expect(output.health.pendingObjects <= 11)
            if round % 10 == 0 {
                await clock.waitForSleeper()
                clock.advance(by: 30)
            }
        }
        #expect(output.health.pendingObjects == 11)
        store.comeBack()
        clock.advance(by: 30)
        #expect(await output.drain(timeout: 600).isComplete)
        uploads.cancel()
        await uploads.value
        #expect(store.data("prod/big.json")?.first == 39)
        #expect(output.health.puts == 11)
    }

    @Test func nothingIsSentWhileTheGateIsClosed() async throws {
        let folder = try TemporaryFolder()
        let store = MemoryObjectStore()
        let clock = ManualClock(now: Self.start)
        let gate = Mutex(false)
        let output = Self.output(store, work: folder.url, clock: clock, mayWrite: { gate.withLock { $0 } })
        try await output.prepare()
        let uploads = Task { await output.run() }
        try output.write(Data("a".utf8), to: "news.json", as: Self.json)
        await clock.waitForSleeper()
        clock.advance(by: 1)
        await clock.waitForSleeper()
        #expect(store.counts.puts == 0)
        #expect(output.health.gateClosed)
        #expect(output.health.pendingObjects == 1)
        gate.withLock { $0 = true }
        clock.advance(by: 1)
        #expect(await output.drain(timeout: 600).isComplete)
        uploads.cancel()
        await uploads.value
        #expect(store.counts.puts == 1)
    }

    @Test func aDrainThatRunsOutOfTimeSaysWhatStayed() async throws {
        let folder = try TemporaryFolder()
        let store = MemoryObjectStore()
        let clock = ManualClock(now: Self.start)
        let output = Self.output(store, work: folder.url, clock: clock)
        try await output.prepare()
        store.goDown(.unreachable)
        for name in ["a", "b", "c"] { try output.write(Data(name.utf8), to: "\(name).json", as: Self.json) }
        let drain = Task { await output.drain(timeout: 5) }
        await clock.waitForSleeper()
        clock.advance(by: 5)
        let result = await drain.value
        #expect(result.unsent == ["a.json", "b.json", "c.json"])
        #expect(result.lastError?.contains("down") == true)
        #expect(result.summary.hasPrefix("3 objects not written (a.json, b.json, c.json)"))
        // What stayed is sent by the next start.
        store.comeBack()
        let next = Self.output(store, work: folder.url, clock: clock)
        try await next.prepare()
        #expect(await next.drain(timeout: 60).isComplete)
        #expect(store.keys == ["prod/a.json", "prod/b.json", "prod/c.json"])
    }
}
