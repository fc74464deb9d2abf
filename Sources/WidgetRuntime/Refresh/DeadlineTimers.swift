import Dispatch
import Foundation
import Synchronization

/// The timers of every refresh's ``Deadline``, kept by one thread: a heap of due times, and a wait on a
/// semaphore until the earliest (`DispatchTime`, which does not follow changes of the wall clock).
///
/// A Dispatch timer source for each refresh, armed and then cancelled a moment later when the refresh
/// ended in time, goes through Dispatch's manager thread twice: in a profile of `run --once` over 1,000
/// widgets that was about 3% of the samples. Here arming a timer is a push on the heap, and waking the
/// thread is needed only when the new timer is the earliest; a cancelled timer leaves its 16-byte entry
/// in the heap until it comes up, and the heap is rebuilt from the live timers when cancelled ones
/// outnumber them.
final class DeadlineTimers: Sendable {
    /// The timers every deadline in the process shares.
    static let shared = DeadlineTimers()

    private struct State {
        var heap = MinHeap<Entry>()
        /// The live timers' handlers, by token: a cancelled timer has none.
        var handlers: [UInt64: @Sendable () -> Void] = [:]
        var nextToken: UInt64 = 0
        /// When the thread wakes next (`UInt64.max`: only when signalled), or nil once it is awake.
        var sleepingUntil: UInt64? = nil
        var threadStarted = false
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Calls `handler` on the timers' thread `nanoseconds` from now, unless ``cancel(_:)`` is called
    /// first; returns the timer's token.
    func schedule(after nanoseconds: UInt64, _ handler: @escaping @Sendable () -> Void) -> UInt64 {
        let at = DispatchTime.now().uptimeNanoseconds &+ nanoseconds
        let (token, signal, start) = state.withLock { state -> (UInt64, Bool, Bool) in
            state.nextToken += 1
            let token = state.nextToken
            state.handlers[token] = handler
            state.heap.push(Entry(at: at < .max ? at : .max - 1, token: token))
            let start = !state.threadStarted
            state.threadStarted = true
            // The thread sleeps past this timer: wake it to wait for this one instead.
            let signal = state.sleepingUntil.map { at < $0 } ?? false
            if signal { state.sleepingUntil = nil }
            return (token, signal, start)
        }
        if start { startThread() }
        if signal { wake.signal() }
        return token
    }

    /// Cancels the timer `token`: its handler is not called, if it has not been already.
    func cancel(_ token: UInt64) {
        state.withLock { state in
            guard state.handlers.removeValue(forKey: token) != nil else { return }
            // Cancelled entries stay in the heap until they come up; many of them are dropped at once.
            let (entries, live) = (state.heap.count, state.handlers.count)
            if entries > 64 && entries > 2 * live {
                let handlers = state.handlers
                state.heap.filter { handlers[$0.token] != nil }
            }
        }
    }

    /// The heap's entries and the live timers among them, for tests.
    var counts: (entries: Int, live: Int) {
        state.withLock { ($0.heap.count, $0.handlers.count) }
    }

    /// Whether the thread is waiting for a timer, for tests.
    var isWaiting: Bool {
        state.withLock { $0.sleepingUntil != nil }
    }

    private func startThread() {
        let thread = Thread { [self] in run() }
        thread.name = "widgetd deadlines"
        thread.start()
    }

    private func run() {
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let next = state.withLock { state -> Either in
                while let top = state.heap.first {
                    guard top.at <= now else {
                        state.sleepingUntil = top.at
                        return .sleep(until: top.at)
                    }
                    state.heap.removeFirst()
                    if let handler = state.handlers.removeValue(forKey: top.token) { return .fire(handler) }
                }
                state.sleepingUntil = .max
                return .sleep(until: .max)
            }
            switch next {
            case .fire(let handler):
                handler()
            case .sleep(let until):
                _ = wake.wait(timeout: until == .max ? .distantFuture : DispatchTime(uptimeNanoseconds: until))
                state.withLock { $0.sleepingUntil = nil }
            }
        }
    }

    private enum Either {
        case fire(@Sendable () -> Void)
        case sleep(until: UInt64)
    }
}

extension DeadlineTimers {
    /// A timer's entry in the heap: when it fires, and which timer.
    struct Entry: Comparable {
        var at: UInt64
        var token: UInt64

        static func < (left: Entry, right: Entry) -> Bool { left.at < right.at }
    }
}
