import Foundation
import Testing
import WidgetObjectStorage
import WidgetRuntime
import WidgetTesting

/// The lease that makes one process the writer of a shard, over a bucket in memory. Each process has its
/// own manual clock, as each machine has its own monotonic clock; nothing sleeps.
struct LeaseKeeperTests {
    let key = ".state/shards/1-of-3/lease.json"
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func keeper(
        _ name: String, store: MemoryObjectStore, clock: ManualClock, log: LogRecorder = LogRecorder()
    ) -> LeaseKeeper {
        LeaseKeeper(
            store: store, key: key, label: "shard 1/3", holder: Lease.Holder(host: name, pid: 7, id: "\(name)-id"), clock: clock,
            wallClock: clock, log: log.log)
    }

    /// Moves `clock` on by `seconds`, one second at a time, letting whatever sleeps on it run to its next
    /// sleep after each step.
    func advance(_ clock: ManualClock, by seconds: Int) async {
        for _ in 0..<seconds {
            clock.advance(by: 1)
            await clock.waitForSleeper()
        }
    }

    @Test func acquireCreatesTheLeaseWithItsHolderAndTTL() async throws {
        let store = MemoryObjectStore()
        let clock = ManualClock(now: start)
        let lease = keeper("pod-a", store: store, clock: clock)
        #expect(!lease.mayWrite)
        try await lease.acquire()
        #expect(lease.mayWrite)
        #expect(lease.status == .holding(since: start))
        #expect(store.keys == [key])
        let written = try #require(store.data(key).flatMap(Lease.init(data:)))
        #expect(written.holder == Lease.Holder(host: "pod-a", pid: 7, id: "pod-a-id"))
        #expect(written.ttlSeconds == 30)
        #expect(written.acquiredAt == start)
        #expect(store.upload(key)?.contentType == "application/json")
        #expect(store.upload(key)?.cacheControl == "no-store")
        #expect(store.counts.puts == 1)
    }

    @Test func keysFollowThePrefixAndTheShard() throws {
        #expect(Lease.key(prefix: "", shard: nil) == ".state/lease.json")
        #expect(Lease.key(prefix: "team/widgets", shard: nil) == "team/widgets/.state/lease.json")
        #expect(Lease.key(prefix: "w/", shard: try Shard(parsing: "2/3")) == "w/.state/shards/2-of-3/lease.json")
    }

    @Test func leaseReadsBackWhatItWrites() {
        let lease = Lease(
            holder: Lease.Holder(host: "h", pid: 1, id: "x"), acquiredAt: start, renewedAt: start.addingTimeInterval(20), renewals: 2,
            ttlSeconds: 30)
        #expect(Lease(data: lease.data) == lease)
        #expect(Lease(data: Data("{\"holder\": 3}".utf8)) == nil)
    }

    @Test func aRenewedLeaseIsNeverTakenAndAReleasedOneIsTakenAtTheNextLook() async throws {
        let store = MemoryObjectStore()
        let clockA = ManualClock(now: start)
        let clockB = ManualClock(now: start)
        let logB = LogRecorder()
        let a = keeper("pod-a", store: store, clock: clockA)
        let b = keeper("pod-b", store: store, clock: clockB, log: logB)
        try await a.acquire()
        let keeping = Task { try await a.keep() }
        await clockA.waitForSleeper()
        let waiting = Task { try await b.acquire() }
        await clockB.waitForSleeper()
        guard case .waiting(let holder, let since, _) = b.status else {
            Issue.record("pod-b does not wait: \(b.status)")
            return
        }
        #expect(holder == "pod-a pid 7 (pod-a-id)")
        #expect(since == start)
        // Three TTLs in steps of a second, each machine in turn: pod-a renews every 10 s, so pod-b never
        // sees its entity tag unchanged for 30 s.
        for _ in 0..<90 {
            await advance(clockA, by: 1)
            await advance(clockB, by: 1)
            #expect(a.mayWrite)
            #expect(!b.mayWrite)
        }
        #expect(Lease(data: store.data(key) ?? Data())?.renewals == 9)
        // Said once, then at most once a TTL.
        let said = logB.records.filter { $0.event == "lease-waiting" }
        #expect((3...4).contains(said.count))
        #expect(said.first?.message.hasPrefix("waiting for the lease of shard 1/3, held by pod-a pid 7 (pod-a-id) since ") == true)
        keeping.cancel()
        try await keeping.value
        await a.release()
        #expect(!a.mayWrite)
        #expect(a.status == .released)
        #expect(store.keys.isEmpty)
        // pod-b looks every 5 s.
        clockB.advance(by: 5)
        try await waiting.value
        #expect(b.mayWrite)
        #expect(Lease(data: store.data(key) ?? Data())?.holder.host == "pod-b")
    }

    @Test func aLeaseUnchangedForAWholeTTLOnTheWaitersClockIsTakenOver() async throws {
        let store = MemoryObjectStore()
        // pod-a's wall clock is years behind: its dates must not make its lease look expired.
        let clockA = ManualClock(now: Date(timeIntervalSince1970: 1_000_000_000))
        let clockB = ManualClock(now: start)
        let logA = LogRecorder()
        let a = keeper("pod-a", store: store, clock: clockA, log: logA)
        let b = keeper("pod-b", store: store, clock: clockB)
        try await a.acquire()
        // pod-a hangs (it never renews); pod-b waits.
        let waiting = Task { try await b.acquire() }
        await clockB.waitForSleeper()
        await advance(clockB, by: 29)
        #expect(!b.mayWrite)
        #expect(store.data(key).flatMap(Lease.init(data:))?.holder.host == "pod-a")
        clockB.advance(by: 1)
        try await waiting.value
        #expect(b.mayWrite)
        #expect(store.data(key).flatMap(Lease.init(data:))?.holder.host == "pod-b")
        // pod-a wakes up: its first renewal is refused, and it stops writing at once.
        #expect(a.mayWrite)
        let keeping = Task { try await a.keep() }
        await clockA.waitForSleeper()
        clockA.advance(by: 10)
        await #expect(throws: LeaseError.lost(label: "shard 1/3", by: "pod-b pid 7 (pod-b-id)")) { try await keeping.value }
        #expect(!a.mayWrite)
        #expect(throws: LeaseError.self) { try a.checkHeld() }
        #expect(a.status == .lost(by: "pod-b pid 7 (pod-b-id)"))
        #expect(logA.records.contains { $0.event == "lease-lost" && $0.level == .error })
        // Letting go of a lost lease deletes nothing.
        await a.release()
        #expect(store.keys == [key])
    }

    @Test func twoWaitersOfAnExpiredLeaseNeverBothTakeIt() async throws {
        let store = MemoryObjectStore()
        let clockA = ManualClock(now: start)
        let clockB = ManualClock(now: start)
        let clockC = ManualClock(now: start)
        let a = keeper("pod-a", store: store, clock: clockA)
        let b = keeper("pod-b", store: store, clock: clockB)
        let c = keeper("pod-c", store: store, clock: clockC)
        try await a.acquire()
        let waitingB = Task { try await b.acquire() }
        await clockB.waitForSleeper()
        let waitingC = Task { try await c.acquire() }
        await clockC.waitForSleeper()
        await advance(clockB, by: 29)
        await advance(clockC, by: 29)
        // Both saw the lease unchanged for 30 s; pod-b asks first and gets it, pod-c's If-Match fails.
        clockB.advance(by: 1)
        try await waitingB.value
        clockC.advance(by: 1)
        await clockC.waitForSleeper()
        #expect(b.mayWrite)
        #expect(!c.mayWrite)
        guard case .waiting(let holder, _, _) = c.status else {
            Issue.record("pod-c does not wait: \(c.status)")
            return
        }
        #expect(holder == "pod-b pid 7 (pod-b-id)")
        waitingC.cancel()
        await #expect(throws: CancellationError.self) { try await waitingC.value }
    }

    @Test func writingStopsWhenRenewalsFailAndResumesWhenOneSucceeds() async throws {
        let store = MemoryObjectStore()
        let clock = ManualClock(now: start)
        let log = LogRecorder()
        let a = keeper("pod-a", store: store, clock: clock, log: log)
        try await a.acquire()
        let keeping = Task { try await a.keep() }
        await clock.waitForSleeper()
        store.goDown(.unreachable)
        await advance(clock, by: 24)
        #expect(a.mayWrite)
        await advance(clock, by: 1)
        // 25 s = TTL − 5 s after the last renewal: no more writes.
        #expect(!a.mayWrite)
        #expect(a.status == .unrenewed(since: start.addingTimeInterval(25)))
        #expect(log.records.contains { $0.event == "lease-unrenewed" && $0.level == .error })
        #expect(throws: Never.self) { try a.checkHeld() }
        store.comeBack()
        await advance(clock, by: 3)
        #expect(a.mayWrite)
        #expect(a.status == .holding(since: start))
        #expect(log.records.contains { $0.event == "lease-renewed" })
        keeping.cancel()
        try await keeping.value
    }

    @Test func releaseDeletesTheLeaseWithItsEntityTag() async throws {
        let store = MemoryObjectStore()
        let clock = ManualClock(now: start)
        let a = keeper("pod-a", store: store, clock: clock)
        try await a.acquire()
        await a.release()
        #expect(store.keys.isEmpty)
        #expect(store.counts.deletes == 1)
        #expect(!a.mayWrite)
        // Once more does nothing.
        await a.release()
        #expect(store.counts.deletes == 1)
    }

    @Test func aRefusingStoreEndsTheWaitAndATransientFailureDoesNot() async throws {
        let store = MemoryObjectStore()
        let clock = ManualClock(now: start)
        store.failNext([.denied])
        let refused = keeper("pod-a", store: store, clock: clock)
        await #expect(throws: ObjectStoreError.self) { try await refused.acquire() }
        store.failNext([.unreachable])
        let log = LogRecorder()
        let patient = keeper("pod-b", store: store, clock: clock, log: log)
        let waiting = Task { try await patient.acquire() }
        await clock.waitForSleeper()
        #expect(log.records.contains { $0.event == "lease-store-failed" })
        clock.advance(by: 5)
        try await waiting.value
        #expect(patient.mayWrite)
    }
}
