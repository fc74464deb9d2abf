public import Foundation
import Synchronization

/// The source of "now" for the scheduler, and a way to wait for a moment.
///
/// The daemon uses ``SystemClock``; tests use a manual clock (shipped in `WidgetTesting`) that they
/// advance by hand, so no test sleeps.
public protocol WidgetClock: Sendable {
    /// The current moment.
    func now() -> Date

    /// Suspends until `deadline` (returns at once when it has passed).
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    func sleep(until deadline: Date) async throws

    /// Like ``sleep(until:)``, said by a sleeper that is not idle: work it started is still under way
    /// (the daemon waiting for both its refreshes and its next due time). A manual clock wakes it like
    /// any sleeper but does not count it when a test waits for the daemon to idle.
    func sleep(until deadline: Date, busy: Bool) async throws
}

extension WidgetClock {
    /// Sleeps with ``sleep(until:)``, ignoring `busy`: only a clock that counts sleepers tells them apart.
    public func sleep(until deadline: Date, busy: Bool) async throws {
        try await sleep(until: deadline)
    }
}

/// Wall-clock time.
public struct SystemClock: WidgetClock {
    /// Creates the clock; it has no state.
    public init() {}

    /// The current date from the system clock.
    public func now() -> Date { Date() }

    /// Suspends until the system clock reaches `deadline`; returns at once when it has passed.
    ///
    /// The wait is made in steps of at most a minute, so a change of the system clock is noticed within one.
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    public func sleep(until deadline: Date) async throws {
        // Sleep in bounded steps so a change of the system clock is noticed within a minute.
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return }
            try await DispatchSleep.sleep(seconds: min(remaining, 60))
        }
    }
}

/// A sleep on a Dispatch timer that a cancellation ends for good.
///
/// A cancelled `Task.sleep` returns at once but leaves its wake-up queued until the time it asked for (on
/// Linux, about 750 bytes held for up to the whole sleep); the daemon cancels a sleep every time a refresh
/// finishes, so those would pile up with the refresh rate. A cancelled timer source is released at once.
enum DispatchSleep {
    private final class State: Sendable {
        private let inner = Mutex<
            (continuation: CheckedContinuation<Void, any Error>?, timer: (any DispatchSourceTimer)?, cancelled: Bool)
        >(
            (nil, nil, false))

        /// Starts the timer unless the sleep was cancelled first.
        func start(_ continuation: CheckedContinuation<Void, any Error>, seconds: Double) {
            let cancelled = inner.withLock { state -> Bool in
                if state.cancelled { return true }
                state.continuation = continuation
                let timer = DispatchSource.makeTimerSource(queue: .global())
                timer.schedule(deadline: .now() + .nanoseconds(Int(max(0, min(seconds, 1e9)) * 1e9)))
                timer.setEventHandler { [weak self] in self?.finish(nil) }
                timer.resume()
                state.timer = timer
                return false
            }
            if cancelled { continuation.resume(throwing: CancellationError()) }
        }

        /// Ends the sleep once: normally (`error` nil) or with `error`.
        func finish(_ error: (any Error)?) {
            let continuation = inner.withLock { state in
                if error != nil { state.cancelled = true }
                state.timer?.cancel()
                state.timer = nil
                let continuation = state.continuation
                state.continuation = nil
                return continuation
            }
            if let error { continuation?.resume(throwing: error) } else { continuation?.resume() }
        }
    }

    /// Suspends for `seconds`.
    ///
    /// - Throws: `CancellationError` when the task is cancelled, at once.
    static func sleep(seconds: Double) async throws {
        let state = State()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                state.start(continuation, seconds: seconds)
            }
        } onCancel: {
            state.finish(CancellationError())
        }
    }
}
