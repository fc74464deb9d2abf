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
struct DaemonLock {
    let pidFile: URL?
    private let descriptor: Int32

    /// Takes the lock, then prepares the folder (removing what interrupted writes left: only the
    /// holder of the lock may, or it could delete another daemon's write under way).
    ///
    /// - Parameter recordingPID: whether to write `daemon.pid` for `widgetd reload` (the daemon does;
    ///   `run --once`, which handles no signals, does not).
    /// - Throws: ``StoreError`` when another daemon holds it, or the lock file cannot be opened.
    init(store: SnapshotStore, recordingPID: Bool = true) throws {
        try store.createFolders()
        let lockFile = store.stateDirectory.appendingPathComponent("daemon.lock")
        descriptor = open(lockFile.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StoreError("Cannot open the lock file \(lockFile.path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            close(descriptor)
            guard reason == EWOULDBLOCK else {
                throw StoreError("Cannot lock \(lockFile.path): \(String(cString: strerror(reason)))")
            }
            let pid = DaemonLock.recordedPID(store: store).map { " (pid \($0))" } ?? ""
            throw StoreError("another widgetd\(pid) is already writing to \(store.directory.path); stop it first or use another --out")
        }
        try store.prepare()
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

    /// Removes the pid file and lets go of the lock.
    func release() {
        if let pidFile { unlink(pidFile.path) }
        close(descriptor)
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
