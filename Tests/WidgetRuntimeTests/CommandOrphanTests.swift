import Foundation
import Testing

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

    /// Runs `script` (which writes its grandchild's pid to `../grandchild.pid`, then copies its input)
    /// as the `command` transform of one widget in `run --once`, and returns the grandchild's pid.
    static func runOnce(_ script: String, timeout: String = "20s", status: Int32 = 0) async throws -> pid_t {
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/data/in.json", #"{"n": 1}"#)
        let definition: [String: Any] = [
            "source": ["path": "data/in.json"], "parser": "json", "timeline": "single",
            "transforms": [["type": "command", "run": ["sh", "-c", script], "timeout": timeout]],
        ]
        try folder.write("widgets.d/orphan.json", String(decoding: try JSONSerialization.data(withJSONObject: definition), as: UTF8.self))
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

    @Test func aDoubleForkedGrandchildDoesNotOutliveTheRun() async throws {
        let grandchild = try await Self.runOnce("(sleep 1000 >/dev/null 2>&1 & echo $! > ../grandchild.pid); cat")
        let alive = !Self.gone(grandchild)
        if alive { kill(grandchild, SIGKILL) }
        #expect(!alive, "the program's double-forked grandchild \(grandchild) outlived run --once")
    }
    #endif
}
