import Foundation
import WidgetObjectStorage

/// What the bucket output still has to send, and what it knows the bucket holds: the state its uploader
/// works from, kept behind the output's lock. Pure bookkeeping: no I/O, no clock of its own.
///
/// Memory holds keys and headers, never contents: an entry's bytes are read from the working folder's
/// copy when it is sent. There is at most one pending entry per key — a newer write of a key replaces
/// the older pending one, and a key being sent is not sent again until that request ends — so however
/// long the store is away, the queue never holds more entries than the output has keys.
struct BucketUploadQueue {
    /// What to do to a key's object.
    enum Change: Equatable {
        /// Write the copy's bytes with these headers.
        case put(OutputObject)
        /// Delete the object.
        case delete
    }

    /// One key's pending change, when it was first asked for (for the oldest pending write's age) and
    /// when its newest version was written (from when an unchanged fingerprint's heartbeat counts).
    struct Entry: Equatable {
        var change: Change
        var since: Date
        var writtenAt: Date
    }

    /// A key's object as last acknowledged by the store: its content's SHA-256 and its entity tag; with a
    /// fingerprint, also that fingerprint, when the version sent was written, and the SHA-256 of the
    /// newest copy not sent because its fingerprint was the same (so a restart does not send it either).
    struct Uploaded: Codable, Equatable {
        var sha256: String
        var etag: String
        var fingerprint: String? = nil
        var writtenAt: Date? = nil
        var equivalentSHA256: String? = nil

        /// Whether a write of `object` at `now` may stay unsent: its fingerprint is the one sent, and
        /// the version sent is younger than the object's heartbeat (a clock gone back sends).
        func stands(for object: OutputObject, at now: Date) -> Bool {
            guard let fingerprint = object.fingerprint, fingerprint == self.fingerprint else { return false }
            guard let heartbeat = object.heartbeat else { return true }
            guard let writtenAt else { return false }
            let age = now.timeIntervalSince(writtenAt)
            return age >= 0 && age < heartbeat
        }
    }

    /// How a send ended.
    enum Outcome {
        /// Written: the bytes' hash, the store's entity tag, the size.
        case put(sha256: String, etag: String, bytes: Int)
        /// Deleted (or not there).
        case deleted
        /// Not sent: the bytes were those the store already has.
        case unchanged
        /// Not sent: the working folder's copy is gone (a later removal replaces it).
        case vanished
        /// The store failed.
        case failed(ObjectStoreError)
        /// The sending task was cancelled (a stop, or a drain's time ran out): sent again later, no failure.
        case cancelled
    }

    private(set) var pending: [String: Entry] = [:]
    private(set) var inFlight: [String: Entry] = [:]
    /// Keys pending and not in flight, in the order they became so; a key may appear again after its
    /// entry was taken or dropped (``take(now:limit:)`` skips those).
    private var order: [String] = []
    private var head = 0
    /// What the store acknowledged, by key.
    var uploaded: [String: Uploaded] = [:]
    /// Keys the bucket is believed to hold: its listing at start, then every acknowledged write and delete.
    var remote: Set<String> = []
    /// While set and in the future, nothing is sent (a backoff after a failure, or `Retry-After`).
    private(set) var pausedUntil: Date?
    /// Set when ``uploaded`` or the pending keys changed since the manifest was last saved.
    var manifestChanged = false
    private(set) var health = BucketOutput.Health()

    /// Whether nothing is pending or being sent.
    var isEmpty: Bool { pending.isEmpty && inFlight.isEmpty }

    // MARK: - Writes

    /// Records that `key`'s copy now holds bytes with hash `sha256`, to be written with `object`'s headers.
    ///
    /// - Returns: Whether the key is (still) queued; `false` when the store already has these bytes, or
    ///   a version with the same fingerprint younger than the object's heartbeat.
    mutating func wrote(_ key: String, sha256: String, as object: OutputObject, at now: Date) -> Bool {
        if pending[key] == nil, inFlight[key] == nil, let sent = uploaded[key] {
            if sent.sha256 == sha256 { return false }
            if sent.stands(for: object, at: now) {
                if sent.equivalentSHA256 != sha256 {
                    uploaded[key]?.equivalentSHA256 = sha256
                    manifestChanged = true
                }
                return false
            }
        }
        enqueue(key, .put(object), at: now)
        return true
    }

    /// Records that `key` was removed.
    ///
    /// - Returns: Whether a DELETE is queued (the bucket may hold the key).
    mutating func removed(_ key: String, at now: Date) -> Bool {
        if inFlight[key] == nil, !remote.contains(key), uploaded[key] == nil {
            if pending.removeValue(forKey: key) != nil { manifestChanged = true }
            return false
        }
        enqueue(key, .delete, at: now)
        return true
    }

    /// Queues `change` for `key`, replacing a pending one (which keeps its place and its age).
    mutating func enqueue(_ key: String, _ change: Change, at now: Date) {
        manifestChanged = true
        if var entry = pending[key] {
            entry.change = change
            entry.writtenAt = now
            pending[key] = entry
            return
        }
        pending[key] = Entry(change: change, since: now, writtenAt: now)
        if inFlight[key] == nil { order.append(key) }
    }

    /// Whether `key` will be an object once the queue is sent.
    func holds(_ key: String) -> Bool {
        if let entry = pending[key] { return entry.change != .delete }
        if let entry = inFlight[key], entry.change == .delete { return false }
        return remote.contains(key) || inFlight[key] != nil
    }

    /// The keys that will be objects once the queue is sent.
    var heldKeys: Set<String> {
        var keys = remote
        for (key, entry) in inFlight { if entry.change == .delete { keys.remove(key) } else { keys.insert(key) } }
        for (key, entry) in pending { if entry.change == .delete { keys.remove(key) } else { keys.insert(key) } }
        return keys
    }

    // MARK: - Sending

    /// The next entry to send, moved to the in-flight set, or `nil` when none may go now: all sent or
    /// being sent, `limit` requests already in flight, or a pause not over.
    mutating func take(now: Date, limit: Int) -> (key: String, entry: Entry)? {
        guard inFlight.count < limit else { return nil }
        if let pausedUntil, now < pausedUntil { return nil }
        while head < order.count {
            let key = order[head]
            head += 1
            if head > 1024, head * 2 > order.count {
                order.removeFirst(head)
                head = 0
            }
            guard inFlight[key] == nil, let entry = pending.removeValue(forKey: key) else { continue }
            inFlight[key] = entry
            return (key, entry)
        }
        return nil
    }

    /// Records how sending `key`'s `entry` ended; after a failure the entry is queued again (unless a
    /// newer one replaced it) and sending pauses for `retryDelay`.
    mutating func finished(_ key: String, _ entry: Entry, _ outcome: Outcome, at now: Date, retryDelay: (ObjectStoreError, Int) -> Double) {
        inFlight[key] = nil
        switch outcome {
        case .put(let sha256, let etag, let bytes):
            var fingerprint: String?
            if case .put(let object) = entry.change { fingerprint = object.fingerprint }
            uploaded[key] = Uploaded(sha256: sha256, etag: etag, fingerprint: fingerprint, writtenAt: entry.writtenAt)
            remote.insert(key)
            health.puts += 1
            health.bytesUploaded += bytes
            succeeded(at: now)
        case .deleted:
            uploaded[key] = nil
            remote.remove(key)
            health.deletes += 1
            succeeded(at: now)
        case .unchanged:
            health.unchangedSkipped += 1
        case .vanished:
            break
        case .failed(let error):
            health.failuresInARow += 1
            health.failuresTotal += 1
            health.lastError = error.message
            health.lastErrorAt = now
            let resume = now.addingTimeInterval(max(0, retryDelay(error, health.failuresInARow)))
            pausedUntil = max(pausedUntil ?? resume, resume)
            requeue(key, entry)
        case .cancelled:
            requeue(key, entry)
        }
        manifestChanged = true
        // A key may stand twice in `order`; `take` skips the copy whose entry is gone.
        if pending[key] != nil { order.append(key) }
    }

    private mutating func succeeded(at now: Date) {
        health.failuresInARow = 0
        health.lastSuccessAt = now
    }

    private mutating func requeue(_ key: String, _ entry: Entry) {
        if var newer = pending[key] {
            newer.since = min(newer.since, entry.since)
            pending[key] = newer
        } else {
            pending[key] = entry
        }
    }

    /// The health figures with the queue's own: pending objects and the oldest pending write.
    func currentHealth() -> BucketOutput.Health {
        var health = health
        health.pendingObjects = pending.count + inFlight.keys.count { pending[$0] == nil }
        health.oldestPendingSince = (pending.values.lazy.map(\.since) + inFlight.values.lazy.map(\.since)).min()
        health.pausedUntil = pausedUntil
        return health
    }

    // MARK: - Manifest

    /// What is saved in the working folder so a restart neither sends again what the store has nor
    /// forgets what it had still to send.
    struct Manifest: Codable {
        /// A pending change as saved: the headers of a write, or a delete.
        struct Pending: Codable {
            var delete: Bool?
            var contentType: String?
            var cacheControl: String?
        }

        var version = 1
        var uploaded: [String: Uploaded] = [:]
        var pending: [String: Pending] = [:]
    }

    /// The manifest of the queue as it stands; what is in flight counts as pending.
    var manifest: Manifest {
        var manifest = Manifest(uploaded: uploaded)
        for (key, entry) in pending.merging(inFlight, uniquingKeysWith: { pending, _ in pending }) {
            switch entry.change {
            case .delete: manifest.pending[key] = .init(delete: true)
            case .put(let object): manifest.pending[key] = .init(contentType: object.contentType, cacheControl: object.cacheControl)
            }
        }
        return manifest
    }
}
