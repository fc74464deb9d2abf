import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Flushes files written at the same time together: one flush of their data for all of them, instead
/// of one `fsync` each, keeping each file old or new across a crash or a power cut.
///
/// A writer writes its temporary file (``AtomicFile/writeTemporary(_:forPath:mode:)``, not flushed) and
/// calls ``commit(_:syncsData:syncsFolder:)``, which blocks its thread until the file is renamed. One
/// writer at a time commits, for everyone waiting: it takes every temporary file handed in so far (the
/// batch), then
/// 1. flushes their data together: on Linux, one `syncfs` of their file system when the batch holds more
///    than one file to flush, else `fsync`; elsewhere, `fsync` on each;
/// 2. renames each over its target, in the order they were handed in;
/// 3. flushes each folder that a write asked to be flushed at once (``OutputObject/Flush/now``), once.
///
/// Writers that come while a batch commits wait for the next: batches grow exactly when writes
/// overlap, and a writer alone costs what ``AtomicFile/write(_:toPath:mode:syncsFolder:syncsData:)``
/// costs. The writer that committed returns with its batch; one of those waiting commits the next.
/// A file whose flush or rename fails gets its own error, naming it; the others in its batch land.
///
/// A power cut at any point leaves each file old or new: before the data flush ends, no rename has
/// happened, and what is on disk is the old file beside a temporary one (removed at the next start);
/// after it, a rename on disk points at flushed content; and a rename the folder's flush did not reach
/// yet is lost whole, as if that write had not happened.
final class GroupCommit: @unchecked Sendable {
    /// What has been flushed, for the tests and the benchmarks.
    struct Counts: Sendable, Equatable {
        /// Batches committed.
        var batches = 0
        /// Files renamed into place.
        var files = 0
        /// Calls that flushed file data: `syncfs`, or `fsync` of a file.
        var dataFlushes = 0
        /// Folders flushed.
        var folderFlushes = 0
    }

    /// A temporary file handed in, and what became of it.
    private final class Item {
        let temporary: AtomicFile.Temporary
        let syncsData: Bool
        let syncsFolder: Bool
        /// Set by the committer before ``done``.
        var error: AtomicFileError?
        /// Whether its batch has been committed; read and written under the condition's lock.
        var done = false

        init(_ temporary: AtomicFile.Temporary, syncsData: Bool, syncsFolder: Bool) {
            self.temporary = temporary
            self.syncsData = syncsData
            self.syncsFolder = syncsFolder
        }
    }

    /// Guards ``pending`` and ``committing``; waiters wait on it for their batch.
    private let condition = NSCondition()
    /// Handed in, not yet taken by a committer.
    private var pending: [Item] = []
    /// Whether a writer is committing a batch now.
    private var committing = false
    private let counts = Mutex(Counts())
    /// Called with the batch's size before each batch is committed (tests hold a batch back with it).
    private let willCommit: (@Sendable (Int) -> Void)?

    /// A committer; `willCommit` is called before each batch, with its size.
    init(willCommit: (@Sendable (Int) -> Void)? = nil) {
        self.willCommit = willCommit
    }

    /// What has been committed so far.
    var committed: Counts { counts.withLock { $0 } }

    /// How many files wait for a batch that has not begun.
    var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return pending.count
    }

    /// Flushes (when `syncsData`) and renames `temporary` over its target with the files handed in at
    /// the same time, then flushes its folder when `syncsFolder`; returns once that is done. Blocks the
    /// calling thread: call it from a thread that may wait for a disk, never the cooperative pool.
    ///
    /// - Throws: ``AtomicFileError`` naming the file when its flush or rename failed; the temporary file
    ///   is removed then.
    func commit(_ temporary: AtomicFile.Temporary, syncsData: Bool, syncsFolder: Bool) throws(AtomicFileError) {
        let item = Item(temporary, syncsData: syncsData, syncsFolder: syncsFolder)
        condition.lock()
        pending.append(item)
        while !item.done {
            if committing {
                condition.wait()
                continue
            }
            committing = true
            let batch = pending
            pending = []
            condition.unlock()
            commitBatch(batch)
            condition.lock()
            for member in batch { member.done = true }
            committing = false
            condition.broadcast()
        }
        condition.unlock()
        if let error = item.error { throw error }
    }

    // MARK: - A batch

    private func commitBatch(_ batch: [Item]) {
        willCommit?(batch.count)
        let dataFlushes = flushData(of: batch.filter(\.syncsData))
        for item in batch {
            close(item.temporary.descriptor)
            if item.error != nil {
                unlink(item.temporary.path)
                continue
            }
            do throws(AtomicFileError) {
                try item.temporary.rename()
            } catch {
                item.error = error
            }
        }
        var folders: [String] = []
        for item in batch where item.syncsFolder && item.error == nil && !folders.contains(item.temporary.folder) {
            folders.append(item.temporary.folder)
        }
        for folder in folders { AtomicFile.syncFolder(atPath: folder) }
        counts.withLock { counts in
            counts.batches += 1
            counts.files += batch.count(where: { $0.error == nil })
            counts.dataFlushes += dataFlushes
            counts.folderFlushes += folders.count
        }
    }

    /// Flushes the data of `items`' temporary files, noting an error on each that failed; returns how
    /// many flushes it made.
    private func flushData(of items: [Item]) -> Int {
        #if canImport(Glibc)
        if items.count > 1, let syncfs = Self.syncfs {
            // One `syncfs` for each file system the files are on (a key's folder may be a mount).
            var devices: [dev_t: [Item]] = [:]
            for item in items {
                var status = stat()
                guard fstat(item.temporary.descriptor, &status) == 0 else {
                    item.error = AtomicFileError(item.temporary.target, "cannot flush to disk", errno: errno)
                    continue
                }
                devices[status.st_dev, default: []].append(item)
            }
            for members in devices.values where syncfs(members[0].temporary.descriptor) != 0 {
                let code = errno
                for item in members { item.error = AtomicFileError(item.temporary.target, "cannot flush to disk", errno: code) }
            }
            return devices.count
        }
        #endif
        for item in items where fsync(item.temporary.descriptor) != 0 {
            item.error = AtomicFileError(item.temporary.target, "cannot flush to disk", errno: errno)
        }
        return items.count
    }

    #if canImport(Glibc)
    /// `syncfs(2)`, which the `Glibc` module does not declare (it is a GNU extension); looked up once.
    private static let syncfs: (@convention(c) (Int32) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_LAZY), "syncfs") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
    }()
    #endif
}
