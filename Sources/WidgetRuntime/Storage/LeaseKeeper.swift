public import Foundation
import Synchronization
public import WidgetCore
import WidgetJSON
public import WidgetObjectStorage

/// One writer per shard of a bucket output: takes the shard's lease object, renews it, tells the
/// output whether it may write, and lets it go on a graceful stop.
///
/// The rules, with the default TTL of 30 s:
/// - **Taking it.** ``acquire()`` creates the lease with `If-None-Match: *`. When the store answers
///   412, another process holds it: the keeper reads it and waits, looking every TTL/6 (5 s). It
///   takes the lease over (`If-Match` with the entity tag it saw) only once it saw the same entity tag
///   unchanged for a whole TTL on this machine's monotonic clock; a 412 then means a third process was
///   faster, and it waits again. A lease deleted by its holder (a graceful stop) is created at the next
///   look. While waiting it logs who holds the lease and since when, once and then at most every TTL.
/// - **Keeping it.** ``keep()`` renews every TTL/3 (10 s) with `If-Match: <its entity tag>`; each
///   renewal writes new bytes (its count and time), so it gets a new entity tag that waiting processes
///   see change. A renewal that fails for a transient reason is tried again every TTL/10 (3 s).
/// - **Writing.** ``mayWrite`` is true only while the last successful renewal (timed from when its
///   request was sent) is younger than TTL − 5 s (TTL·5/6 for a TTL under 30 s), and no renewal got 412.
///   A waiting process can take the lease no sooner than a whole TTL after the renewal it last saw, by
///   its own clock, so the holder stops writing at least 5 s before anyone else may start.
/// - **Losing it.** When the store is unreachable for longer than that, ``mayWrite`` turns false and
///   the keeper keeps trying: a renewal that succeeds (still `If-Match` on its entity tag) proves
///   nobody took the lease, and writing resumes. A renewal answered 412 means another process took it:
///   ``keep()`` throws ``LeaseError`` at once, ``mayWrite`` is false for good, and `widgetd run` stops
///   with an error (exit 1), so that its supervisor starts it again into waiting.
/// - **Letting go.** ``release()`` deletes the lease with `If-Match`, after the output is drained, so
///   the next process takes it at its next look instead of a TTL later.
///
/// ```swift
/// let lease = LeaseKeeper(store: client, key: Lease.key(prefix: "widgets/", shard: shard), label: "shard 1/3")
/// try await lease.acquire()            // waits while another holds it
/// async let kept: Void = lease.keep()  // renews until cancelled; throws when the lease is lost
/// output.mayWrite = { lease.mayWrite }
/// ```
public final class LeaseKeeper: Sendable {
    /// The time a lease counts without a renewal, by default: 30 s.
    public static let defaultTTL: Double = 30

    /// Where the keeper stands, for `status` and a service manager.
    public enum Status: Sendable, Equatable {
        /// Not started.
        case idle
        /// Another process holds the lease (`holder`, or nil when its object cannot be read); the dates
        /// are by this machine's wall clock, except `heldSince`, the holder's own `acquiredAt`.
        case waiting(holder: String?, heldSince: Date?, waitingSince: Date)
        /// This process holds the lease and may write; since when, by the wall clock.
        case holding(since: Date)
        /// This process holds the lease, but its last renewal is too old to write: the store does not
        /// answer. Since when it stopped writing.
        case unrenewed(since: Date)
        /// Another process took the lease; this one must not write again.
        case lost(by: String?)
        /// This process let the lease go.
        case released
    }

    private struct State {
        var status: Status = .idle
        /// The entity tag of the lease as this process last wrote it.
        var etag: String?
        /// The monotonic time the last successful write of the lease was sent.
        var renewedAt: Date?
        var acquiredAt = Date(timeIntervalSince1970: 0)
        var renewals = 0
        var lost = false
        var released = false
    }

    /// The store the lease lives in.
    public let store: any ObjectStore
    /// The lease object's key.
    public let key: String
    /// What the lease is of, for messages: `shard 1/3`, or `s3://bucket/prefix`.
    public let label: String
    /// This process, as written into the lease.
    public let holder: Lease.Holder
    /// How long the lease counts without a renewal, in seconds.
    public let ttl: Double
    private let clock: any WidgetClock
    private let wallClock: any WidgetClock
    private let log: @Sendable (LogRecord) -> Void
    private let onChange: @Sendable (Status) -> Void
    private let state = Mutex(State())

    /// A keeper of the lease `key` in `store`; nothing is sent before ``acquire()``.
    ///
    /// - Parameters:
    ///   - store: the bucket that holds the lease.
    ///   - key: the lease's key in the bucket (`PREFIX/.state/lease.json`, or the shard's).
    ///   - label: what the lease is of, in messages (`shard 1/3`).
    ///   - holder: who this process is, as the lease names it.
    ///   - ttl: how long the lease counts without a renewal (at least 3 s).
    ///   - clock: the monotonic clock every duration is measured on (tests pass a manual one).
    ///   - wallClock: the clock of the dates written into the lease and shown in `status`.
    ///   - log: where the keeper reports (waiting, taken, lost, released).
    ///   - onChange: called with each new ``Status``.
    public init(
        store: any ObjectStore, key: String, label: String, holder: Lease.Holder = .thisProcess(), ttl: Double = LeaseKeeper.defaultTTL,
        clock: any WidgetClock = LeaseClock(), wallClock: any WidgetClock = SystemClock(),
        log: @escaping @Sendable (LogRecord) -> Void = { _ in }, onChange: @escaping @Sendable (Status) -> Void = { _ in }
    ) {
        self.store = store
        self.key = key
        self.label = label
        self.holder = holder
        self.ttl = max(3, ttl)
        self.clock = clock
        self.wallClock = wallClock
        self.log = log
        self.onChange = onChange
    }

    // MARK: - Timing

    /// How long before the TTL the holder stops writing: 5 s, or a sixth of a TTL under 30 s.
    public var margin: Double { min(5, ttl / 6) }
    /// How often the holder renews: every TTL/3.
    public var renewalInterval: Double { ttl / 3 }
    /// How often a waiting process looks at the lease: every TTL/6.
    public var pollInterval: Double { ttl / 6 }
    /// How soon a renewal that failed for a transient reason is tried again: TTL/10.
    public var retryInterval: Double { ttl / 10 }

    /// Where the keeper stands.
    public var status: Status { state.withLock { $0.status } }

    /// Whether this process may write to the output now: it holds the lease, renewed it less than
    /// TTL − ``margin`` ago, and no renewal was refused.
    public var mayWrite: Bool {
        let now = clock.now()
        return state.withLock { state in
            guard !state.lost, !state.released, let renewed = state.renewedAt else { return false }
            return now.timeIntervalSince(renewed) < ttl - margin
        }
    }

    /// Throws once the lease is lost (a renewal answered 412): the daemon's check before each wave and
    /// each write, which stops it. A lease that is only late to renew does not throw (``mayWrite``
    /// holds the writes back meanwhile).
    ///
    /// - Throws: ``LeaseError`` saying who took the lease.
    public func checkHeld() throws(LeaseError) {
        let status = state.withLock { $0.lost ? $0.status : nil }
        if case .lost(let by) = status { throw LeaseError.lost(label: label, by: by) }
    }

    private func set(_ status: Status, _ change: (inout State) -> Void = { _ in }) {
        let changed = state.withLock { state -> Bool in
            change(&state)
            guard state.status != status else { return false }
            state.status = status
            return true
        }
        if changed { onChange(status) }
    }

    private func body(acquiredAt: Date, renewals: Int) -> ObjectUpload {
        let lease = Lease(holder: holder, acquiredAt: acquiredAt, renewedAt: wallClock.now(), renewals: renewals, ttlSeconds: ttl)
        return ObjectUpload(data: lease.data, contentType: "application/json", cacheControl: "no-store")
    }

    // MARK: - Taking

    /// Takes the lease, waiting as long as another process holds it (see the rules above).
    ///
    /// Transient store failures are logged and tried again at the next look.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while waiting; `ObjectStoreError`
    ///   when the store refuses for good (a wrong key: `denied`; a missing bucket: `noSuchBucket`).
    public func acquire() async throws {
        var seen: (etag: String, at: Date)?
        var lastLogged: Date?
        var lastFailureLogged: Date?
        var create = true
        let waitingSince = wallClock.now()
        while true {
            try Task.checkCancellation()
            if create {
                let sent = clock.now()
                let acquiredAt = wallClock.now()
                switch await write(.ifNoneMatch, acquiredAt: acquiredAt, renewals: 0) {
                case .success(let etag):
                    taken(etag: etag, sent: sent, acquiredAt: acquiredAt, from: nil)
                    return
                case .failure(let error) where error.kind == .preconditionFailed:
                    create = false
                case .failure(let error) where error.isTransient:
                    logFailure(error, &lastFailureLogged)
                    try await clock.sleep(until: clock.now().addingTimeInterval(pollInterval))
                    continue
                case .failure(let error):
                    throw error
                }
            }
            let current: StoredObject
            switch await read() {
            case .success(let object?):
                current = object
            case .success(nil):
                // Let go (a graceful stop) between the two requests: create it now.
                create = true
                continue
            case .failure(let error) where error.isTransient:
                logFailure(error, &lastFailureLogged)
                try await clock.sleep(until: clock.now().addingTimeInterval(pollInterval))
                continue
            case .failure(let error):
                throw error
            }
            let now = clock.now()
            if seen?.etag != current.etag { seen = (current.etag, now) }
            let unchangedSince = seen?.at ?? now
            let lease = Lease(data: current.data)
            // A holder with a longer TTL than ours is given its own.
            let expiry = max(ttl, lease?.ttlSeconds ?? 0)
            set(.waiting(holder: lease?.holder.description, heldSince: lease?.acquiredAt, waitingSince: waitingSince))
            if lastLogged.map({ now.timeIntervalSince($0) >= expiry }) ?? true {
                lastLogged = now
                logWaiting(lease, expiry: expiry)
            }
            if now.timeIntervalSince(unchangedSince) >= expiry {
                let sent = clock.now()
                let acquiredAt = wallClock.now()
                switch await write(.ifMatch(current.etag), acquiredAt: acquiredAt, renewals: 0) {
                case .success(let etag):
                    taken(etag: etag, sent: sent, acquiredAt: acquiredAt, from: lease)
                    return
                case .failure(let error) where error.kind == .preconditionFailed:
                    // Another waiting process took it first, or the holder renewed at the last moment.
                    continue
                case .failure(let error) where error.isTransient:
                    logFailure(error, &lastFailureLogged)
                case .failure(let error):
                    throw error
                }
            }
            let next = min(now.addingTimeInterval(pollInterval), unchangedSince.addingTimeInterval(expiry))
            try await clock.sleep(until: max(next, now.addingTimeInterval(0.001)))
        }
    }

    /// Writes the lease with `condition`: its new entity tag, or why not.
    private func write(_ condition: WriteCondition, acquiredAt: Date, renewals: Int) async -> Result<String, ObjectStoreError> {
        do {
            return .success(try await store.put(key, body(acquiredAt: acquiredAt, renewals: renewals), condition: condition))
        } catch {
            return .failure(error)
        }
    }

    /// Reads the lease: the object, nil when there is none, or why not.
    private func read() async -> Result<StoredObject?, ObjectStoreError> {
        do {
            return .success(try await store.get(key))
        } catch {
            return .failure(error)
        }
    }

    private func taken(etag: String, sent: Date, acquiredAt: Date, from previous: Lease?) {
        set(.holding(since: acquiredAt)) { state in
            state.etag = etag
            state.renewedAt = sent
            state.acquiredAt = acquiredAt
            state.renewals = 0
        }
        let message =
            previous.map {
                "took over the lease of \(label) from \($0.holder), whose last renewal stayed unchanged for \(Int(max(ttl, $0.ttlSeconds))) s"
            } ?? "took the lease of \(label) (\(holder)); renewing it every \(Self.seconds(renewalInterval)), TTL \(Self.seconds(ttl))"
        log(
            LogRecord(
                .notice, "lease-acquired", message,
                details: ["lease": .string(key), "holder": .string(holder.description), "ttlSeconds": .number(WidgetNumber(Int(ttl)))]))
    }

    private func logWaiting(_ lease: Lease?, expiry: Double) {
        let who = lease.map {
            "held by \($0.holder) since \(Timestamp.string($0.acquiredAt)), last renewed \(Timestamp.string($0.renewedAt))"
        }
        let message =
            "waiting for the lease of \(label), \(who ?? "held by a process whose lease object cannot be read"); "
            + "it is taken over once unchanged for \(Self.seconds(expiry))"
        var details: WidgetObject = ["lease": .string(key)]
        if let lease {
            details["holder"] = .string(lease.holder.description)
            details["heldSince"] = .string(Timestamp.string(lease.acquiredAt))
        }
        log(LogRecord(.warning, "lease-waiting", message, details: details))
    }

    private func logFailure(_ error: ObjectStoreError, _ lastLogged: inout Date?) {
        let now = clock.now()
        guard lastLogged.map({ now.timeIntervalSince($0) >= ttl }) ?? true else { return }
        lastLogged = now
        log(
            LogRecord(
                .warning, "lease-store-failed", "the lease of \(label) cannot be read or written now: \(error); trying again",
                error: error.message))
    }

    // MARK: - Keeping

    /// Renews the lease every TTL/3 until the task is cancelled (then it returns).
    ///
    /// - Throws: ``LeaseError`` when a renewal is answered 412: another process took the lease. Call it
    ///   after ``acquire()`` returned.
    public func keep() async throws(LeaseError) {
        var failures = 0
        var next = state.withLock { $0.renewedAt ?? clock.now() }.addingTimeInterval(renewalInterval)
        while true {
            do {
                try await clock.sleep(until: next)
            } catch {
                return
            }
            if Task.isCancelled { return }
            let held = state.withLock { state -> (etag: String, acquiredAt: Date, renewals: Int)? in
                guard let etag = state.etag, !state.released, !state.lost else { return nil }
                return (etag, state.acquiredAt, state.renewals + 1)
            }
            guard let held else { return }
            let (etag, acquiredAt, renewals) = (held.etag, held.acquiredAt, held.renewals)
            let sent = clock.now()
            switch await write(.ifMatch(etag), acquiredAt: acquiredAt, renewals: renewals) {
            case .success(let newTag):
                let wasLate = state.withLock { state -> Bool in
                    guard case .unrenewed = state.status else { return false }
                    return true
                }
                set(.holding(since: acquiredAt)) { state in
                    state.etag = newTag
                    state.renewedAt = sent
                    state.renewals = renewals
                }
                if wasLate {
                    log(
                        LogRecord(
                            .notice, "lease-renewed", "renewed the lease of \(label) again after \(failures) failed tries; writing resumes",
                            details: ["lease": .string(key)]))
                }
                failures = 0
                next = sent.addingTimeInterval(renewalInterval)
            case .failure(let error) where error.kind == .preconditionFailed:
                let by: String?
                if case .success(let object?) = await read() { by = Lease(data: object.data)?.holder.description } else { by = nil }
                set(.lost(by: by)) { $0.lost = true }
                let lost = LeaseError.lost(label: label, by: by)
                log(LogRecord(.error, "lease-lost", "\(lost)", error: lost.description, details: ["lease": .string(key)]))
                throw lost
            case .failure(let error):
                failures += 1
                let now = clock.now()
                let renewed = state.withLock { $0.renewedAt } ?? now
                if now.timeIntervalSince(renewed) >= ttl - margin, case .holding = status {
                    set(.unrenewed(since: wallClock.now()))
                    log(
                        LogRecord(
                            .error, "lease-unrenewed",
                            "the lease of \(label) was last renewed \(Int(now.timeIntervalSince(renewed))) s ago: writing stops "
                                + "until it can be renewed (\(error))",
                            error: error.message, details: ["lease": .string(key)]))
                } else if failures == 1 || failures % 10 == 0 {
                    log(
                        LogRecord(
                            .warning, "lease-renewal-failed",
                            "the lease of \(label) could not be renewed (\(failures) tries): \(error); trying again in "
                                + Self.seconds(retryInterval), error: error.message, details: ["lease": .string(key)]))
                }
                // The moment writing must stop is checked on time even when the store hangs.
                let stop = renewed.addingTimeInterval(ttl - margin)
                next = now.addingTimeInterval(retryInterval)
                if stop > now { next = min(next, stop) }
            }
        }
    }

    // MARK: - Letting go

    /// Deletes the lease with `If-Match` on its entity tag, so the next process takes it at its next
    /// look; afterwards ``mayWrite`` is false. Does nothing when the lease is not held. A failure is
    /// logged: the lease then expires after its TTL.
    ///
    /// Call it once the output is drained and ``keep()``'s task has ended.
    public func release() async {
        let etag = state.withLock { state -> String? in
            guard !state.lost, !state.released else { return nil }
            state.released = true
            return state.etag
        }
        guard let etag else { return }
        set(.released)
        do {
            try await store.delete(key, condition: .ifMatch(etag))
            log(LogRecord(.notice, "lease-released", "let go of the lease of \(label)", details: ["lease": .string(key)]))
        } catch {
            log(
                LogRecord(
                    .warning, "lease-release-failed",
                    "the lease of \(label) could not be deleted (\(error)); another process takes it once its TTL of "
                        + "\(Self.seconds(ttl)) has passed", error: error.message, details: ["lease": .string(key)]))
        }
    }

    /// `30 s`, `3.3 s`.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\((value * 10).rounded() / 10) s"
    }
}

/// The lease of a shard was taken by another process: this one must stop writing.
public enum LeaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A renewal was answered 412; `by` is the new holder, when its lease could be read.
    case lost(label: String, by: String?)

    /// A sentence saying what happened and what follows.
    public var description: String {
        switch self {
        case .lost(let label, let by):
            "the lease of \(label) was taken by \(by ?? "another process") (a renewal was answered 412): this widgetd stops "
                + "writing and exits, so that it can be started again to wait for the lease"
        }
    }
}
