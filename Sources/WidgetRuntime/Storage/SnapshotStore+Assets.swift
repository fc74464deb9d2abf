public import Foundation
import Synchronization

/// The images under `assets/`: the `assets` transform and placeholder images write them as files into
/// the local folder's `assets/` (``SnapshotStore/assetsDirectory``), named by the hash of their bytes;
/// the store makes them objects of the output (``publishAssets(_:)``) and removes those nothing uses.
extension SnapshotStore {
    /// Makes each asset of `paths` (`assets/<name>`, as snapshots and states name them) an object of
    /// the output, once per store: an asset never changes, its name being its hash. A path whose file is
    /// not in the local folder (one published by an earlier process) is left as it is. A folder output
    /// has nothing to publish.
    public func publishAssets(_ paths: some Sequence<String>) {
        guard !(output is FolderOutput) else { return }
        for path in paths where path.hasPrefix("assets/") {
            let name = path.dropFirst("assets/".count)
            guard !name.isEmpty, !name.contains("/"), !name.hasPrefix("."), !publishedAssets.contains(path),
                FileManager.default.fileExists(atPath: assetsDirectory.appendingPathComponent(String(name)).path)
            else { continue }
            output.publish(localFile: path, as: .asset(named: String(name)))
            publishedAssets.insert(path)
        }
    }

    /// The names of the assets in the output (`3f2a….png`).
    public func assetNames() -> [String] {
        output.names(in: "assets")
    }

    /// Removes the asset `name` (`3f2a….png`) from the output.
    public func removeAsset(named name: String) {
        output.remove("assets/\(name)")
        publishedAssets.remove("assets/\(name)")
    }
}

/// The assets a store has published, shared by its copies.
final class PublishedAssets: Sendable {
    private let paths = Mutex<Set<String>>([])

    /// Whether `path` was published.
    func contains(_ path: String) -> Bool { paths.withLock { $0.contains(path) } }
    /// Notes `path` as published.
    func insert(_ path: String) { paths.withLock { _ = $0.insert(path) } }
    /// Forgets `path`.
    func remove(_ path: String) { paths.withLock { _ = $0.remove(path) } }
}
