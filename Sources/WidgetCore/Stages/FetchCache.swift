import Synchronization

/// The conditional-request memory of a stage that fetches many things in one refresh (the `fetch`
/// transform, one request per item): validators and parsed values by a key of the stage's choosing,
/// carried from one refresh to the next.
///
/// A source has one fetch, whose validators the pipeline keeps itself (``StageContext/validators``). A
/// transform that fetches reads what its requests earned last time with ``entry(for:)`` and keeps what
/// they earn now with ``keep(_:for:notModified:)``; the pipeline stores the kept entries with the
/// widget's state (under the transform's place, `transforms[1] (fetch) KEY`) and hands them back on the
/// next refresh. Only what a refresh keeps is handed back, so the entries of requests no longer made
/// are forgotten.
///
/// ```swift
/// let key = fingerprint(of: request)              // method, URL and body: one key per request
/// let cached = context.fetchCache.entry(for: key)  // send cached?.validators; on a 304 reuse cached.value
/// context.fetchCache.keep(CachedFetch(validators: validators, value: parsed), for: key, notModified: false)
/// ```
public final class FetchCache: Sendable {
    private let previous: [String: CachedFetch]
    private let state = Mutex<(kept: [String: CachedFetch], notModified: [String], requests: Int, bytes: Int)>(([:], [], 0, 0))

    /// A cache that hands out `previous`, what the stage kept last time, by key.
    public init(previous: [String: CachedFetch] = [:]) {
        self.previous = previous
    }

    /// What the stage kept for `key` at its last refresh, if anything.
    public func entry(for key: String) -> CachedFetch? {
        previous[key]
    }

    /// Keeps `entry` for `key` for the next refresh; `notModified` says the source answered "not
    /// modified" and the entry's value was reused.
    public func keep(_ entry: CachedFetch, for key: String, notModified: Bool) {
        state.withLock { state in
            state.kept[key] = entry
            if notModified { state.notModified.append(key) }
        }
    }

    /// Counts one answer of `bytes` bytes (0 for a "not modified"), for the widget's fetch metrics.
    public func recordFetch(bytes: Int) {
        state.withLock { state in
            state.requests += 1
            state.bytes += bytes
        }
    }

    /// How many answers ``recordFetch(bytes:)`` counted during this refresh, and their bytes.
    public var fetched: (requests: Int, bytes: Int) {
        state.withLock { ($0.requests, $0.bytes) }
    }

    /// Everything kept during this refresh, by key.
    public var kept: [String: CachedFetch] {
        state.withLock { $0.kept }
    }

    /// The keys whose requests were answered "not modified" during this refresh, in the order they were kept.
    public var notModifiedKeys: [String] {
        state.withLock { $0.notModified }
    }
}
