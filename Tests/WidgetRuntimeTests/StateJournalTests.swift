import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetTestSupport

/// Widgets' states live in one append-only journal, `OUT/.state/_states.jsonl`: the last line of an id
/// wins, a line a crash cut short is skipped and then cut off, the journal is compacted as it grows, and
/// the state files of earlier versions are still read.
struct StateJournalTests {
    private func state(budget: Int, padding: Int = 0) -> WidgetState {
        var state = WidgetState()
        state.budgetUsed = budget
        state.budgetDay = "2026-11-25"
        if padding > 0 { state.fallbackItems = [.string(String(repeating: "x", count: padding))] }
        return state
    }

    private func lines(_ store: SnapshotStore) throws -> [String] {
        try String(contentsOf: store.stateJournalFile, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test func theLastWriteOfEachWidgetWins() throws {
        let folder = try TemporaryFolder()
        let store = SnapshotStore(directory: folder.file("out"))
        try FolderOutput(folder: store.directory).prepareFolder()
        try store.writeState(state(budget: 1), for: "news")
        try store.writeState(state(budget: 7), for: "weather")
        try store.writeState(state(budget: 2), for: "news", syncsFolder: false)
        #expect(store.state(for: "news").budgetUsed == 2)
        #expect(store.state(for: "weather").budgetUsed == 7)
        #expect(store.state(for: "nothing") == WidgetState())
        let states = store.states(for: ["news", "weather", "nothing"])
        #expect(states.keys.sorted() == ["news", "weather"])
        // One line per write, and no file of its own for any widget.
        #expect(try lines(store).count == 3)
        #expect(!FileManager.default.fileExists(atPath: store.stateFile(for: "news").path))
    }

    @Test func aLineACrashCutShortIsSkippedThenCutOff() throws {
        let folder = try TemporaryFolder()
        let store = SnapshotStore(directory: folder.file("out"))
        try FolderOutput(folder: store.directory).prepareFolder()
        try store.writeState(state(budget: 3), for: "news")
        // What a process killed during its append leaves: the start of a line, no newline.
        let handle = try FileHandle(forWritingTo: store.stateJournalFile)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"id":"news","state":{"budgetUsed":9,"fallbackIt"#.utf8))
        try handle.close()
        #expect(store.state(for: "news").budgetUsed == 3)

        // The next process to take the folder cuts it off before appending after it.
        try FolderOutput(folder: store.directory).prepareFolder()
        #expect(try lines(store).count == 1)
        try store.writeState(state(budget: 4), for: "news")
        #expect(try lines(store).count == 2)
        #expect(store.state(for: "news").budgetUsed == 4)
    }

    @Test func aJournalWithoutACompleteLineIsEmptiedByTheRepair() throws {
        let folder = try TemporaryFolder()
        let store = SnapshotStore(directory: folder.file("out"))
        try FolderOutput(folder: store.directory).prepareFolder()
        try Data(#"{"id":"ne"#.utf8).write(to: store.stateJournalFile)
        try FolderOutput(folder: store.directory).prepareFolder()
        #expect(try Data(contentsOf: store.stateJournalFile).isEmpty)
        try store.writeState(state(budget: 5), for: "news")
        #expect(store.state(for: "news").budgetUsed == 5)
    }

    @Test func aGrowingJournalIsCompactedToTheLastLineOfEachWidget() throws {
        let folder = try TemporaryFolder()
        let store = SnapshotStore(directory: folder.file("out"))
        try FolderOutput(folder: store.directory).prepareFolder()
        // Two widgets written 40 times each, ~100 KB a line: 8 MB appended in all.
        for round in 1...40 {
            try store.writeState(state(budget: round, padding: 100_000), for: "news", syncsFolder: false)
            try store.writeState(state(budget: round * 10, padding: 100_000), for: "weather", syncsFolder: false)
        }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: store.stateJournalFile.path)[.size] as? Int)
        // Compacted to two lines whenever it passed twice its compacted size (at least 1 MiB): never more
        // than that plus a line or two.
        #expect(size < 2 * (1 << 20) + 300_000, "\(size) bytes")
        #expect(try lines(store).count < 25)
        #expect(store.state(for: "news").budgetUsed == 40)
        #expect(store.state(for: "weather").budgetUsed == 400)
        #expect(AtomicFile.removeLeftovers(in: store.stateDirectory).isEmpty)
    }

    @Test func aJournalOfLatestLinesOnlyIsNotRewritten() throws {
        let folder = try TemporaryFolder()
        let store = SnapshotStore(directory: folder.file("out"))
        try FolderOutput(folder: store.directory).prepareFolder()
        func inode() throws -> Int? {
            try FileManager.default.attributesOfItem(atPath: store.stateJournalFile.path)[.systemFileNumber] as? Int
        }
        try store.writeState(state(budget: 0), for: "w0")
        let first = try inode()
        // 600 widgets of ~3 KB: 1.8 MB, past the minimum, but no line is written over.
        for index in 1..<600 { try store.writeState(state(budget: index, padding: 3_000), for: "w\(index)", syncsFolder: false) }
        #expect(try inode() == first)
        #expect(try lines(store).count == 600)
    }

    @Test func aStateIsReadAloneAtTheLineLastSeenEvenAfterACompaction() throws {
        let folder = try TemporaryFolder()
        let store = SnapshotStore(directory: folder.file("out"))
        try FolderOutput(folder: store.directory).prepareFolder()
        try store.writeState(state(budget: 1), for: "news")
        try store.writeState(state(budget: 2), for: "weather")
        store.indexStates()
        #expect(store.savedState(for: "news")?.budgetUsed == 1)
        #expect(store.savedState(for: "weather")?.budgetUsed == 2)
        #expect(store.savedState(for: "nothing") == nil)
        // Written over until the journal is compacted: the positions follow.
        for round in 3...30 { try store.writeState(state(budget: round, padding: 100_000), for: "news", syncsFolder: false) }
        #expect(try lines(store).count < 28)
        #expect(store.savedState(for: "news")?.budgetUsed == 30)
        #expect(store.savedState(for: "weather")?.budgetUsed == 2)
        // A line under way at the end is not yet a state.
        let handle = try FileHandle(forWritingTo: store.stateJournalFile)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"id":"weather","state":{"budgetUsed":99}}"#.utf8))
        try handle.close()
        #expect(store.states(for: ["weather"])["weather"]?.budgetUsed == 2)
    }

    @Test func stateFilesOfEarlierVersionsAreReadUntilTheJournalHasTheWidget() throws {
        let folder = try TemporaryFolder()
        let store = SnapshotStore(directory: folder.file("out"))
        try FolderOutput(folder: store.directory).prepareFolder()
        try AtomicFile.write(JSONWriter.data(state(budget: 6).value), to: store.stateFile(for: "legacy"))
        #expect(store.state(for: "legacy").budgetUsed == 6)
        try store.writeState(state(budget: 8), for: "legacy")
        #expect(store.state(for: "legacy").budgetUsed == 8)
        #expect(store.states(for: ["legacy"])["legacy"]?.budgetUsed == 8)
    }
}
