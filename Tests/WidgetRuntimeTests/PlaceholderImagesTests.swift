import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTestSupport
import WidgetTesting

@testable import WidgetRuntime

/// A placeholder's picture shipped beside its definition is brought into `OUT/assets/` when the
/// placeholder is served, as downloaded images are; anything else in the placeholder stays as written.
struct PlaceholderImagesTests {
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])

    @Test func aPictureBesideTheDefinitionIsCopiedIntoTheAssetsAndOtherStringsStayAsWritten() async throws {
        let folder = try TemporaryFolder("placeholder-images")
        try FileManager.default.createDirectory(at: folder.file("data"), withIntermediateDirectories: true)
        try Self.png.write(to: folder.file("data/sample.png"))
        try Self.png.write(to: folder.file("outside.png"))
        let widget = try TestWidgets.pipeline(
            """
            {"source": {"type": "memory", "key": "art"}, "parser": "json",
             "placeholder": {"image": "data/sample.png", "missing": "data/none.png", "up": "data/../outside.png",
                             "absolute": "\(folder.file("outside.png").path)", "text": "data/sample.png is a sample",
                             "list": ["data/sample.png"]}}
            """, file: folder.file("art.json").path)
        let source = InMemorySource()
        source.fail("art", message: "down")
        var refresher = TestWidgets.refresher(source)
        refresher.assetsDirectory = folder.file("out/assets")

        let outcome = await refresher.refresh(widget, state: WidgetState(), now: TestWidgets.date("2026-11-22T15:00:00Z"))
        #expect(outcome.snapshot.status == .placeholder)
        let stored = "assets/\(SHA256.hexDigest(of: Self.png)).png"
        #expect(
            outcome.snapshot.entries.first?.content == [
                "image": .string(stored), "missing": "data/none.png", "up": "data/../outside.png",
                "absolute": .string(folder.file("outside.png").path), "text": "data/sample.png is a sample",
                "list": [.string(stored)],
            ])
        #expect(try Data(contentsOf: folder.file("out/" + stored)) == Self.png)
        #expect(folder.names(in: "out/assets") == ["\(SHA256.hexDigest(of: Self.png)).png"])

        // A preview has no assets folder: the placeholder is served as written.
        refresher.assetsDirectory = nil
        let preview = await refresher.refresh(widget, state: WidgetState(), now: TestWidgets.date("2026-11-22T15:00:00Z"))
        #expect(preview.snapshot.entries.first?.content["image"] == "data/sample.png")
    }

    @Test func aLinkThatLeadsOutOfTheDefinitionsFolderIsNotFollowed() async throws {
        let folder = try TemporaryFolder("placeholder-image-link")
        try FileManager.default.createDirectory(at: folder.file("widgets.d/data"), withIntermediateDirectories: true)
        try Self.png.write(to: folder.file("secret.png"))
        try FileManager.default.createSymbolicLink(
            atPath: folder.file("widgets.d/data/sample.png").path, withDestinationPath: folder.file("secret.png").path)
        let widget = try TestWidgets.pipeline(
            #"{"source": {"type": "memory", "key": "art"}, "parser": "json", "placeholder": {"image": "data/sample.png"}}"#,
            file: folder.file("widgets.d/art.json").path)
        let source = InMemorySource()
        source.fail("art", message: "down")
        var refresher = TestWidgets.refresher(source)
        refresher.assetsDirectory = folder.file("out/assets")

        let outcome = await refresher.refresh(widget, state: WidgetState(), now: TestWidgets.date("2026-11-22T15:00:00Z"))
        #expect(outcome.snapshot.entries.first?.content == ["image": "data/sample.png"])
        #expect(!FileManager.default.fileExists(atPath: folder.file("out/assets").path))
    }
}
