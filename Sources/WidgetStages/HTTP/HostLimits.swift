public import Foundation
import Synchronization
public import WidgetCore
import WidgetLiquid

/// What every widget of the runtime keeps to for a host, shared through the stage resources: a server's
/// `Retry-After` and the per-host rates of ``HostSettings``.
///
/// - A 429 or 503 with `Retry-After` holds back the whole origin (scheme, host and port) until then:
///   no request is sent to it by any widget, and each refresh that would send one fails at once with
///   `held back by api.example.com until 2026-11-28T22:10:00Z (Retry-After)`, so it falls back as any
///   failed fetch does and retries when the hold ends.
/// - A host with a `perMinute` in ``HostSettings`` is sent at most that many requests in any minute;
///   a request over the rate waits for a free slot, unless that slot comes after its deadline.
///
/// Time is read from ``clock`` (the daemon's), so a test drives both with a manual clock. The runtime
/// puts one in the stage resources; without one, nothing is held or limited.
///
/// ```swift
/// var resources = StageResources()
/// resources.insert(HostLimits(clock: SystemClock(), settings: try HostSettings.load(folder: "widgets.d")))
/// ```
public final class HostLimits: Sendable {
    /// The clock holds and rates are measured by, and pages wait on.
    public let clock: any WidgetClock
    /// The per-host rates.
    public let settings: HostSettings

    private struct State {
        /// Until when each origin is held back.
        var holds: [String: Date] = [:]
        /// The times of the requests sent (or booked) in the last minute, sorted, by settings host name.
        var sent: [String: [Date]] = [:]
    }

    private let state = Mutex(State())

    /// Limits read with `clock`, with the rates of `settings`.
    public init(clock: any WidgetClock = SystemClock(), settings: HostSettings = HostSettings()) {
        self.clock = clock
        self.settings = settings
    }

    /// Until when requests to `url`'s origin are held back, when they are.
    public func heldUntil(_ url: URL) -> Date? {
        let now = clock.now()
        let key = HTTPClient.origin(of: url)
        return state.withLock { state in
            guard let until = state.holds[key] else { return nil }
            if until <= now {
                state.holds[key] = nil
                return nil
            }
            return until
        }
    }

    /// Holds back `url`'s origin for `seconds` from now (a later hold stands).
    public func hold(_ url: URL, seconds: Double) {
        guard seconds > 0 else { return }
        let until = clock.now().addingTimeInterval(min(seconds, RefreshPolicy.longestRetryAfter))
        let key = HTTPClient.origin(of: url)
        state.withLock { state in
            state.holds[key] = max(state.holds[key] ?? until, until)
        }
    }

    /// Waits until a request to `url` is within its host's rate, and books it; returns at once for a
    /// host without a rate.
    ///
    /// - Parameters:
    ///   - url: Where the request goes; its host's entry in ``settings`` sets the rate.
    ///   - deadline: The latest the request may be sent (by ``clock``).
    /// - Throws: A `StageError` when the next free slot comes after `deadline` (nothing is booked), or
    ///   `CancellationError` when the waiting task is cancelled.
    public func admit(_ url: URL, deadline: Date) async throws {
        guard let (name, host) = settings.host(for: url), let perMinute = host.perMinute else { return }
        let now = clock.now()
        let slot: Date? = state.withLock { state in
            var times = state.sent[name, default: []]
            times.removeAll { $0 <= now.addingTimeInterval(-60) }
            let slot = times.count < perMinute ? now : max(now, times[times.count - perMinute].addingTimeInterval(60))
            guard slot <= deadline else {
                state.sent[name] = times
                return nil
            }
            times.insert(slot, at: times.firstIndex { $0 > slot } ?? times.count)
            state.sent[name] = times
            return slot
        }
        guard let slot else {
            throw StageError(
                "\(name) allows \(perMinute) requests a minute (\(HostSettings.fileName)) and its next free slot is after this fetch's deadline; raise its perMinute or refresh less often"
            )
        }
        if slot > now { try await clock.sleep(until: slot) }
    }
}

extension HTTPRequest {
    /// The failure of a request held back by `until`: `held back by api.example.com until … (Retry-After)`,
    /// with the seconds left as the error's `retryAfter`.
    func heldBackError(until: Date, now: Date) -> StageError {
        StageError(
            "held back by \(hostDescription) until \(InternetDate.iso8601(until)) (Retry-After): it asked every widget to wait, so no request was sent",
            retryAfter: max(0, until.timeIntervalSince(now)))
    }
}
