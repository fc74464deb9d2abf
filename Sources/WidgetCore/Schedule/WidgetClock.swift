public import Foundation

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
    public func sleep(until deadline: Date, busy: Bool) async throws {
        try await sleep(until: deadline)
    }
}

/// Wall-clock time.
public struct SystemClock: WidgetClock {
    public init() {}

    public func now() -> Date { Date() }

    public func sleep(until deadline: Date) async throws {
        // Sleep in bounded steps so a change of the system clock is noticed within a minute.
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return }
            try await Task.sleep(for: .seconds(min(remaining, 60)))
        }
    }
}
