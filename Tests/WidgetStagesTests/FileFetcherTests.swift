import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct FileFetcherTests {
    /// A fresh folder with `data/items.json` (`{"items": [1, 2]}`), `big.txt` (11 bytes) and `notes.TXT`.
    private static func makeFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("file-fetcher-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("data"), withIntermediateDirectories: true)
        try Data(#"{"items": [1, 2]}"#.utf8).write(to: folder.appendingPathComponent("data/items.json"))
        try Data("0123456789\n".utf8).write(to: folder.appendingPathComponent("big.txt"))
        try Data("note".utf8).write(to: folder.appendingPathComponent("notes.TXT"))
        return folder
    }

    private func context(base: URL?) -> StageContext {
        StageContext(
            widgetID: "test",
            now: Date(timeIntervalSince1970: 1_795_340_203),
            timeZone: TimeZone(identifier: "America/New_York")!,
            baseDirectory: base
        )
    }

    private func fetcher(_ options: WidgetValue) throws -> FileFetcher {
        let stage = try StageRegistry.builtIn.makeStage(.fetcher, typeName: "file", options: options, decoder: OptionsDecoder())
        return try #require(stage as? FileFetcher)
    }

    private func optionsError(_ options: WidgetValue) -> OptionsError? {
        do {
            _ = try StageRegistry.builtIn.makeStage(.fetcher, typeName: "file", options: options, decoder: OptionsDecoder())
            return nil
        } catch {
            return error
        }
    }

    @Test func aRelativePathStartsAtTheBaseDirectory() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let payload = try await fetcher(["path": "data/items.json"]).fetch(context: context(base: folder))
        #expect(payload.data == Data(#"{"items": [1, 2]}"#.utf8))
        #expect(payload.contentType == "application/json")
        #expect(payload.origin == "data/items.json")
        #expect(payload.charset == nil)
    }

    @Test func anAbsolutePathInsideTheBaseDirectoryIsRead() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let absolute = folder.appendingPathComponent("data/items.json").path
        let payload = try await fetcher(["path": .string(absolute)]).fetch(context: context(base: folder))
        #expect(payload.data == Data(#"{"items": [1, 2]}"#.utf8))
        #expect(payload.origin == absolute)
    }

    @Test func aPathOutsideTheBaseDirectoryIsRefusedUnlessAllowed() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("nowhere-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        for path in [folder.appendingPathComponent("data/items.json").path, "../\(folder.lastPathComponent)/data/items.json"] {
            await #expect {
                _ = try await fetcher(["path": .string(path)]).fetch(context: context(base: elsewhere))
            } throws: { error in
                (error as? StageError)?.message
                    == "the file \(path) is outside the definition's folder; move it there or allow its folder with --allow-path"
            }
        }
        var allowed = context(base: elsewhere)
        allowed.resources.insert(FileAccessPolicy(allowedFolders: [folder]))
        let payload = try await fetcher(["path": .string(folder.appendingPathComponent("data/items.json").path)]).fetch(context: allowed)
        #expect(payload.data == Data(#"{"items": [1, 2]}"#.utf8))
    }

    @Test func aMissingFileNamesThePathAndTheCause() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = await #expect(throws: StageError.self) {
            _ = try await fetcher(["path": "data/missing.json"]).fetch(context: context(base: folder))
        }
        #expect(error?.message == "the file data/missing.json cannot be opened: no such file; check that it exists and is readable")
    }

    @Test func aFileLargerThanMaxBytesIsRejected() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = await #expect(throws: StageError.self) {
            _ = try await fetcher(["path": "big.txt", "maxBytes": 10]).fetch(context: context(base: folder))
        }
        #expect(error?.message == #"the file big.txt is larger than the 10-byte limit; raise "maxBytes" if it is expected"#)
        let exact = try await fetcher(["path": "big.txt", "maxBytes": 11]).fetch(context: context(base: folder))
        #expect(exact.data.count == 11)
    }

    @Test func theContentTypeComesFromTheExtension() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = try await fetcher(["path": "notes.TXT"]).fetch(context: context(base: folder))
        #expect(text.contentType == "text/plain")
        #expect(FileFetcher.contentType(forExtension: "json") == "application/json")
        #expect(FileFetcher.contentType(forExtension: "xml") == "application/xml")
        #expect(FileFetcher.contentType(forExtension: "rss") == "application/rss+xml")
        #expect(FileFetcher.contentType(forExtension: "atom") == "application/atom+xml")
        #expect(FileFetcher.contentType(forExtension: "HTM") == "text/html")
        #expect(FileFetcher.contentType(forExtension: "csv") == nil)
        #expect(FileFetcher.contentType(forExtension: "") == nil)
    }

    @Test func badOptionsAreRejectedAtTheOption() throws {
        #expect(optionsError(["path": ""])?.description == #"$.path: "path" is empty; name a file such as "data/sample.json""#)
        #expect(optionsError(["path": "a.json", "maxBytes": 0])?.description == #"$.maxBytes: "maxBytes" must be above 0"#)
        #expect(optionsError([:])?.description == "$: missing required key 'path'")
    }

    /// A FIFO with no writer would block an ordinary open and read for ever; a folder or a device is no
    /// payload either. Each is refused at once with what it is.
    @Test func onlyRegularFilesAreRead() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(mkfifo(folder.appendingPathComponent("pipe").path, 0o600) == 0)
        for (path, kind) in [("pipe", "a FIFO"), ("data", "a folder")] {
            do {
                _ = try await fetcher(["path": .string(path)]).fetch(context: context(base: folder))
                Issue.record("\(path) was read")
            } catch let error as StageError {
                #expect(error.message == "the file \(path) is \(kind), not a regular file; point \"path\" at a file")
            }
        }
        // Without a base folder nothing restricts where the path points: a device is refused too.
        do {
            _ = try await fetcher(["path": "/dev/zero"]).fetch(context: context(base: nil))
            Issue.record("/dev/zero was read")
        } catch let error as StageError {
            #expect(error.message == "the file /dev/zero is a device, not a regular file; point \"path\" at a file")
        }
    }
}
