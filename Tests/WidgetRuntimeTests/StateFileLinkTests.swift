import Foundation
import Testing
import WidgetCore
import WidgetRuntime
import WidgetTestSupport

/// widgetd never writes or reads its state through a symbolic link: a link at the state journal is an
/// error naming the file, and files replaced whole replace a link instead of following it.
struct StateFileLinkTests {
    /// An output folder, prepared, and beside it `victim.txt`, a file a link could point at.
    private static func layout() throws -> (TemporaryFolder, SnapshotStore, URL) {
        let folder = try TemporaryFolder()
        let store = SnapshotStore(directory: folder.file("out"))
        try FolderOutput(folder: store.directory).prepareFolder()
        let victim = try folder.write("victim.txt", "keep me\n")
        return (folder, store, victim)
    }

    private static func state(budget: Int) -> WidgetState {
        var state = WidgetState()
        state.budgetUsed = budget
        return state
    }

    @Test func aLinkAtTheStateJournalIsAnErrorNamingItAndItsTargetIsUntouched() throws {
        let (folder, store, victim) = try Self.layout()
        defer { withExtendedLifetime(folder) {} }
        try FileManager.default.createSymbolicLink(atPath: store.stateJournalFile.path, withDestinationPath: victim.path)
        do {
            try store.writeState(Self.state(budget: 1), for: "news")
            Issue.record("a state was written through the link")
        } catch {
            #expect(error.path == store.stateJournalFile.path)
            #expect(
                "\(error)"
                    == "Cannot write \(store.stateJournalFile.path) safely: it is a symbolic link, which widgetd does not follow; remove it."
            )
        }
        #expect(try String(contentsOf: victim, encoding: .utf8) == "keep me\n")
    }

    @Test func aLinkAtTheStateJournalIsNotRead() throws {
        let (folder, store, _) = try Self.layout()
        // A journal elsewhere, with a state for "news", linked into the state folder.
        let elsewhere = try folder.write("elsewhere.jsonl", #"{"id":"news","state":{"budgetUsed":9}}"# + "\n")
        try FileManager.default.createSymbolicLink(atPath: store.stateJournalFile.path, withDestinationPath: elsewhere.path)
        #expect(store.states(for: ["news"]).isEmpty)
        #expect(store.savedState(for: "news") == nil)
    }

    @Test func filesReplacedWholeReplaceALinkInsteadOfFollowingIt() throws {
        let (folder, store, victim) = try Self.layout()
        defer { withExtendedLifetime(folder) {} }
        try FileManager.default.createSymbolicLink(atPath: store.daemonFile.path, withDestinationPath: victim.path)
        try store.writeDaemonRecord(DaemonRecord(pid: 42, startedAt: Date(timeIntervalSince1970: 0), widgets: 1, shard: nil))
        #expect(try String(contentsOf: victim, encoding: .utf8) == "keep me\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: store.daemonFile.path)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect(store.daemonRecord()?.pid == 42)
    }
}
