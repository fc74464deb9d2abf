import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages

/// `path` sources are opened without following links once their path is checked, so a file or folder
/// swapped for a link between the check and the open is refused instead of read.
struct PathSourceLinkTests {
    static let inside = #"{"where": "inside"}"#
    static let outside = #"{"where": "outside"}"#

    /// A folder with `widgets.d/data/items.json` and, beside `widgets.d`, `outside/items.json`.
    private static func makeFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("path-links-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("widgets.d/data"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("outside"), withIntermediateDirectories: true)
        try Data(inside.utf8).write(to: folder.appendingPathComponent("widgets.d/data/items.json"))
        try Data(outside.utf8).write(to: folder.appendingPathComponent("outside/items.json"))
        return folder
    }

    private static func fetch(_ path: String, base: URL) async throws -> Data {
        let stage = try StageRegistry.builtIn.makeStage(
            .fetcher, typeName: "file", options: ["path": .string(path)], decoder: OptionsDecoder())
        let fetcher = try #require(stage as? FileFetcher)
        let context = StageContext(widgetID: "test", now: Date(), timeZone: TimeZone(identifier: "UTC")!, baseDirectory: base)
        return try await fetcher.fetch(context: context).data
    }

    private static func link(_ path: URL, to target: URL) throws {
        try FileManager.default.createSymbolicLink(atPath: path.path, withDestinationPath: target.path)
    }

    @Test func aLinkToAFileOutsideTheFolderIsRefused() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.link(folder.appendingPathComponent("widgets.d/data/link.json"), to: folder.appendingPathComponent("outside/items.json"))
        await #expect(
            throws: StageError(
                "the file data/link.json is outside the definition's folder; move it there or allow its folder with --allow-path")
        ) {
            try await Self.fetch("data/link.json", base: folder.appendingPathComponent("widgets.d"))
        }
    }

    @Test func aLinkThatStaysInsideTheFolderIsStillRead() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent("widgets.d/data/alias.json").path, withDestinationPath: "items.json")
        let data = try await Self.fetch("data/alias.json", base: folder.appendingPathComponent("widgets.d"))
        #expect(String(decoding: data, as: UTF8.self) == Self.inside)
    }

    @Test func aFileSwappedForALinkAfterTheCheckIsNotRead() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("widgets.d/data/items.json")
        // The check resolves the path; then the file becomes a link to the outside file before the open.
        let checked = try #require(RegularFile.canonicalPath(file.path))
        try FileManager.default.removeItem(at: file)
        try Self.link(file, to: folder.appendingPathComponent("outside/items.json"))
        #expect(throws: RegularFile.Failure.symbolicLink(path: checked)) {
            try RegularFile.readWithoutLinks(checked, maxBytes: 1024)
        }
    }

    @Test func aFolderSwappedForALinkAfterTheCheckIsNotRead() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("widgets.d/data")
        let checked = try #require(RegularFile.canonicalPath(data.appendingPathComponent("items.json").path))
        // The folder on the way is moved aside and replaced by a link to a folder outside.
        try FileManager.default.moveItem(at: data, to: folder.appendingPathComponent("widgets.d/moved"))
        try Self.link(data, to: folder.appendingPathComponent("outside"))
        let folderPath = String(checked.dropLast("/items.json".count))
        #expect(throws: RegularFile.Failure.symbolicLink(path: folderPath)) {
            try RegularFile.readWithoutLinks(checked, maxBytes: 1024)
        }
    }

    @Test func aPathWithoutLinksIsReadWhole() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let checked = try #require(RegularFile.canonicalPath(folder.appendingPathComponent("widgets.d/data/items.json").path))
        #expect(String(decoding: try RegularFile.readWithoutLinks(checked, maxBytes: 1024), as: UTF8.self) == Self.inside)
        #expect(throws: RegularFile.Failure.tooLarge(limit: 4)) { try RegularFile.readWithoutLinks(checked, maxBytes: 4) }
        #expect(throws: RegularFile.Failure.cannotOpen(reason: "no such file")) {
            try RegularFile.readWithoutLinks(checked + ".missing", maxBytes: 1024)
        }
    }
}
