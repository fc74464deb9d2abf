public import Foundation
import WidgetCore
public import WidgetJSON

/// What N daemons (`run --shard K/N`) write into one output, a bucket or a folder: each its own part,
/// and the same two files that bring the parts together.
///
/// ```
/// shards/K-of-N.json    the shard's widgets: index.json's schema, with "shard" and "nextWriteAt"
/// shards/K-of-N.html    the gallery page of the shard's cards (ShardGalleryPage reads it)
/// shards/K-of-N.prom    the shard's metrics
/// index.json            the manifest: {"schemaVersion": 1, "shards": N, "parts": ["shards/1-of-N.json", …]}
/// index.html            the gallery of every shard (ShardGalleryPage)
/// .state/shards/K-of-N/ the shard's daemon record (daemon.json) and lease (lease.json)
/// ```
///
/// The manifest and the gallery depend only on N and this version, so every shard writes the same
/// bytes: shards never undo each other's write, and one that is rewritten unchanged costs nothing.
/// A snapshot's name never collides, since each widget has one owner.
extension SnapshotStore {
    /// The local folder `shards/`: every shard's part of the index, its gallery page and its metrics (a
    /// folder output's).
    public var shardsDirectory: URL { directory.appendingPathComponent("shards", isDirectory: true) }

    /// The local file `shards/K-of-N.EXT` (a folder output's): the shard's part of the index (`json`),
    /// its gallery page (`html`) or its metrics (`prom`).
    public func shardPartFile(_ shard: Shard, extension ext: String) -> URL {
        directory.appendingPathComponent(shardPartKey(shard, extension: ext))
    }

    /// The local folder `.state/shards/K-of-N/` (a folder output's): the shard's private state, its
    /// daemon record and lease.
    public func shardStateFolder(_ shard: Shard) -> URL {
        directory.appendingPathComponent(".state/shards/\(shard.name)", isDirectory: true)
    }

    /// `shards/K-of-N.EXT`.
    public func shardPartKey(_ shard: Shard, extension ext: String) -> String { "shards/\(shard.name).\(ext)" }

    /// `.state/shards/K-of-N/NAME`: `daemon.json`, `lease.json`.
    public func shardStateKey(_ shard: Shard, _ name: String) -> String { ".state/shards/\(shard.name)/\(name)" }

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

    /// Writes the shard's part of the index, `shards/K-of-N.json`: `index` with the shard (`"K/N"`) and
    /// `nextWriteAt` (the earliest next refresh of its widgets, when the part is due to change: after it,
    /// the gallery shows the part as late), then the manifest `index.json`.
    func writeIndexPart(_ index: inout WidgetObject, of snapshots: [Snapshot], shard: Shard) throws(AtomicFileError) {
        index["shard"] = .string(shard.description)
        let next = snapshots.compactMap(\.nextRefreshAt).min()
        index["nextWriteAt"] = next.map { .string(Timestamp.string($0)) } ?? .null
        let listing = OutputObject.listing(contentType: OutputObject.jsonType)
        var part = listing
        if marksChanges {
            var timeless = index
            timeless["nextWriteAt"] = .null
            part = part.marked(indexFingerprint(of: .object(timeless)), heartbeat: OutputObject.recordHeartbeat)
        }
        try output.write(encoded(.object(index)), to: shardPartKey(shard, extension: "json"), as: part)
        try writeUnlessSame(encoded(SnapshotStore.shardManifest(count: shard.count)), to: SnapshotStore.indexKey, as: listing)
    }

    /// Writes the shard's gallery page, `shards/K-of-N.html`, with `cards`, then the gallery of every
    /// shard, `index.html`.
    ///
    /// - Returns: The shard's page, whose generation its part of the index carries.
    func writeShardGallery(_ cards: [GalleryCard], writtenAt: Date, shard: Shard) throws(AtomicFileError) -> GalleryPage {
        let page = GalleryPage(title: "\(GalleryPage.defaultTitle): shard \(shard)", cards: cards, writtenAt: writtenAt)
        let listing = OutputObject.listing(contentType: OutputObject.htmlType)
        var part = listing
        if marksChanges {
            part = part.marked(galleryFingerprint(title: page.title, cards: cards), heartbeat: OutputObject.recordHeartbeat)
        }
        try output.write(Data(page.html.utf8), to: shardPartKey(shard, extension: "html"), as: part)
        try writeUnlessSame(Data(ShardGalleryPage(count: shard.count).html.utf8), to: SnapshotStore.galleryKey, as: listing)
        return page
    }

    /// The only shard's daemon record under `.state/shards/`, when there is exactly one.
    func onlyShardRecord() -> DaemonRecord? {
        let names = output.names(in: ".state/shards").filter { !$0.hasPrefix(".") }
        guard names.count == 1, let data = output.read(".state/shards/\(names[0])/daemon.json"), let value = try? JSONReader.read(data)
        else { return nil }
        return DaemonRecord(value: value)
    }

    /// Replaces `key` with `data` unless it holds those bytes already: what every shard writes alike.
    func writeUnlessSame(_ data: Data, to key: String, as object: OutputObject) throws(AtomicFileError) {
        if output.read(key) == data { return }
        try output.write(data, to: key, as: object)
    }
}
