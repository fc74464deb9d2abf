import Foundation
import Testing
import WidgetTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One daemon per output folder, by the kernel's lock: never two, and never none because of a stale
/// pid file.
struct DaemonLockTests {
    @Test func twoDaemonsStartedTogetherNeverBothRun() async throws {
        let folder = try TemporaryFolder()
        try ClosedOutputTests.config(in: folder)
        let arguments = ["run", "--config", "widgets.d", "--out", "out"]
        for trial in 1...20 {
            let first = try RunningWidgetd(arguments, in: folder.url)
            let second = try RunningWidgetd(arguments, in: folder.url)
            let lines = [await first.line(containing: "widgetd") ?? "", await second.line(containing: "widgetd") ?? ""]
            let running = lines.filter { $0.contains("widgetd running") }
            let refused = lines.filter { $0.contains("another widgetd") && $0.contains("is already writing to") }
            #expect(running.count == 1 && refused.count == 1, "trial \(trial): \(lines)")
            // The refused one exits 1 at once; the other runs until it is stopped, and stops cleanly.
            let (winner, loser) = lines[0].contains("widgetd running") ? (first, second) : (second, first)
            #expect(await loser.waitForExit() == 1, "trial \(trial)")
            #expect(winner.isRunning, "trial \(trial)")
            #expect(await winner.stop() == 0, "trial \(trial)")
        }
    }

    @Test func aStalePidFileNamingALiveProcessDoesNotBlockAStart() async throws {
        let folder = try TemporaryFolder()
        try ClosedOutputTests.config(in: folder)
        // Left by a daemon killed with SIGKILL, its pid since reused by another process (here: init).
        try folder.write("out/.state/daemon.pid", "1\n")
        let widgetd = try RunningWidgetd(["run", "--config", "widgets.d", "--out", "out"], in: folder.url)
        #expect(await widgetd.line(containing: "widgetd running") != nil)
        #expect(try folder.read("out/.state/daemon.pid") == "\(widgetd.pid)\n")
        #expect(await widgetd.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: folder.file("out/.state/daemon.pid").path))
    }

    @Test func reloadFindsNoDaemonOnceItStopped() async throws {
        let folder = try TemporaryFolder()
        try ClosedOutputTests.config(in: folder)
        let widgetd = try RunningWidgetd(["run", "--config", "widgets.d", "--out", "out"], in: folder.url)
        #expect(await widgetd.line(containing: "widgetd running") != nil)
        // Its first wave writes the snapshot that tells reload which widgets it runs.
        #expect(await widgetd.line(containing: "items: fresh") != nil)
        let misspelt = try await Widgetd.run(["reload", "itmes", "--out", "out"], in: folder.url)
        #expect(misspelt.status == 1)
        #expect(misspelt.stderrLines == ["Error: the daemon writing to out runs no widget 'itmes'; did you mean 'items'? (it runs: items)"])
        let asked = try await Widgetd.run(["reload", "items", "--out", "out"], in: folder.url)
        #expect(asked.status == 0)
        #expect(asked.stdout.contains("pid \(widgetd.pid)"))
        #expect(await widgetd.stop(SIGKILL) != 0)
        // Killed without a chance to clean up: the pid file stays, the kernel released the lock.
        #expect(FileManager.default.fileExists(atPath: folder.file("out/.state/daemon.pid").path))
        let after = try await Widgetd.run(["reload", "items", "--out", "out"], in: folder.url)
        #expect(after.status == 1)
        #expect(after.stderr.contains("no widgetd is running"))
    }

    @Test func runOnceRefusesAnOutputFolderADaemonIsWritingTo() async throws {
        let folder = try TemporaryFolder()
        try ClosedOutputTests.config(in: folder)
        let widgetd = try RunningWidgetd(["run", "--config", "widgets.d", "--out", "out"], in: folder.url)
        #expect(await widgetd.line(containing: "widgetd running") != nil)
        let once = try await Widgetd.run(["run", "--config", "widgets.d", "--out", "out", "--once"], in: folder.url)
        #expect(once.status == 1)
        #expect(once.stderr.contains("another widgetd (pid \(widgetd.pid)) is already writing to"))
        #expect(await widgetd.stop() == 0)
        let after = try await Widgetd.run(["run", "--config", "widgets.d", "--out", "out", "--once"], in: folder.url)
        #expect(after.status == 0)
    }
}
