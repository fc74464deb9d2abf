import Foundation
import Testing
import WidgetTestSupport

@testable import WidgetRuntime

/// The folder behind the output protocol: each key a file, written atomically, read without following
/// links, listed without temporary files.
struct FolderOutputTests {
    @Test func aKeyIsAFileReplacedWholeAndRemoved() throws {
        let folder = try TemporaryFolder("folder-output")
        let output = FolderOutput(folder: folder.file("out"))
        try output.prepareFolder()
        #expect(output.localFolder.path == folder.file("out").path)
        try output.write(Data("one".utf8), to: "news.json", as: .state)
        try output.write(
            Data("two".utf8), to: "news.json", as: OutputObject(contentType: "application/json", durability: .rebuildable, flush: .later))
        #expect(try folder.read("out/news.json") == "two")
        #expect(output.read("news.json") == Data("two".utf8))
        output.flush()
        output.remove("news.json")
        output.remove("news.json")
        #expect(output.read("news.json") == nil)
        #expect(!FileManager.default.fileExists(atPath: folder.file("out/news.json").path))
    }

    @Test func aKeyInAFolderNotYetMadeCreatesIt() throws {
        let folder = try TemporaryFolder("folder-output-nested")
        let output = FolderOutput(folder: folder.file("out"))
        try output.prepareFolder()
        try output.write(Data("{}".utf8), to: "shards/1-of-3.json", as: OutputObject(contentType: "application/json", flush: .later))
        try output.write(Data("{}".utf8), to: ".state/shards/1-of-3/daemon.json", as: .state)
        output.flush()
        #expect(output.names(in: "shards") == ["1-of-3.json"])
        #expect(output.read(".state/shards/1-of-3/daemon.json") == Data("{}".utf8))
    }

    @Test func namesLeaveOutTemporaryFilesAndPrepareRemovesThem() throws {
        let folder = try TemporaryFolder("folder-output-names")
        let output = FolderOutput(folder: folder.file("out"))
        try output.prepareFolder()
        try FileManager.default.createDirectory(at: folder.file("out/assets"), withIntermediateDirectories: true)
        try folder.write("out/news.json", "{}")
        try folder.write("out/.news.json.tmp-123", "{")
        try folder.write("out/assets/ab.png", "png")
        try folder.write("out/assets/.cd.png.tmp-9", "p")
        try folder.write("out/assets/.ef.png.1234.tmp", "p")
        #expect(output.names(in: "").sorted() == [".state", "assets", "news.json"])
        #expect(output.names(in: "assets") == ["ab.png"])
        #expect(output.names(in: "missing") == [])

        try output.prepareFolder()
        #expect(folder.names(in: "out").sorted() == [".state", "assets", "news.json"])
        #expect(folder.names(in: "out/assets") == ["ab.png"])
    }

    @Test func aLinkIsNotReadThrough() throws {
        let folder = try TemporaryFolder("folder-output-link")
        let output = FolderOutput(folder: folder.file("out"))
        try output.prepareFolder()
        try folder.write("secret.json", #"{"secret": true}"#)
        try FileManager.default.createSymbolicLink(
            atPath: folder.file("out/news.json").path, withDestinationPath: folder.file("secret.json").path)
        #expect(output.read("news.json") == nil)
        // A write replaces the link, never writes through it.
        try output.write(Data("{}".utf8), to: "news.json", as: .state)
        #expect(try folder.read("secret.json") == #"{"secret": true}"#)
        #expect(output.read("news.json") == Data("{}".utf8))
    }

    @Test func publishingAFileAlreadyInTheFolderChangesNothing() throws {
        let folder = try TemporaryFolder("folder-output-publish")
        let output = FolderOutput(folder: folder.file("out"))
        try output.prepareFolder()
        try FileManager.default.createDirectory(at: folder.file("out/assets"), withIntermediateDirectories: true)
        try folder.write("out/assets/ab.png", "png")
        output.publish(localFile: "assets/ab.png", as: .asset(named: "ab.png"))
        #expect(try folder.read("out/assets/ab.png") == "png")
        #expect(folder.names(in: "out/assets") == ["ab.png"])
    }

    @Test func aStoreOfAFolderKeepsItsStateInTheJournal() throws {
        let folder = try TemporaryFolder("folder-output-journal")
        let store = SnapshotStore(directory: folder.file("out"))
        try FolderOutput(folder: store.directory).prepareFolder()
        var state = WidgetState()
        state.budgetUsed = 3
        try store.writeState(state, for: "news")
        #expect(folder.names(in: "out/.state") == ["_states.jsonl"])
        #expect(store.state(for: "news").budgetUsed == 3)
    }
}
