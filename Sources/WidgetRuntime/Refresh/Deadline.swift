import Dispatch
import Synchronization

/// Runs work that must end by a deadline, without waiting for work that does not stop when asked.
///
/// A task group would wait for its child to return even after cancelling it; a stage stuck in a system
/// call or a loop that does not check for cancellation would then hold the caller, and the daemon with
/// it. Here the work runs in a task of its own, on a thread of its own (a ``ThreadExecutor``): at the
/// deadline (or when the caller is cancelled) it is cancelled and the caller returns at once; whatever the
/// work still does afterwards is ignored, and the stages stop it at their next cancellation check.
enum Deadline {
    /// The deadline passed before the work finished.
    struct Exceeded: Error, Sendable {}

    /// The result of `operation`, or ``Exceeded`` when `limit` passes first, or `CancellationError`
    /// when the calling task is cancelled first; in both cases `operation`'s task is cancelled.
    static func run<T: Sendable>(
        within limit: Duration, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let outcome = Outcome<T>()
        let timer = Timer()
        // On a thread of its own: a stage that keeps a core busy until the deadline does not hold one of the
        // few threads every other task needs. The work reports its own result from that thread, so a
        // refresh that finished in time is never taken for a late one while other tasks keep every thread
        // of Swift's shared pool busy.
        let work = Task(executorPreference: ThreadExecutor()) {
            let result: Result<T, any Error>
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            _ = outcome.resolve(result)
            timer.cancel()
        }
        // A timer of `DeadlineTimers`, not a sleeping task: a cancelled `Task.sleep` leaves its wake-up
        // queued until the time it was asked for (about 750 bytes for the whole deadline, a minute by
        // default, for every refresh); a cancelled timer keeps 16 bytes at most, and its handler is
        // released at once.
        timer.start(after: limit) {
            if outcome.resolve(.failure(Exceeded())) { work.cancel() }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                outcome.attach(continuation)
            }
        } onCancel: {
            if outcome.resolve(.failure(CancellationError())) {
                work.cancel()
                timer.cancel()
            }
        }
    }

    /// A timer that may be cancelled before it starts: it then never starts.
    private final class Timer: Sendable {
        private struct State {
            var token: UInt64?
            var cancelled = false
        }

        private let state = Mutex(State())

        func start(after limit: Duration, _ handler: @escaping @Sendable () -> Void) {
            let (seconds, attoseconds) = limit.components
            let nanoseconds = max(0, seconds).multipliedReportingOverflow(by: 1_000_000_000)
            let delay = nanoseconds.overflow ? Int64.max : nanoseconds.partialValue &+ max(0, attoseconds) / 1_000_000_000
            state.withLock { state in
                guard !state.cancelled else { return }
                state.token = DeadlineTimers.shared.schedule(after: UInt64(clamping: delay), handler)
            }
        }

        func cancel() {
            state.withLock { state in
                state.cancelled = true
                if let token = state.token { DeadlineTimers.shared.cancel(token) }
                state.token = nil
            }
        }
    }

    private final class Outcome<T: Sendable>: Sendable {
        private struct State {
            var result: Result<T, any Error>?
            var continuation: CheckedContinuation<T, any Error>?
            var resumed = false

            /// The continuation, once: nil when it is not attached yet or already resumed.
            mutating func take() -> CheckedContinuation<T, any Error>? {
                guard !resumed, let continuation else { return nil }
                resumed = true
                self.continuation = nil
                return continuation
            }
        }

        private let state = Mutex(State())

        /// Records `result` if none was; returns whether it was the first.
        func resolve(_ result: Result<T, any Error>) -> Bool {
            let (first, continuation) = state.withLock { state -> (Bool, CheckedContinuation<T, any Error>?) in
                guard state.result == nil else { return (false, nil) }
                state.result = result
                return (true, state.take())
            }
            continuation?.resume(with: result)
            return first
        }

        func attach(_ continuation: CheckedContinuation<T, any Error>) {
            let ready = state.withLock { state -> (CheckedContinuation<T, any Error>, Result<T, any Error>)? in
                state.continuation = continuation
                guard let result = state.result, let taken = state.take() else { return nil }
                return (taken, result)
            }
            if let (continuation, result) = ready { continuation.resume(with: result) }
        }
    }
}
