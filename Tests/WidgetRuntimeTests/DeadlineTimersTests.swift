import Foundation
import Synchronization
import Testing

@testable import WidgetRuntime

struct DeadlineTimersTests {
    /// A timer due before the one the thread is waiting for fires on time: the thread is woken for it.
    @Test(.timeLimit(.minutes(5))) func anEarlierTimerWakesTheThread() async {
        let timers = DeadlineTimers()
        let late = Atomic<Bool>(false)
        _ = timers.schedule(after: 3_600_000_000_000) { late.store(true, ordering: .relaxed) }
        // Once the thread waits for the hour-long timer, add one due now.
        while !timers.isWaiting { await Task.yield() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _ = timers.schedule(after: 0) { continuation.resume() }
        }
        let lateFired = late.load(ordering: .relaxed)
        #expect(!lateFired)
        #expect(timers.counts.entries == 1)
        #expect(timers.counts.live == 1)
    }

    /// The heap gives timers earliest first, whatever the order they were set in, and keeps that order
    /// when cancelled entries are dropped.
    @Test func theHeapGivesTimersEarliestFirst() {
        var heap = MinHeap<DeadlineTimers.Entry>()
        let times: [UInt64] = [30, 10, 40, 20, 50, 5, 35, 15, 45, 25]
        for (token, at) in times.enumerated() { heap.push(.init(at: at, token: UInt64(token))) }
        heap.filter { $0.token != 6 }  // 35
        var order: [UInt64] = []
        while let first = heap.first {
            order.append(first.at)
            heap.removeFirst()
        }
        #expect(order == [5, 10, 15, 20, 25, 30, 40, 45, 50])
    }

    /// A cancelled timer does not fire and its handler is released; the heap drops cancelled entries
    /// once they outnumber the live timers.
    @Test func cancelledTimersAreDroppedFromTheHeap() {
        let timers = DeadlineTimers()
        let tokens = (0..<200).map { _ in timers.schedule(after: 3_600_000_000_000) {} }
        #expect(timers.counts.entries == 200)
        #expect(timers.counts.live == 200)
        for token in tokens.dropLast() { timers.cancel(token) }
        #expect(timers.counts.live == 1)
        #expect(timers.counts.entries <= 64)
        timers.cancel(tokens[tokens.count - 1])
        timers.cancel(tokens[tokens.count - 1])
        #expect(timers.counts.live == 0)
    }
}
