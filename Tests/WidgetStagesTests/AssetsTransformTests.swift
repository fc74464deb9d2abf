import Foundation
import Synchronization
import Testing
import WidgetCore
import WidgetJSON
import WidgetTesting

@testable import WidgetStages

struct AssetsTransformTests {
    /// A PNG signature and a little more: the bytes only need to be an image by content type.
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 4])
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 5, 6, 7, 8])

    final class Log: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func append(_ line: String) { lines.withLock { $0.append(line) } }
    }

    struct Fixture {
        let server: TestHTTPServer
        let out: URL
        let log = Log()
        let client = HTTPClient()

        init() throws {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("assets-\(UUID().uuidString)")
            let files = root.appendingPathComponent("files")
            try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
            try AssetsTransformTests.png.write(to: files.appendingPathComponent("a.png"))
            try AssetsTransformTests.png.write(to: files.appendingPathComponent("same-as-a.png"))
            try AssetsTransformTests.jpeg.write(to: files.appendingPathComponent("b.jpg"))
            try Data(repeating: 7, count: 4096).write(to: files.appendingPathComponent("big.png"))
            try Data("not an image".utf8).write(to: files.appendingPathComponent("note.txt"))
            server = try TestHTTPServer(root: files)
            out = root.appendingPathComponent("out")
        }

        var assets: URL { out.appendingPathComponent("assets") }

        func context(widget: String = "news", preview: Bool = false) -> StageContext {
            var resources = StageResources()
            resources.insert(client)
            let log = self.log
            return StageContext(
                widgetID: widget, now: Date(), assetsDirectory: preview ? nil : assets, resources: resources,
                log: { log.append($0) })
        }

        func url(_ name: String) -> String { server.url("/file/\(name)").absoluteString }

        func storedFiles() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: assets.path).sorted()
        }
    }

    func transform(_ options: WidgetValue = ["path": "$.items[*].image"]) throws -> AssetsTransform {
        try AssetsTransform(options: OptionsDecoder().decode(AssetsTransform.Options.self, from: options))
    }

    @Test func imagesAreStoredByContentAndURLsRewritten() async throws {
        let fixture = try Fixture()
        let value: WidgetValue = [
            "items": [
                ["title": "A", "image": .string(fixture.url("a.png"))],
                ["title": "B", "image": .string(fixture.url("b.jpg"))],
                ["title": "A again", "image": .string(fixture.url("same-as-a.png"))],
                ["title": "none", "image": nil],
            ]
        ]
        let result = try await transform().transform(value, context: fixture.context())
        let pngName = SHA256.hexDigest(of: Self.png) + ".png"
        let jpegName = SHA256.hexDigest(of: Self.jpeg) + ".jpg"
        #expect(result["items"]?[0]?["image"] == .string("assets/" + pngName))
        #expect(result["items"]?[1]?["image"] == .string("assets/" + jpegName))
        #expect(result["items"]?[2]?["image"] == .string("assets/" + pngName))
        #expect(result["items"]?[3]?["image"] == nil as WidgetValue)
        #expect(result["items"]?[0]?["title"] == "A")
        #expect(try fixture.storedFiles() == [pngName, jpegName].sorted())
        #expect(try Data(contentsOf: fixture.assets.appendingPathComponent(pngName)) == Self.png)
    }

    @Test func theSameImageUsedByTwoWidgetsIsStoredOnce() async throws {
        let fixture = try Fixture()
        let first = try await transform(["path": "$.image"]).transform(
            ["image": .string(fixture.url("a.png"))], context: fixture.context(widget: "one"))
        let second = try await transform(["path": "$.picture"]).transform(
            ["picture": .string(fixture.url("same-as-a.png"))], context: fixture.context(widget: "two"))
        #expect(first["image"] == second["picture"])
        #expect(try fixture.storedFiles().count == 1)
    }

    @Test func failedImagesKeepTheirURLsAndAreLogged() async throws {
        let fixture = try Fixture()
        let value: WidgetValue = [
            "items": [
                ["image": .string(fixture.url("missing.png"))],
                ["image": .string(fixture.url("big.png"))],
                ["image": .string(fixture.url("note.txt"))],
                ["image": .string(fixture.url("a.png"))],
            ]
        ]
        let result = try await transform(["path": "$.items[*].image", "maxBytes": 1024]).transform(value, context: fixture.context())
        #expect(result["items"]?[0]?["image"] == .string(fixture.url("missing.png")))
        #expect(result["items"]?[1]?["image"] == .string(fixture.url("big.png")))
        #expect(result["items"]?[2]?["image"] == .string(fixture.url("note.txt")))
        #expect(result["items"]?[3]?["image"]?.string?.hasPrefix("assets/") == true)
        let lines = fixture.log.all
        #expect(lines.count == 3)
        #expect(lines.contains { $0.contains("missing.png") && $0.contains("404") })
        #expect(lines.contains { $0.contains("big.png") && $0.contains("1024") })
        #expect(lines.contains { $0.contains("note.txt") && $0.contains("not an image") })
        #expect(try fixture.storedFiles().count == 1)
    }

    @Test func aPreviewLeavesURLsUntouched() async throws {
        let fixture = try Fixture()
        let value: WidgetValue = ["items": [["image": .string(fixture.url("a.png"))]]]
        let result = try await transform().transform(value, context: fixture.context(preview: true))
        #expect(result == value)
        #expect(!FileManager.default.fileExists(atPath: fixture.assets.path))
    }

    @Test func downloadsRespectTheConcurrencyLimit() async throws {
        let fixture = try Fixture()
        var items: [WidgetValue] = []
        for index in 0..<6 { items.append(["image": .string(fixture.url("a.png") + "?n=\(index)")]) }
        _ = try await fixture.client.send(HTTPRequest(url: fixture.server.url("/stats?reset=1")))
        let result = try await transform(["path": "$[*].image", "concurrency": 2]).transform(.array(items), context: fixture.context())
        #expect(result.array?.allSatisfy { $0["image"]?.string?.hasPrefix("assets/") == true } == true)
        let stats = try await fixture.client.send(HTTPRequest(url: fixture.server.url("/stats")))
        let counts = try JSONReader.read(stats.body)
        #expect((counts["maxConcurrent"]?.number?.int ?? 99) <= 2)
        #expect(counts["total"]?.number?.int == 6)
    }

    @Test func garbageCollectionDeletesAssetsNoSnapshotReferences() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["kept.png", "shared.jpg", "orphan.png", "old.gif"] {
            try Data([1]).write(to: folder.appendingPathComponent(name))
        }
        let snapshots: [WidgetValue] = [
            ["entries": [["content": ["image": "assets/kept.png"]]]],
            ["entries": [["content": ["items": [["thumb": "assets/shared.jpg"], ["thumb": "https://remote.example/x.png"]]]]]],
        ]
        let deleted = AssetGarbageCollector.collect(in: folder, referencedBy: snapshots)
        #expect(deleted == ["old.gif", "orphan.png"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["kept.png", "shared.jpg"])
        #expect(AssetGarbageCollector.collect(in: folder.appendingPathComponent("missing"), referencedBy: []) == [])
    }

    @Test func optionsAreChecked() throws {
        #expect(throws: (any Error).self) { try transform(["path": "$.items[*].image", "maxBytes": 0]) }
        #expect(throws: (any Error).self) { try transform(["path": "$.items[*].image", "concurrency": 0]) }
        #expect(throws: (any Error).self) { try transform(["path": "items["]) }
        #expect(try transform().maxBytes == 5 * 1024 * 1024)
        #expect(try transform().concurrency == 4)
        #expect(AssetsTransform.fileExtension(for: "image/jpeg") == "jpg")
        #expect(AssetsTransform.fileExtension(for: "image/svg+xml") == "svg")
    }
}
