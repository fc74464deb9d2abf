public import Foundation
import Synchronization
public import WidgetCore
public import WidgetObjectStorage
import WidgetStages

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The daemon's output in a bucket of an S3-compatible object store (`--out s3://BUCKET/PREFIX`): the
/// same keys as the folder, as objects under `PREFIX`.
///
/// A write never waits for the network. It replaces the key's copy in the working folder
/// (``localFolder``, `--work`) through `AtomicFile`, so a crash leaves the old or the new copy, and queues
/// the key; the uploader (``run()``) sends the queue, a few requests at once. What the queue holds:
///
/// - **One entry per key.** A newer write of a key replaces its pending entry; the bytes are read from
///   the copy when the entry is sent, so memory holds keys and headers, never contents, however long the
///   store is away (bounded memory: at most one entry per key the output has).
/// - **Only changes.** The SHA-256 of every key's bytes as the store acknowledged them is kept in the
///   working folder (`.bucket/uploads.json`); a write of the same bytes sends nothing. A write whose
///   ``OutputObject/fingerprint`` (what matters in it, without its times) is the one last sent is not sent
///   either while that upload is younger than the object's ``OutputObject/heartbeat``: a wave in which
///   nothing changed but the times costs no PUT, and the bucket's times lag the working folder's by at
///   most the heartbeat.
/// - **Retries.** A failed request is queued again and sending pauses for a delay drawn at random
///   between 0 and `firstRetryDelay × 2^(failures in a row − 1)`, capped at `maximumRetryDelay` (30 s):
///   exponential backoff with full jitter. A throttled answer with `Retry-After` pauses exactly that long;
///   an answer no retry can change (a wrong key, a missing bucket) pauses the cap, and ``health`` says so.
/// - **A gate.** While `mayWrite` returns `false` (the shard's lease is not held) nothing is sent; the
///   entries wait.
///
/// ``prepare()`` checks that the bucket answers, then restores into the working folder what a shard
/// started on another machine needs to continue: every widget's state (`.state/<id>.json`) and snapshot
/// (`<id>.json`). ``drain(timeout:)`` sends what is left on a graceful stop.
///
/// ```swift
/// let output = BucketOutput(store: client, bucket: "widgets", prefix: "prod", workFolder: work)
/// try await output.prepare()
/// async let uploads: Void = output.run()
/// // … the daemon writes through SnapshotStore(output: output) …
/// let left = await output.drain(timeout: 20)
/// ```
public final class BucketOutput: WidgetOutput {
    /// How the uploader sends.
    public struct Settings: Sendable {
        /// Requests in flight at once.
        public var concurrentRequests: Int
        /// The backoff's first ceiling, in seconds.
        public var firstRetryDelay: Double
        /// The backoff's cap, in seconds (also the pause after an answer no retry can change).
        public var maximumRetryDelay: Double
        /// How often a closed write gate is looked at again, in seconds.
        public var gateCheckInterval: Double

        /// Settings with the defaults: 8 requests at once, backoff from 0.5 s capped at 30 s, the gate
        /// looked at every second.
        public init(
            concurrentRequests: Int = 8, firstRetryDelay: Double = 0.5, maximumRetryDelay: Double = 30, gateCheckInterval: Double = 1
        ) {
            self.concurrentRequests = max(1, concurrentRequests)
            self.firstRetryDelay = firstRetryDelay
            self.maximumRetryDelay = maximumRetryDelay
            self.gateCheckInterval = gateCheckInterval
        }
    }

    /// The store the objects go to.
    public let store: any ObjectStore
    /// The bucket's name, for messages.
    public let bucket: String
    /// The keys' prefix in the bucket: empty, or ending with `/`.
    public let prefix: String
    /// The working folder: the daemon's lock, reload requests, files stages write, and a copy of every
    /// object written or restored.
    public let localFolder: URL
    let workPath: String
    let settings: Settings
    let clock: any WidgetClock
    let mayWrite: @Sendable () -> Bool
    let restores: @Sendable (String) -> Bool
    let queue = Mutex(BucketUploadQueue())
    let wake = WakeSignal()
    /// Folders of the working folder known to exist, and those written with `.later` and not yet flushed.
    private let folders = Mutex((existing: Set<String>(), unsynced: Set<String>()))

    /// An output writing to `bucket` under `prefix` through `store`, with its working folder `workFolder`.
    ///
    /// - Parameters:
    ///   - store: The object store (`S3Client`, or one in memory in tests).
    ///   - bucket: The bucket's name, for messages (the store knows where it writes).
    ///   - prefix: The keys' prefix (`prod`, `prod/`, or empty); a `/` is added when missing.
    ///   - workFolder: The working folder (`--work`).
    ///   - settings: How the uploader sends.
    ///   - clock: The clock of the backoff and the ages; tests pass a manual one.
    ///   - mayWrite: The write gate: nothing is sent while it returns `false` (the shard's lease).
    ///   - restores: Which keys ``prepare()`` downloads into an empty working folder; by default every
    ///     widget's state (`.state/<id>.json`) and snapshot (`<id>.json`, not `index.json`) — see
    ///     ``restoresByDefault(_:)``.
    public init(
        store: any ObjectStore, bucket: String, prefix: String, workFolder: URL, settings: Settings = Settings(),
        clock: any WidgetClock = SystemClock(), mayWrite: (@Sendable () -> Bool)? = nil,
        restores: (@Sendable (String) -> Bool)? = nil
    ) {
        self.store = store
        self.bucket = bucket
        let trimmed = prefix.drop { $0 == "/" }
        self.prefix = trimmed.isEmpty || trimmed.hasSuffix("/") ? String(trimmed) : "\(trimmed)/"
        localFolder = workFolder
        workPath = workFolder.path
        self.settings = settings
        self.clock = clock
        self.mayWrite = mayWrite ?? { true }
        self.restores = restores ?? BucketOutput.restoresByDefault
    }

    /// `s3://BUCKET/PREFIX`.
    public var description: String { "s3://\(bucket)/\(prefix)" }

    /// Whether ``prepare()`` restores `key` by default: a widget's state (`.state/<id>.json`), its
    /// notification outbox (`.state/notify/<id>.json`) or its snapshot (`<id>.json` at the root, `index.json` excepted); not the daemon's own records
    /// (`.state/_daemon.json`), leases or shards' parts.
    public static func restoresByDefault(_ key: String) -> Bool {
        guard key.hasSuffix(".json") else { return false }
        if key.hasPrefix(NotificationOutboxes.folder + "/") { return !key.dropFirst(NotificationOutboxes.folder.count + 1).contains("/") }
        if key.hasPrefix(".state/") { return !key.dropFirst(7).contains("/") && !key.hasPrefix(".state/_") }
        return !key.contains("/") && key != "index.json"
    }

    /// The path of `key`'s copy in the working folder.
    func copyPath(_ key: String) -> String { "\(workPath)/\(key)" }

    /// The figures of the uploads (pending objects, failures, counts), for `status` and the metrics.
    public var health: BucketOutput.Health {
        var health = queue.withLock { $0.currentHealth() }
        health.gateClosed = !mayWrite()
        return health
    }

    // MARK: - WidgetOutput

    /// Replaces `key`'s copy in the working folder and queues the key; returns without waiting for the
    /// store.
    ///
    /// - Throws: `AtomicFileError` when the copy cannot be written (a bad key is one too).
    public func write(_ data: Data, to key: String, as object: OutputObject) throws(AtomicFileError) {
        let path = copyPath(key)
        try makeFolder(of: key, path: path)
        try AtomicFile.write(data, toPath: path, syncsFolder: object.flush == .now, syncsData: object.durability == .durable)
        if object.flush == .later { folders.withLock { _ = $0.unsynced.insert(Self.folder(of: key)) } }
        let sha256 = SHA256.hexDigest(of: data)
        let now = clock.now()
        if queue.withLock({ $0.wrote(key, sha256: sha256, as: object, at: now) }) { wake.signal() }
    }

    /// `key`'s copy in the working folder: what this process wrote, or what ``prepare()`` restored.
    public func read(_ key: String) -> Data? {
        guard Self.isValid(key) else { return nil }
        return AtomicFile.contentsWithoutFollowingLinks(atPath: copyPath(key))
    }

    /// Removes `key`'s copy and queues a DELETE when the bucket may hold the key.
    public func remove(_ key: String) {
        guard Self.isValid(key) else { return }
        unlink(copyPath(key))
        let now = clock.now()
        if queue.withLock({ $0.removed(key, at: now) }) { wake.signal() }
    }

    /// The names in `folder` of the objects the bucket holds or will hold once the queue is sent, with
    /// the files of the working folder's copy of `folder`.
    public func names(in folder: String) -> [String] {
        let start = folder.isEmpty ? "" : folder.hasSuffix("/") ? folder : "\(folder)/"
        var names = Set<String>()
        for key in queue.withLock({ $0.heldKeys }) where key.hasPrefix(start) {
            let name = key.dropFirst(start.count)
            if !name.contains("/") { names.insert(String(name)) }
        }
        let path = start.isEmpty ? workPath : "\(workPath)/\(start.dropLast())"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        where !(name.hasPrefix(".") && name.contains(AtomicFile.temporaryMarker)) {
            var status = stat()
            if lstat("\(path)/\(name)", &status) == 0, status.st_mode & S_IFMT == S_IFREG { names.insert(name) }
        }
        return Array(names)
    }

    /// Queues the upload of the file `key` that a stage wrote in the working folder (an asset); does
    /// nothing when the store already has its bytes or the file is not there.
    public func publish(localFile key: String, as object: OutputObject) {
        guard Self.isValid(key), let data = AtomicFile.contentsWithoutFollowingLinks(atPath: copyPath(key)) else { return }
        let sha256 = SHA256.hexDigest(of: data)
        let now = clock.now()
        if queue.withLock({ $0.wrote(key, sha256: sha256, as: object, at: now) }) { wake.signal() }
    }

    /// Flushes the working folder's folders written with `.later`, and saves the upload manifest (what
    /// the store has, what is still to send) so a restart neither sends again nor forgets.
    public func flush() {
        let unsynced = folders.withLock { folders in
            defer { folders.unsynced.removeAll() }
            return folders.unsynced
        }
        for folder in unsynced { AtomicFile.syncFolder(URL(fileURLWithPath: folder.isEmpty ? workPath : "\(workPath)/\(folder)")) }
        saveManifest()
    }

    // MARK: - Keys and folders

    /// Whether `key` names a file inside the working folder: relative, no empty, `.` or `..` part.
    static func isValid(_ key: String) -> Bool {
        !key.isEmpty && !key.hasPrefix("/")
            && !key.split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty || $0 == "." || $0 == ".." }
    }

    /// The folder part of `key` (`assets` of `assets/a.png`), or empty.
    static func folder(of key: String) -> String {
        key.lastIndex(of: "/").map { String(key[..<$0]) } ?? ""
    }

    /// Creates the folder of `key`'s copy once.
    private func makeFolder(of key: String, path: String) throws(AtomicFileError) {
        guard Self.isValid(key) else {
            throw AtomicFileError(path, reason: "\(key) is not a key of the output: keys are relative paths without . or .. parts")
        }
        let folder = Self.folder(of: key)
        guard !folder.isEmpty, !folders.withLock({ $0.existing.contains(folder) }) else { return }
        do {
            try FileManager.default.createDirectory(atPath: "\(workPath)/\(folder)", withIntermediateDirectories: true)
        } catch {
            throw AtomicFileError(path, reason: "cannot create the folder \(workPath)/\(folder): \(error.localizedDescription)")
        }
        folders.withLock { _ = $0.existing.insert(folder) }
    }

    // MARK: - Manifest

    /// `WORK/.bucket/uploads.json`.
    var manifestPath: String { "\(workPath)/.bucket/uploads.json" }

    /// Saves the manifest when it changed since it was last saved.
    func saveManifest() {
        guard
            let manifest = queue.withLock({ queue -> BucketUploadQueue.Manifest? in
                guard queue.manifestChanged else { return nil }
                queue.manifestChanged = false
                return queue.manifest
            })
        else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(manifest) else { return }
        try? FileManager.default.createDirectory(atPath: "\(workPath)/.bucket", withIntermediateDirectories: true)
        do {
            try AtomicFile.write(data, toPath: manifestPath)
        } catch {
            queue.withLock { $0.manifestChanged = true }
        }
    }

    /// The manifest a previous run saved, or an empty one.
    func loadManifest() -> BucketUploadQueue.Manifest {
        guard let data = AtomicFile.contentsWithoutFollowingLinks(atPath: manifestPath),
            let manifest = try? JSONDecoder().decode(BucketUploadQueue.Manifest.self, from: data), manifest.version == 1
        else { return BucketUploadQueue.Manifest() }
        return manifest
    }
}
