import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTestSupport
import WidgetTesting

@testable import WidgetRuntime

/// The daemon writes only through its output: over an output that is not a folder, every file a folder
/// would hold after a refresh, a wave, a gallery and an asset is an object of that output, and the local
/// folder holds nothing but the assets stages wrote there.
@Suite(.timeLimit(.minutes(5)))
struct OutputBypassTests {
    let start = TestWidgets.date("2026-11-22T15:00:00Z")
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 4, 5, 6])

    /// Runs the daemon over `store` until its first wave is written, then stops it.
    func runOneWave(config: TemporaryFolder, store: SnapshotStore) async throws {
        let source = InMemorySource()
        source.set("news", json: #"{"headline": "first"}"#)
        source.fail("art", message: "down")
        let clock = ManualClock(now: start)
        var refresher = TestWidgets.refresher(source)
        refresher.assetsDirectory = store.assetsDirectory
        let daemon = WidgetDaemon(
            configuration: .init(
                definitions: DefinitionDirectory(path: config.path), store: store, reader: TestWidgets.reader,
                refresher: refresher, clock: clock, log: LogRecorder().log, keepsEveryRefreshReport: true))
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        _ = try #require(await reports.next())
        _ = try #require(await reports.next())
        await clock.waitForSleeper()
        task.cancel()
        try await task.value
    }

    /// Every file under `folder`, as keys (`assets/x.png`, `.state/_daemon.json`).
    static func files(in folder: URL, under prefix: String = "") -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.flatMap { name -> [String] in
            let url = folder.appendingPathComponent(name)
            var isFolder: ObjCBool = false
            FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
            return isFolder.boolValue ? files(in: url, under: prefix + name + "/") : [prefix + name]
        }.sorted()
    }

    @Test func everyFileAFolderWouldHoldIsAnObjectOfTheOutput() async throws {
        let config = try TemporaryFolder("bypass-config")
        try config.write(
            "news.json",
            #"{"title": "News", "source": {"type": "memory", "key": "news"}, "parser": "json", "schedule": {"every": "1h"}}"#)
        try config.write(
            "art.json",
            #"{"source": {"type": "memory", "key": "art"}, "parser": "json", "schedule": {"every": "1h"}, "placeholder": {"image": "data/sample.png"}}"#
        )
        try FileManager.default.createDirectory(at: config.file("data"), withIntermediateDirectories: true)
        try Self.png.write(to: config.file("data/sample.png"))
        let asset = "assets/\(SHA256.hexDigest(of: Self.png)).png"

        let folder = try TemporaryFolder("bypass-folder")
        try await runOneWave(config: config, store: SnapshotStore(directory: folder.url))
        let work = try TemporaryFolder("bypass-work")
        let output = MemoryOutput(localFolder: work.url)
        let store = SnapshotStore(output: output)
        try await runOneWave(config: config, store: store)

        // The folder's files, with its state journal as one object per widget.
        let expected = Self.files(in: folder.url).flatMap { key in
            key == ".state/_states.jsonl" ? [".state/art.json", ".state/news.json"] : [key]
        }.sorted()
        #expect(expected.contains(asset))
        #expect(expected.contains("index.html") && expected.contains("news.html") && expected.contains("widgetd.prom"))
        #expect(output.keys == expected)
        // Nothing else on disk: the asset the placeholder stored, before it was published.
        #expect(Self.files(in: work.url) == [asset])

        // What was written reads back through the store.
        #expect(store.snapshot(for: "news")?.entries.first?.content == ["headline": "first"])
        #expect(store.state(for: "news").lastSuccessAt == start)
        #expect(store.snapshotIDs() == ["art", "news"])
        #expect(store.daemonRecord()?.stoppedAt != nil)
        #expect(output.flushCount > 0)

        // Each object with its metadata.
        let snapshot = try #require(output.object("news.json"))
        #expect(snapshot.fingerprint != nil && snapshot.heartbeat == OutputObject.contentHeartbeat)
        var headers = snapshot
        (headers.fingerprint, headers.heartbeat) = (nil, nil)
        #expect(headers == OutputObject(contentType: "application/json", cacheControl: "public, max-age=3600", flush: .later))
        #expect(output.object("news.html")?.contentType == "text/html; charset=utf-8")
        #expect(output.object("index.json")?.cacheControl == "public, max-age=5")
        #expect(output.object("index.html")?.cacheControl == "public, max-age=5")
        #expect(output.object("widgetd.prom")?.contentType == "text/plain; version=0.0.4")
        #expect(output.object(".state/news.json")?.cacheControl == "no-store")
        #expect(output.object(".state/_daemon.json")?.cacheControl == "no-store")
        #expect(output.object(asset) == .asset(named: String(asset.dropFirst("assets/".count))))
        #expect(output.read(asset) == Self.png)
    }

    @Test func anAssetNothingUsesIsRemovedThroughTheOutput() async throws {
        let work = try TemporaryFolder("bypass-janitor")
        let output = MemoryOutput(localFolder: work.url)
        let store = SnapshotStore(output: output)
        try FileManager.default.createDirectory(at: store.assetsDirectory, withIntermediateDirectories: true)
        try Self.png.write(to: store.assetsDirectory.appendingPathComponent("ab.png"))
        try Self.png.write(to: store.assetsDirectory.appendingPathComponent("cd.png"))
        store.publishAssets(["assets/ab.png", "assets/cd.png", "assets/missing.png", "assets/../x.png"])
        store.publishAssets(["assets/ab.png"])
        #expect(output.keys == ["assets/ab.png", "assets/cd.png"])

        var janitor = WidgetDaemon.AssetJanitor()
        var state = WidgetState()
        state.fallbackItems = [["image": "assets/ab.png#top"]]
        janitor.update("news", snapshot: nil, state: state)
        janitor.collect(in: store, log: { _ in })
        #expect(output.keys == ["assets/ab.png"])
    }
}
