import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One daemon per output folder: `OUT/.state/daemon.pid` holds the running daemon's process id, which
/// `widgetd reload` signals.
struct DaemonLock {
    let file: URL

    /// Takes the lock.
    ///
    /// - Throws: ``StoreError`` when another live daemon holds it.
    init(store: SnapshotStore) throws {
        try store.prepare()
        file = store.stateDirectory.appendingPathComponent("daemon.pid")
        if let pid = DaemonLock.runningDaemon(store: store), pid != getpid() {
            throw StoreError("another widgetd (pid \(pid)) is already writing to \(store.directory.path); stop it first or use another --out")
        }
        try AtomicFile.write(Data("\(getpid())\n".utf8), to: file)
    }

    func release() {
        unlink(file.path)
    }

    /// The pid of a live daemon writing to `store`, if any.
    static func runningDaemon(store: SnapshotStore) -> Int32? {
        let file = store.stateDirectory.appendingPathComponent("daemon.pid")
        guard let text = try? String(contentsOf: file, encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0
        else { return nil }
        return kill(pid, 0) == 0 || errno == EPERM ? pid : nil
    }
}
