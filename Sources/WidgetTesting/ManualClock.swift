public import Foundation
import Synchronization
public import WidgetCore

/// A clock that moves only when a test moves it, so scheduling is tested without sleeping.
///
/// ```swift
/// let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
/// let daemon = WidgetDaemon(configuration: .init(…, clock: clock))
/// clock.advance(by: 15 * 60)   // wakes whatever slept until then
/// ```
public final class ManualClock: WidgetClock {
    private struct Sleeper {
        var id: Int
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
        /// Slept with `busy: true`: woken as any other, but not idle.
        var busy = false
    }

    private struct State {
        var now: Date
        var sleepers: [Sleeper] = []
        var nextID = 0
        var sleeperWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    /// A clock that reads `now` until a test advances it.
    public init(now: Date) {
        state = Mutex(State(now: now))
    }

    /// The clock's moment: where it was created or last advanced to.
    public func now() -> Date {
        state.withLock { $0.now }
    }

    /// How many tasks are sleeping idle on this clock.
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count { !$0.busy } }
    }

    /// Suspends as an idle sleeper until a test advances the clock to `deadline` or past it (returns at
    /// once when it is already there).
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    public func sleep(until deadline: Date) async throws {
        try await sleep(until: deadline, busy: false)
    }

    /// Suspends until a test advances the clock to `deadline` or past it (returns at once when it is
    /// already there). A `busy` sleeper is woken like any other but is not counted by ``sleeperCount``,
    /// ``earliestDeadline`` or ``waitForSleeper()``.
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    public func sleep(until deadline: Date, busy: Bool) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if deadline <= state.now || Task.isCancelled { return (true, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation, busy: busy))
                    if busy { return (false, []) }
                    defer { state.sleeperWaiters.removeAll() }
                    return (false, state.sleeperWaiters)
                }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
                for waiter in waiters { waiter.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// The earliest moment a task sleeping idle on this clock waits for, or `nil` when none sleeps.
    ///
    /// With ``waitForSleeper()`` this drives a scheduler through simulated days: wait until it idles,
    /// then jump to the moment it waits for.
    ///
    /// ```swift
    /// while true {
    ///     await clock.waitForSleeper()
    ///     guard let next = clock.earliestDeadline, next < end else { break }
    ///     clock.advance(to: next)
    /// }
    /// ```
    public var earliestDeadline: Date? {
        state.withLock { $0.sleepers.filter { !$0.busy }.map(\.deadline).min() }
    }

    /// Returns once at least one task sleeps idle on this clock (at once if one already does); a task
    /// sleeping with `busy: true` does not count.
    public func waitForSleeper() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.contains(where: { !$0.busy }) { return true }
                state.sleeperWaiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Moves the clock forward by `interval` seconds and wakes the sleepers that are due.
    public func advance(by interval: TimeInterval) {
        advance(to: now().addingTimeInterval(interval))
    }

    /// Moves the clock to `date` (never backwards) and wakes the sleepers that are due.
    public func advance(to date: Date) {
        let due = state.withLock { state -> [Sleeper] in
            if date > state.now { state.now = date }
            let due = state.sleepers.filter { $0.deadline <= state.now }
            state.sleepers.removeAll { $0.deadline <= state.now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
