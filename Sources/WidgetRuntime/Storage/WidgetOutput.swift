public import Foundation

/// Where the daemon's output goes: a folder (``FolderOutput``) or a bucket of an S3-compatible object
/// store (``BucketOutput``). ``SnapshotStore`` writes everything through one of these and does not know
/// which it has.
///
/// Keys are paths relative to the output's root, with `/` between folders: `news.json`,
/// `index.html`, `assets/3f2a….png`, `.state/news.json`.
public protocol WidgetOutput: Sendable, CustomStringConvertible {
    /// A folder on this machine for what must be a file: the daemon's lock, `widgetd reload`'s requests,
    /// and the files stages write themselves (the `assets` transform's images) before
    /// ``publish(localFile:as:)`` makes them objects. For a folder output, the folder itself; for a
    /// bucket, its working folder, which also keeps a copy of what was written.
    var localFolder: URL { get }

    /// Makes the output ready to be written: creates folders, removes what an interrupted write left,
    /// and (a bucket) reads back what the shard wrote before. Only the process that holds the output
    /// may call it.
    func prepare() async throws(StoreError)

    /// Replaces the object `key` with `data`, whole: a reader sees the old or the new content, never a
    /// part.
    func write(_ data: Data, to key: String, as object: OutputObject) throws(AtomicFileError)

    /// The object `key` as last written (by this process or, for a bucket, one before it on another
    /// machine), or `nil` when there is none.
    func read(_ key: String) -> Data?

    /// Removes the object `key`; removing one that is not there does nothing.
    func remove(_ key: String)

    /// The names of the objects directly in `folder` (`""` for the root, `"assets"`), without the
    /// folder, unsorted; temporary files are left out.
    func names(in folder: String) -> [String]

    /// Makes the file `key` that a stage wrote itself under ``localFolder`` an object of the output (a
    /// folder output has nothing to do).
    func publish(localFile key: String, as object: OutputObject)

    /// Makes durable what writes with ``OutputObject/Flush/later`` left: for a folder, one flush of each
    /// folder written to; for a bucket, nothing (its uploads are durable when they are acknowledged).
    func flush()
}

/// How one object is written: the headers a CDN or a browser reads, and what a crash may cost.
public struct OutputObject: Sendable, Equatable {
    /// Whether a power cut may lose the content.
    public enum Durability: Sendable, Equatable {
        /// Flushed before it replaces the old content (snapshots, state).
        case durable
        /// Replaced whole but not flushed: it is made again from others (pages, the gallery).
        case rebuildable
    }

    /// When the folder's entry for a rename is flushed.
    public enum Flush: Sendable, Equatable {
        /// At once.
        case now
        /// At the caller's next ``WidgetOutput/flush()`` (a wave's writes share one).
        case later
    }

    /// `Content-Type`, e.g. `application/json`.
    public var contentType: String
    /// `Cache-Control` (`public, max-age=N`); nil for none.
    public var cacheControl: String?
    /// Whether a power cut may lose the content (a folder flushes a durable object before the rename).
    public var durability: Durability
    /// When the folder's entry is flushed.
    public var flush: Flush
    /// A hash of what matters in the content, without the times that move with every write (when the
    /// snapshot was generated, the next refresh): a bucket sends a write whose fingerprint equals the
    /// one it last sent only once that upload is ``heartbeat`` seconds old. `nil`: the bytes decide. A
    /// folder ignores it.
    public var fingerprint: String?
    /// How old, in seconds, the upload of an unchanged ``fingerprint`` may grow before a write sends the
    /// object again with its new times; `nil`: never for the times alone. Ignored without a fingerprint.
    public var heartbeat: Double?

    /// An object's metadata: `Content-Type`, `Cache-Control` (none unless given), durable and flushed at
    /// once unless said otherwise; without a fingerprint, its bytes tell whether it changed.
    public init(
        contentType: String, cacheControl: String? = nil, durability: Durability = .durable, flush: Flush = .now,
        fingerprint: String? = nil, heartbeat: Double? = nil
    ) {
        self.contentType = contentType
        self.cacheControl = cacheControl
        self.durability = durability
        self.flush = flush
        self.fingerprint = fingerprint
        self.heartbeat = heartbeat
    }
}
