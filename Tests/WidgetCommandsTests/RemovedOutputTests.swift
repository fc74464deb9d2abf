import Foundation
import Testing
import WidgetRuntime
import WidgetTestSupport

@testable import WidgetCommands

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `rm -rf OUT` under a running daemon removes its lock file with the folder: a second daemon then
/// starts on a new `OUT`, and the first notices at its next wave or write and stops, so the two never
/// both write.
@Suite(.timeLimit(.minutes(5)))
struct RemovedOutputTests {
    @Test func theLockNoticesItsFolderRemovedOrReplaced() throws {
        let folder = try TemporaryFolder()
        let store = SnapshotStore(directory: folder.file("out"))
        let first = try DaemonLock(store: store, recordingPID: false)
        defer { first.release() }
        try first.check()

        try FileManager.default.removeItem(at: folder.file("out"))
        #expect(throws: StoreError.self) { try first.check() }
        // A new folder at the same path: another process can lock it, and the first still refuses.
        let second = try DaemonLock(store: store, recordingPID: false)
        defer { second.release() }
        try second.check()
        do {
            try first.check()
            Issue.record("the first lock did not notice its folder was replaced")
        } catch {
            #expect(
                "\(error)"
                    == "the output folder \(store.directory.path) was removed or replaced while this widgetd wrote to it, so another widgetd may now write there; stopping without writing more. Start widgetd again to write to it (it refuses while another holds it)."
            )
        }
    }

    @Test func theLockNoticesItsStateFolderRemoved() throws {
        let folder = try TemporaryFolder()
        let store = SnapshotStore(directory: folder.file("out"))
        let lock = try DaemonLock(store: store, recordingPID: false)
        defer { lock.release() }
        try FileManager.default.removeItem(at: store.stateDirectory)
        #expect(throws: StoreError.self) { try lock.check() }
    }

    @Test func aDaemonWhoseOutputFolderWasRemovedStopsAndTheNewOneRuns() async throws {
        let folder = try TemporaryFolder()
        try ClosedOutputTests.config(in: folder)
        let arguments = ["run", "--config", "widgets.d", "--out", "out"]
        let first = try RunningWidgetd(arguments, in: folder.url)
        #expect(await first.line(containing: "items: fresh") != nil)
        // As `rm -rf` does: the daemon may add a file while the folder is emptied, then it goes again.
        for _ in 0..<100 where FileManager.default.fileExists(atPath: folder.file("out").path) {
            try? FileManager.default.removeItem(at: folder.file("out"))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("out").path))
        let second = try RunningWidgetd(arguments, in: folder.url)
        #expect(await second.line(containing: "widgetd running") != nil)
        // The first stops at its next wave (the widget refreshes every second), with the reason.
        #expect(await first.line(containing: "was removed or replaced while this widgetd wrote to it") != nil)
        #expect(await first.waitForExit() == 1)
        #expect(second.isRunning)
        #expect(await second.line(containing: "items: fresh") != nil)
        #expect(try folder.read("out/.state/daemon.pid") == "\(second.pid)\n")
        #expect(await second.stop() == 0)
    }
}
