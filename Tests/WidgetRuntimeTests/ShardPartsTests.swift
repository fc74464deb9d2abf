import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetTestSupport

/// What a store with a shard writes: its part of the index, gallery and metrics, and the manifest and
/// gallery of every shard, the same bytes from each.
struct ShardPartsTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    static func snapshot(_ id: String, next: Date?) -> Snapshot {
        Snapshot(
            id: id, title: id, status: .fresh, generatedAt: now, lastSuccessAt: now, nextRefreshAt: next,
            entries: [TimelineEntry(date: now, content: ["text": .string(id)])], error: nil)
    }

    /// Writes what a wave of shard `number` of 2 leaves, into `folder`.
    static func wave(_ snapshots: [Snapshot], shard number: Int, into folder: URL) throws -> SnapshotStore {
        var store = SnapshotStore(directory: folder)
        store.shard = try Shard(number: number, count: 2)
        try FolderOutput(folder: store.directory).prepareFolder()
        var cards: [GalleryCard] = []
        for snapshot in snapshots {
            try store.write(snapshot)
            cards.append(try store.writeCard(of: snapshot, definition: nil))
        }
        let page = try store.writeGallery(cards, writtenAt: now)
        try store.writeIndex(snapshots, generatedAt: now, gallery: page)
        return store
    }

    @Test func twoShardsInOneFolderWriteTheirPartsAndTheSameManifestAndGallery() throws {
        let folder = try TemporaryFolder()
        _ = try Self.wave(
            [Self.snapshot("a", next: Self.now.addingTimeInterval(600)), Self.snapshot("b", next: Self.now.addingTimeInterval(60))],
            shard: 1, into: folder.url)
        let manifest = try folder.read("index.json")
        let gallery = try folder.read("index.html")
        let second = try Self.wave([Self.snapshot("c", next: nil)], shard: 2, into: folder.url)
        #expect(try folder.read("index.json") == manifest && folder.read("index.html") == gallery, "the same bytes from each shard")
        #expect(
            folder.names() == [".state", "a.html", "a.json", "b.html", "b.json", "c.html", "c.json", "index.html", "index.json", "shards"])
        #expect(folder.names(in: "shards") == ["1-of-2.html", "1-of-2.json", "2-of-2.html", "2-of-2.json"])

        let index = try JSONReader.read(Data(manifest.utf8))
        #expect(index == SnapshotStore.shardManifest(count: 2))
        #expect(index["parts"]?.array?.compactMap(\.string) == ["shards/1-of-2.json", "shards/2-of-2.json"])
        #expect(gallery == ShardGalleryPage(count: 2).html)
        #expect(gallery.contains("<meta name=\"widgetd-shards\" content=\"2\">") && !gallery.contains("<article"))

        // Each part lists its own widgets, as index.json does without shards, with when it is due to change.
        let first = try JSONReader.read(Data(try folder.read("shards/1-of-2.json").utf8))
        #expect(first["widgets"]?.array?.compactMap { $0["id"]?.string } == ["a", "b"])
        #expect(first["widgets"]?.array?.first?["page"]?.string == "a.html")
        #expect(first["shard"]?.string == "1/2")
        #expect(first["nextWriteAt"]?.string == Timestamp.string(Self.now.addingTimeInterval(60)))
        #expect(first["schemaVersion"]?.number == 1 && first["generation"]?.string?.count == 16)
        let part = try JSONReader.read(Data(try folder.read("shards/2-of-2.json").utf8))
        #expect(part["nextWriteAt"] == .null)
        // The part's page is the gallery of its cards, whose generation the part carries.
        let page = try folder.read("shards/2-of-2.html")
        #expect(page.contains("id=\"w-c\"") && !page.contains("id=\"w-a\""))
        #expect(page.contains("<meta name=\"widgetd-generation\" content=\"\(part["generation"]?.string ?? "-")\">"))

        // The metrics and the daemon's record are the shard's own.
        #expect(second.metricsFile == folder.file("shards/2-of-2.prom"))
        try second.writeDaemonRecord(DaemonRecord(pid: 7, startedAt: Self.now, widgets: 1, shard: "2/2"))
        #expect(folder.names(in: ".state/shards/2-of-2") == ["daemon.json"])
        #expect(second.daemonRecord()?.pid == 7)
        // A store without a shard (status) finds the one shard's record.
        #expect(SnapshotStore(directory: folder.url).daemonRecord()?.shard == "2/2")
    }

    @Test func aManifestOrGalleryAlreadyWrittenIsNotWrittenAgain() throws {
        let folder = try TemporaryFolder()
        _ = try Self.wave([Self.snapshot("a", next: nil)], shard: 1, into: folder.url)
        let before = try FileManager.default.attributesOfItem(atPath: folder.file("index.json").path)[.systemFileNumber] as? Int
        let page = try FileManager.default.attributesOfItem(atPath: folder.file("index.html").path)[.systemFileNumber] as? Int
        _ = try Self.wave([Self.snapshot("b", next: nil)], shard: 2, into: folder.url)
        // A replacement is a new file (a rename); the same file means no write.
        #expect(try FileManager.default.attributesOfItem(atPath: folder.file("index.json").path)[.systemFileNumber] as? Int == before)
        #expect(try FileManager.default.attributesOfItem(atPath: folder.file("index.html").path)[.systemFileNumber] as? Int == page)
    }

    @Test func aShardsPartsAreObjectsOfAnyOutputWithTheirHeaders() throws {
        let folder = try TemporaryFolder()
        let output = MemoryOutput(localFolder: folder.url)
        var store = SnapshotStore(output: output)
        store.shard = try Shard(number: 3, count: 3)
        let snapshot = Self.snapshot("a", next: nil)
        try store.write(snapshot)
        let page = try store.writeGallery([try store.writeCard(of: snapshot, definition: nil)], writtenAt: Self.now)
        try store.writeIndex([snapshot], generatedAt: Self.now, gallery: page)
        try store.writeMetrics("widgetd_widgets 1\n")
        try store.writeDaemonRecord(DaemonRecord(pid: 7, startedAt: Self.now, widgets: 1, shard: "3/3"))
        #expect(
            output.keys == [
                ".state/shards/3-of-3/daemon.json", "a.html", "a.json", "index.html", "index.json", "shards/3-of-3.html",
                "shards/3-of-3.json", "shards/3-of-3.prom",
            ])
        #expect(output.object("shards/3-of-3.json")?.contentType == "application/json")
        #expect(output.object("shards/3-of-3.html")?.contentType == "text/html; charset=utf-8")
        #expect(output.object("index.html")?.cacheControl == "public, max-age=5")
        #expect(output.object(".state/shards/3-of-3/daemon.json")?.cacheControl == "no-store")
        #expect(output.read("index.json") == JSONWriter.data(SnapshotStore.shardManifest(count: 3), style: .pretty) + Data([0x0A]))
        #expect(FileManager.default.fileExists(atPath: folder.file("shards").path) == false, "nothing bypasses the output")
    }

    @Test func withoutAShardTheIndexAndGalleryAreAsBefore() throws {
        let folder = try TemporaryFolder()
        let store = SnapshotStore(directory: folder.url)
        try FolderOutput(folder: store.directory).prepareFolder()
        let snapshot = Self.snapshot("a", next: nil)
        try store.write(snapshot)
        let page = try store.writeGallery([try store.writeCard(of: snapshot, definition: nil)], writtenAt: Self.now)
        try store.writeIndex([snapshot], generatedAt: Self.now, gallery: page)
        let index = try JSONReader.read(Data(try folder.read("index.json").utf8))
        #expect(index["widgets"]?.array?.count == 1 && index["parts"] == nil && index["shard"] == nil)
        #expect(try folder.read("index.html").contains("id=\"w-a\""))
        #expect(!folder.names().contains("shards"))
        #expect(store.metricsFile == folder.file("widgetd.prom"))
        #expect(store.daemonFile == folder.file(".state/_daemon.json"))
    }
}
