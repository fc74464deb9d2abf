/// What a transfer received over a sliding window, to enforce ``HTTPRequest/minimumRate``: a transfer
/// that brings fewer bytes than the minimum in a window, once its response has begun, gives its place
/// back and fails rather than holding it until its deadline.
///
/// The window starts with the first byte of the response (before it, the silence limit applies) and
/// slides with the checks, which come at least once a second; it keeps a few samples a second.
///
/// ```swift
/// var progress = TransferProgress(minimum: 1024, window: 10)
/// progress.isFastEnough(received: attempt.received, at: DispatchTime.now().uptimeNanoseconds)
/// ```
struct TransferProgress {
    /// The fewest bytes in any window; 0 turns the check off.
    let minimum: Int
    /// The window, in nanoseconds.
    let window: UInt64
    /// When the response began and what had arrived at each sample since, oldest first.
    private var samples: [(time: UInt64, received: Int)] = []
    /// How many bytes arrived in the last window when the check failed.
    private(set) var receivedInWindow = 0

    /// The gap between two samples, in nanoseconds.
    private static let sampleGap: UInt64 = 250_000_000

    /// A check of at least `minimum` bytes in any `window` seconds.
    init(minimum: Int, window seconds: Double) {
        self.minimum = minimum
        let nanoseconds = max(0, seconds) * 1e9
        window = nanoseconds < 1e18 ? UInt64(nanoseconds) : UInt64(1e18)
    }

    /// The check for `request`'s ``HTTPRequest/minimumRate``, over ``HTTPRequest/minimumRateWindow``.
    init(_ request: HTTPRequest) {
        self.init(minimum: request.minimumRate.bytes, window: request.minimumRateWindow)
    }

    /// The window in seconds, for messages.
    var windowSeconds: Double { Double(window) / 1e9 }

    /// Records that `received` bytes had arrived in all at `now` (nanoseconds of uptime); `false` when
    /// the response began at least a window ago and fewer than ``minimum`` bytes arrived in the last one.
    mutating func isFastEnough(received: Int, at now: UInt64) -> Bool {
        guard minimum > 0, received > 0 else { return true }
        guard let first = samples.first else {
            samples.append((now, 0))
            return true
        }
        if let last = samples.last, now >= last.time, now - last.time >= Self.sampleGap { samples.append((now, received)) }
        guard now >= first.time, now - first.time >= window else { return true }
        // The newest sample at or before the window's start.
        let start = now - window
        while samples.count > 1, samples[1].time <= start { samples.removeFirst() }
        receivedInWindow = received - samples[0].received
        return receivedInWindow >= minimum
    }
}
