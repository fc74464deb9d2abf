public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The output as a folder on this machine, `OUT`: each key is the file `OUT/<key>`.
///
/// Every write is an ``AtomicFile`` write: a reader sees the old or the new content, never a part. An
/// ``OutputObject/Durability/durable`` object is flushed to disk before it replaces the old one, with
/// the others written at the same time (one `syncfs` for them all on Linux: see `GroupCommit`); a
/// ``OutputObject/Durability/rebuildable`` one is not. A write with ``OutputObject/Flush/now`` flushes
/// its folder's entry at once; with ``OutputObject/Flush/later`` the folder is flushed at the next
/// ``flush()``, once for every write since. Contents are read without following symbolic links.
///
/// The folder also keeps what an object store cannot: every widget's state in one append-only journal,
/// `OUT/.state/_states.jsonl` (see ``journalPath``), which ``flush()`` flushes too. The content type and
/// cache control of an ``OutputObject`` mean nothing to a folder; a web server serving it chooses its own.
///
/// ```swift
/// let store = SnapshotStore(output: FolderOutput(folder: URL(fileURLWithPath: "out", isDirectory: true)))
/// ```
public struct FolderOutput: WidgetOutput {
    /// The folder, `OUT`.
    public let localFolder: URL
    /// `localFolder`'s path: files are named from it as text (building a URL for each was a measurable
    /// part of writing a thousand small files).
    let path: String
    /// The folders written to with ``OutputObject/Flush/later`` since the last ``flush()``, beyond the
    /// folder itself and its state folder (which are always flushed).
    private let unflushed: Unflushed
    /// Flushes the files written at the same time together; shared by copies of the output.
    let committer: GroupCommit

    /// The output folder `folder`; nothing is created until ``prepare()`` or a write.
    public init(folder: URL) {
        self.init(folder: folder, committer: GroupCommit())
    }

    /// The output folder `folder`, whose flushes `committer` makes.
    init(folder: URL, committer: GroupCommit) {
        localFolder = folder
        path = folder.path
        unflushed = Unflushed()
        self.committer = committer
    }

    /// The folder's path.
    public var description: String { path }

    /// The path of the state journal, `OUT/.state/_states.jsonl`, where the folder keeps every widget's
    /// state (an object store keeps one object per widget, `.state/<id>.json`, instead).
    public var journalPath: String { "\(path)/.state/\(StateJournal.fileName)" }

    /// The path of the file of `key`.
    func filePath(_ key: String) -> String { "\(path)/\(key)" }

    // MARK: - WidgetOutput

    /// Creates the folders, removes the temporary files that interrupted writes left behind (in the
    /// folder, `.state/` and `assets/`), and cuts off a state journal's line that a crash left unfinished. Only the process that holds the folder's
    /// lock may call it: another's writes under way would go.
    ///
    /// - Throws: ``StoreError`` when the folder cannot be created.
    public func prepare() async throws(StoreError) {
        try prepareFolder()
    }

    /// What ``prepare()`` does, without waiting.
    ///
    /// - Throws: ``StoreError`` when the folder cannot be created.
    public func prepareFolder() throws(StoreError) {
        try createFolders()
        let state = localFolder.appendingPathComponent(".state", isDirectory: true)
        let assets = localFolder.appendingPathComponent("assets", isDirectory: true)
        for folder in [localFolder, state, assets] {
            AtomicFile.removeLeftovers(in: folder)
        }
        // The `assets` transform's downloads that a crash interrupted (`.NAME.UUID.tmp`).
        for name in (try? FileManager.default.contentsOfDirectory(atPath: assets.path)) ?? []
        where name.hasPrefix(".") && name.hasSuffix(".tmp") {
            unlink(assets.appendingPathComponent(name).path)
        }
        // Earlier versions kept each card in a file of its own; the widget's page holds it now.
        try? FileManager.default.removeItem(at: state.appendingPathComponent("cards", isDirectory: true))
        StateJournal.repair(journalPath)
    }

    /// Creates the folder and its state folder.
    ///
    /// - Throws: ``StoreError`` when a folder cannot be created.
    public func createFolders() throws(StoreError) {
        for folder in [localFolder, localFolder.appendingPathComponent(".state", isDirectory: true)] {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw StoreError("Cannot create the output folder \(folder.path): \(error.localizedDescription)")
            }
        }
    }

    /// Replaces the file `OUT/<key>` atomically (see ``AtomicFile``), creating the folders of a key
    /// below the root (`shards/…`) when they are missing. A write to flush (durable, or flushed
    /// ``OutputObject/Flush/now``) is committed with the others under way at the same time, and returns
    /// once its file is renamed (and its folder flushed, with `.now`): a file written after it is
    /// never on disk without it. Blocks the calling thread for as long as the disk takes.
    ///
    /// - Throws: ``AtomicFileError`` naming the file and the system's reason.
    public func write(_ data: Data, to key: String, as object: OutputObject) throws(AtomicFileError) {
        let file = filePath(key)
        let syncsData = object.durability == .durable
        let syncsFolder = object.flush == .now
        let temporary: AtomicFile.Temporary
        do {
            temporary = try AtomicFile.writeTemporary(data, forPath: file)
        } catch let error where error.isMissingFolder && key.contains("/") {
            let folder = String(file[..<file.lastIndex(of: "/")!])
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            temporary = try AtomicFile.writeTemporary(data, forPath: file)
        }
        if syncsData || syncsFolder {
            try committer.commit(temporary, syncsData: syncsData, syncsFolder: syncsFolder)
        } else {
            // Nothing to flush: renamed at once, beside any batch.
            close(temporary.descriptor)
            try temporary.rename()
        }
        if !syncsFolder, let slash = key.lastIndex(of: "/") {
            let folder = String(key[..<slash])
            if folder != ".state" { unflushed.insert(folder) }
        }
    }

    /// The content of the regular file `OUT/<key>`; `nil` when there is none or it cannot be read. A
    /// symbolic link is not followed, and a FIFO is not waited on.
    public func read(_ key: String) -> Data? {
        AtomicFile.contentsWithoutFollowingLinks(atPath: filePath(key))
    }

    /// Deletes the file `OUT/<key>`, if there is one.
    public func remove(_ key: String) {
        unlink(filePath(key))
    }

    /// The names of the files and folders in `OUT/<folder>` (`""` for `OUT`), without the temporary files
    /// of writes under way (`.NAME.tmp-…`, and the `assets` transform's `.NAME.….tmp`).
    public func names(in folder: String) -> [String] {
        let directory = folder.isEmpty ? path : filePath(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { !($0.hasPrefix(".") && ($0.contains(AtomicFile.temporaryMarker) || $0.hasSuffix(".tmp"))) }
    }

    /// Nothing to do: the file a stage wrote under ``localFolder`` is already where it is served.
    public func publish(localFile key: String, as object: OutputObject) {}

    /// Flushes the state journal, then the folder, its state folder and every other folder written to
    /// with ``OutputObject/Flush/later`` since the last flush: the renames of many writes share one flush
    /// of each folder.
    public func flush() {
        StateJournal.sync(journalPath)
        AtomicFile.syncFolder(localFolder)
        AtomicFile.syncFolder(localFolder.appendingPathComponent(".state", isDirectory: true))
        for folder in unflushed.take() {
            AtomicFile.syncFolder(URL(fileURLWithPath: filePath(folder), isDirectory: true))
        }
    }
}

extension FolderOutput {
    /// The folders below the root written to since the last flush; shared by copies of the output.
    final class Unflushed: Sendable {
        private let folders = Mutex<Set<String>>([])

        /// Notes a write into `folder`.
        func insert(_ folder: String) {
            folders.withLock { _ = $0.insert(folder) }
        }

        /// The folders noted, forgotten.
        func take() -> Set<String> {
            folders.withLock { folders in
                defer { folders = [] }
                return folders
            }
        }
    }
}
