public import Foundation
public import WidgetCore

/// This machine's monotonic clock, as a `WidgetClock`: what ``LeaseKeeper`` measures its TTLs with.
///
/// A lease is decided by how long something stayed unchanged, never by what another machine's clock
/// says, and never by this machine's wall clock either (NTP or an operator may move it). This clock
/// counts seconds since it was created, on `ContinuousClock` (which goes on while the machine
/// sleeps); its ``now()`` is a `Date` that far after the reference date, meaningful only next to
/// another reading of the same clock.
public struct LeaseClock: WidgetClock {
    private let start = ContinuousClock.now

    /// A clock that starts counting now.
    public init() {}

    /// The seconds since this clock was made, as a `Date` after the reference date.
    public func now() -> Date {
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    /// Suspends until this clock reads `deadline`; returns at once when it has passed.
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    public func sleep(until deadline: Date) async throws {
        let remaining = deadline.timeIntervalSince(now())
        guard remaining > 0 else { return }
        try await Task.sleep(for: .milliseconds(Int64((remaining * 1000).rounded(.up))))
    }
}
