import Foundation
import Testing
import WidgetTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a `command` transform's program starts does not outlive the daemon's refresh, even a process that
/// left the program's process group (`setsid`, a double fork): on Linux the daemon adopts such orphans
/// (it is their child subreaper) and kills them when the program ends.
@Suite(.timeLimit(.minutes(5)))
struct CommandOrphanTests {
    #if os(Linux)
    /// Whether `pid` is gone (or a zombie nobody reaps yet, which no longer runs).
    static func gone(_ pid: pid_t) -> Bool {
        if kill(pid, 0) != 0 { return errno == ESRCH }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }

    /// Everything a writer sends into the FIFO at `path`, read on a thread of its own (opening it waits
    /// for the writer; the read ends when the writer closes it).
    static func readAll(_ path: String) async -> String {
        await withCheckedContinuation { continuation in
            Thread {
                let data = FileHandle(forReadingAtPath: path)?.readDataToEndOfFile() ?? Data()
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }.start()
        }
    }

    /// A folder with one widget, `orphan`, whose `command` transform runs `script` through `sh -c` in
    /// `widgets.d`.
    static func orphanWidget(_ script: String, timeout: String) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/data/in.json", #"{"n": 1}"#)
        let definition: [String: Any] = [
            "source": ["path": "data/in.json"], "parser": "json", "timeline": "single",
            "transforms": [["type": "command", "run": ["sh", "-c", script], "timeout": timeout]],
        ]
        try folder.write("widgets.d/orphan.json", String(decoding: try JSONSerialization.data(withJSONObject: definition), as: UTF8.self))
        return folder
    }

    /// Runs `script` (which writes its grandchild's pid to `../grandchild.pid`, then copies its input)
    /// as the `command` transform of one widget in `run --once`, and returns the grandchild's pid.
    static func runOnce(_ script: String, timeout: String = "20s", status: Int32 = 0) async throws -> pid_t {
        let folder = try orphanWidget(script, timeout: timeout)
        let output = try await Widgetd.run(["run", "--config", "widgets.d", "--out", "out", "--once"], in: folder.url)
        #expect(output.status == status, "\(output.stderr)")
        let text = try folder.read("grandchild.pid").trimmingCharacters(in: .whitespacesAndNewlines)
        return try #require(pid_t(text))
    }

    @Test func aGrandchildThatLeftTheGroupDoesNotOutliveTheRun() async throws {
        let grandchild = try await Self.runOnce("setsid sleep 1000 >/dev/null 2>&1 & echo $! > ../grandchild.pid; cat")
        let alive = !Self.gone(grandchild)
        if alive { kill(grandchild, SIGKILL) }
        #expect(!alive, "the program's grandchild \(grandchild) (in a session of its own) outlived run --once")
    }

    @Test func aGrandchildThatLeftTheGroupDoesNotOutliveTheTimeout() async throws {
        // The program waits past its 1 s timeout; its grandchild, in a session of its own, is orphaned
        // when the program is killed.
        let grandchild = try await Self.runOnce(
            "setsid sleep 1000 >/dev/null 2>&1 & echo $! > ../grandchild.pid; sleep 60", timeout: "1s", status: 1)
        let alive = !Self.gone(grandchild)
        if alive { kill(grandchild, SIGKILL) }
        #expect(!alive, "the program's grandchild \(grandchild) (in a session of its own) outlived the timeout")
    }

    @Test func aGrandchildThatLeftTheGroupIsKilledWhenItsProgramEndsWhileTheDaemonRuns() async throws {
        // Checked before the daemon ends, so that the sweep at its exit cannot stand in for the one after
        // each program's end.
        let folder = try Self.orphanWidget("setsid sleep 1000 >/dev/null 2>&1 & echo $! > ../grandchild.pid; cat", timeout: "20s")
        let fifo = folder.file("grandchild.pid").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let widgetd = try RunningWidgetd(["run", "--config", "widgets.d", "--out", "out"], in: folder.url)
        let text = await Self.readAll(fifo)
        let started = try #require(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), "no pid in \(text)")
        // The refresh ends after its program was reaped and the orphans it left were swept.
        _ = try #require(await widgetd.line(containing: "orphan: fresh"), "\(widgetd.log)")
        let alive = !Self.gone(started)
        if alive { kill(started, SIGKILL) }
        #expect(!alive, "the program's grandchild \(started) (in a session of its own) outlived its program")
        #expect(await widgetd.stop() == 0)
    }

    @Test func aGrandchildThatLeftTheGroupDoesNotOutliveTheDaemonsStop() async throws {
        let folder = try Self.orphanWidget(
            "setsid sleep 1000 >/dev/null 2>&1 & echo $! > ../grandchild.pid; sleep 60", timeout: "120s")
        // The program writes its grandchild's pid into a FIFO: reading it waits for the program, no polling.
        let fifo = folder.file("grandchild.pid").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let widgetd = try RunningWidgetd(["run", "--config", "widgets.d", "--out", "out"], in: folder.url)
        let text = await Self.readAll(fifo)
        let started = try #require(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), "no pid in \(text)")
        #expect(await widgetd.stop() == 0)
        let alive = !Self.gone(started)
        if alive { kill(started, SIGKILL) }
        #expect(!alive, "the program's grandchild \(started) (in a session of its own) outlived the daemon")
    }

    @Test func childrenTheDaemonInheritedFromAShellAreLeftAlone() async throws {
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/data/in.json", #"{"n": 1}"#)
        let definition: [String: Any] = [
            "source": ["path": "data/in.json"], "parser": "json", "timeline": "single",
            "transforms": [["type": "command", "run": ["cat"]]],
        ]
        try folder.write("widgets.d/plain.json", String(decoding: try JSONSerialization.data(withJSONObject: definition), as: UTF8.self))
        // `helper & exec widgetd`: the helper becomes a child of widgetd, not an orphan of a program. It
        // closes what it inherited (the test's Process learns of widgetd's end when its descriptors close).
        let widgetd = try Widgetd.executable().path
        let helperScript = #"for fd in /proc/self/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done; exec sleep 1000"#
        let script =
            "bash -c '\(helperScript)' >/dev/null 2>&1 & echo $! > helper.pid; exec '\(widgetd)' run --config widgets.d --out out --once"
        let output = try await Widgetd.run(program: URL(fileURLWithPath: "/bin/sh"), ["-c", script], in: folder.url)
        #expect(output.status == 0, "\(output.stderr)")
        let helper = try #require(pid_t(try folder.read("helper.pid").trimmingCharacters(in: .whitespacesAndNewlines)))
        let alive = !Self.gone(helper)
        kill(helper, SIGKILL)
        #expect(alive, "the helper the shell started before exec was killed")
    }

    @Test func aDoubleForkedGrandchildDoesNotOutliveTheRun() async throws {
        let grandchild = try await Self.runOnce("(sleep 1000 >/dev/null 2>&1 & echo $! > ../grandchild.pid); cat")
        let alive = !Self.gone(grandchild)
        if alive { kill(grandchild, SIGKILL) }
        #expect(!alive, "the program's double-forked grandchild \(grandchild) outlived run --once")
    }
    #endif
}
