import Foundation
import WidgetRuntime

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One daemon per output folder, enforced by the kernel: the daemon holds an exclusive `flock` on
/// `OUT/.state/daemon.lock` for as long as its process lives.
///
/// Two daemons started at the same moment cannot both get it, and a daemon killed with SIGKILL
/// releases it with its process, so no stale file ever blocks a start. `OUT/.state/daemon.pid` is
/// information only: the running daemon's process id, which `widgetd reload` signals.
///
/// A lock is on a file, and `rm -rf OUT` removes the file with the folder: a second daemon would find
/// none and take a new one. So the lock also keeps the output folder open, and ``check()`` (called by
/// the daemon before each wave and each write) compares the folder and the lock file it holds with
/// what their paths name now; when they differ, the daemon stops with an error instead of writing
/// beside another.
struct DaemonLock: Sendable {
    let pidFile: URL?
    private let descriptor: Int32
    /// The output folder, open: its identity is what ``check()`` compares.
    private let folder: Int32
    private let folderPath: String
    private let lockPath: String

    /// Takes the lock, then prepares the folder (removing what interrupted writes left: only the
    /// holder of the lock may, or it could delete another daemon's write under way).
    ///
    /// - Parameter recordingPID: whether to write `daemon.pid` for `widgetd reload` (the daemon does;
    ///   `run --once`, which handles no signals, does not).
    /// - Throws: ``StoreError`` when another daemon holds it, or the lock file cannot be opened.
    init(store: SnapshotStore, recordingPID: Bool = true) throws {
        try store.createFolders()
        let lockFile = store.stateDirectory.appendingPathComponent("daemon.lock")
        folderPath = store.directory.path
        lockPath = lockFile.path
        folder = open(store.directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else {
            throw StoreError("Cannot open the output folder \(store.directory.path): \(String(cString: strerror(errno)))")
        }
        descriptor = open(lockFile.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else {
            let reason = errno
            close(folder)
            throw StoreError("Cannot open the lock file \(lockFile.path): \(String(cString: strerror(reason)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            close(descriptor)
            close(folder)
            guard reason == EWOULDBLOCK else {
                throw StoreError("Cannot lock \(lockFile.path): \(String(cString: strerror(reason)))")
            }
            let pid = DaemonLock.recordedPID(store: store).map { " (pid \($0))" } ?? ""
            throw StoreError("another widgetd\(pid) is already writing to \(store.directory.path); stop it first or use another --out")
        }
        // A folder is prepared here, under its lock; any other output by the daemon, before it writes.
        try (store.output as? FolderOutput)?.prepareFolder()
        let file = store.stateDirectory.appendingPathComponent("daemon.pid")
        if recordingPID {
            try AtomicFile.write(Data("\(getpid())\n".utf8), to: file)
            pidFile = file
        } else {
            // Holding the lock, any pid file is a killed daemon's: `widgetd reload` must not signal it.
            unlink(file.path)
            pidFile = nil
        }
    }

    /// Removes the pid file (when the folder is still this lock's) and lets go of the lock.
    func release() {
        if let pidFile, (try? check()) != nil { unlink(pidFile.path) }
        // Unlocked before it is closed: a child being started at this moment (between its fork and its
        // exec) shares the descriptor, and would otherwise hold the lock until its exec closes it.
        flock(descriptor, LOCK_UN)
        close(descriptor)
        close(folder)
    }

    /// Checks that the output folder and the lock file are still the ones this lock holds: not removed,
    /// nor replaced (`rm -rf OUT`, then another daemon's new `OUT`).
    ///
    /// - Throws: ``StoreError`` saying what happened and what to do.
    func check() throws {
        // The folder may be named through a link (`--out` a link to a disk); the lock file never is.
        func same(_ held: Int32, _ path: String, followingLinks: Bool) -> Bool {
            var open = stat()
            var named = stat()
            let found = followingLinks ? stat(path, &named) : lstat(path, &named)
            return fstat(held, &open) == 0 && found == 0 && open.st_dev == named.st_dev && open.st_ino == named.st_ino
        }
        guard same(folder, folderPath, followingLinks: true), same(descriptor, lockPath, followingLinks: false) else {
            throw StoreError(
                "the output folder \(folderPath) was removed or replaced while this widgetd wrote to it, so another widgetd may "
                    + "now write there; stopping without writing more. Start widgetd again to write to it (it refuses while another holds it)."
            )
        }
    }

    /// The pid of the live daemon writing to `store`, if any: one holds the lock.
    static func runningDaemon(store: SnapshotStore) -> Int32? {
        isHeld(store: store) ? recordedPID(store: store) : nil
    }

    /// Whether a live process (a daemon, or `run --once`) holds the lock on `store`.
    static func isHeld(store: SnapshotStore) -> Bool {
        let lockFile = store.stateDirectory.appendingPathComponent("daemon.lock")
        let descriptor = open(lockFile.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
            flock(descriptor, LOCK_UN)
            return false
        }
        return true
    }

    /// The pid written in `daemon.pid`.
    private static func recordedPID(store: SnapshotStore) -> Int32? {
        let file = store.stateDirectory.appendingPathComponent("daemon.pid")
        guard let text = try? String(contentsOf: file, encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0
        else { return nil }
        return pid
    }
}
