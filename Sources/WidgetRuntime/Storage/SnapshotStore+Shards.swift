public import Foundation
import WidgetCore
public import WidgetJSON

/// What N daemons (`run --shard K/N`) write into one output, a bucket or a folder: each its own part,
/// and the same two files that bring the parts together.
///
/// ```
/// OUT/shards/K-of-N.json   the shard's widgets: index.json's schema, with "shard" and "nextWriteAt"
/// OUT/shards/K-of-N.html   the gallery page of the shard's cards (ShardGalleryPage reads it)
/// OUT/shards/K-of-N.prom   the shard's metrics
/// OUT/index.json           the manifest: {"schemaVersion": 1, "shards": N, "parts": ["shards/1-of-N.json", …]}
/// OUT/index.html           the gallery of every shard (ShardGalleryPage)
/// OUT/.state/shards/K-of-N/ the shard's daemon record (daemon.json) and lease (lease.json)
/// ```
///
/// The manifest and the gallery depend only on N and this version, so every shard writes the same
/// bytes: shards never undo each other's write, and one that is rewritten unchanged costs nothing.
/// A snapshot's name never collides, since each widget has one owner.
extension SnapshotStore {
    /// `OUT/shards/`: every shard's part of the index, its gallery page and its metrics.
    public var shardsDirectory: URL { directory.appendingPathComponent("shards", isDirectory: true) }

    /// `OUT/shards/K-of-N.EXT`: the shard's part of the index (`json`), its gallery page (`html`) or its
    /// metrics (`prom`).
    public func shardPartFile(_ shard: Shard, extension ext: String) -> URL {
        shardsDirectory.appendingPathComponent("\(shard.name).\(ext)")
    }

    /// `OUT/.state/shards/K-of-N/`: the shard's private state, its daemon record and lease.
    public func shardStateFolder(_ shard: Shard) -> URL {
        stateDirectory.appendingPathComponent("shards", isDirectory: true).appendingPathComponent(shard.name, isDirectory: true)
    }

    /// The manifest `index.json` holds when N shards write the output: the parts, in order.
    ///
    /// ```json
    /// {"schemaVersion": 1, "shards": 2, "parts": ["shards/1-of-2.json", "shards/2-of-2.json"]}
    /// ```
    public static func shardManifest(count: Int) -> WidgetValue {
        let parts = stride(from: 1, through: count, by: 1).map { WidgetValue.string("shards/\($0)-of-\(count).json") }
        return [
            "schemaVersion": .number(WidgetNumber(indexSchemaVersion)),
            "shards": .number(WidgetNumber(count)),
            "parts": .array(parts),
        ]
    }

    /// Writes the shard's part of the index, `OUT/shards/K-of-N.json`: `index` with the shard (`"K/N"`)
    /// and `nextWriteAt` (the earliest next refresh of its widgets, when the part is due to change:
    /// after it, the gallery shows the part as late), then the manifest `OUT/index.json`.
    func writeIndexPart(_ index: inout WidgetObject, of snapshots: [Snapshot], shard: Shard) throws(AtomicFileError) {
        index["shard"] = .string(shard.description)
        let next = snapshots.compactMap(\.nextRefreshAt).min()
        index["nextWriteAt"] = next.map { .string(Timestamp.string($0)) } ?? .null
        try createFolder(shardsDirectory)
        try AtomicFile.write(
            JSONWriter.data(.object(index), style: .pretty) + Data([0x0A]), to: shardPartFile(shard, extension: "json"))
        try writeUnlessSame(
            JSONWriter.data(SnapshotStore.shardManifest(count: shard.count), style: .pretty) + Data([0x0A]), to: indexFile)
    }

    /// Writes the shard's gallery page, `OUT/shards/K-of-N.html`, with `cards`, then the gallery of
    /// every shard, `OUT/index.html`.
    ///
    /// - Returns: The shard's page, whose generation its part of the index carries.
    func writeShardGallery(_ cards: [GalleryCard], writtenAt: Date, shard: Shard) throws(AtomicFileError) -> GalleryPage {
        let page = GalleryPage(title: "\(GalleryPage.defaultTitle): shard \(shard)", cards: cards, writtenAt: writtenAt)
        try createFolder(shardsDirectory)
        try AtomicFile.write(Data(page.html.utf8), to: shardPartFile(shard, extension: "html"))
        try writeUnlessSame(Data(ShardGalleryPage(count: shard.count).html.utf8), to: galleryFile)
        return page
    }

    /// The only shard's daemon record under `OUT/.state/shards/`, when there is exactly one.
    func onlyShardRecord() -> DaemonRecord? {
        let folder = stateDirectory.appendingPathComponent("shards", isDirectory: true)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasPrefix(".") }
        guard names.count == 1,
            let data = AtomicFile.contentsWithoutFollowingLinks(atPath: folder.appendingPathComponent("\(names[0])/daemon.json").path),
            let value = try? JSONReader.read(data)
        else { return nil }
        return DaemonRecord(value: value)
    }

    /// Creates `folder` (and those above it) unless it exists.
    func createFolder(_ folder: URL) throws(AtomicFileError) {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw AtomicFileError(folder.path, reason: "cannot create the folder: \(error.localizedDescription)")
        }
    }

    /// Replaces `url` with `data` unless it holds those bytes already: what every shard writes alike.
    func writeUnlessSame(_ data: Data, to url: URL) throws(AtomicFileError) {
        if AtomicFile.contentsWithoutFollowingLinks(atPath: url.path) == data { return }
        try AtomicFile.write(data, to: url)
    }
}
