import Foundation
import Synchronization
import WidgetRuntime

/// An output that is neither a folder nor a bucket: every object in memory, with the metadata it was
/// written with. Tests write through it to prove that nothing the store writes bypasses the output.
final class MemoryOutput: WidgetOutput {
    let localFolder: URL
    private let objects = Mutex<[String: (data: Data, object: OutputObject)]>([:])
    private let flushes = Mutex(0)
    private let writes = Mutex<[String: Int]>([:])

    /// An output whose local folder is `localFolder`.
    init(localFolder: URL) {
        self.localFolder = localFolder
    }

    var description: String { "memory" }

    func prepare() async throws(StoreError) {
        do {
            try FileManager.default.createDirectory(at: localFolder, withIntermediateDirectories: true)
        } catch {
            throw StoreError("cannot create \(localFolder.path)")
        }
    }

    func write(_ data: Data, to key: String, as object: OutputObject) throws(AtomicFileError) {
        objects.withLock { $0[key] = (data, object) }
        writes.withLock { $0[key, default: 0] += 1 }
    }

    func read(_ key: String) -> Data? { objects.withLock { $0[key]?.data } }

    func remove(_ key: String) { _ = objects.withLock { $0.removeValue(forKey: key) } }

    func names(in folder: String) -> [String] {
        let prefix = folder.isEmpty ? "" : folder + "/"
        return objects.withLock { objects in
            objects.keys.filter { $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains("/") }
                .map { String($0.dropFirst(prefix.count)) }
        }
    }

    func publish(localFile key: String, as object: OutputObject) {
        guard let data = FileManager.default.contents(atPath: localFolder.appendingPathComponent(key).path) else { return }
        objects.withLock { $0[key] = (data, object) }
    }

    func flush() { flushes.withLock { $0 += 1 } }

    /// Every key held, sorted.
    var keys: [String] { objects.withLock { $0.keys.sorted() } }
    /// The metadata `key` was written with.
    func object(_ key: String) -> OutputObject? { objects.withLock { $0[key]?.object } }
    /// How many times `key` was written.
    func writeCount(of key: String) -> Int { writes.withLock { $0[key] ?? 0 } }
    /// How many times ``flush()`` was called.
    var flushCount: Int { flushes.withLock { $0 } }
}
