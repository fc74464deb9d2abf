import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetTestSupport
import WidgetTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One daemon (the built `widgetd run`) beside every kind of hostile server at once, and beside widgets
/// whose templates keep a core busy: an endless body, a stall after the headers, a trickle, headers one
/// by one (slowloris), a redirect loop, a gzip bomb, a truncated body, garbage, another protocol on the
/// HTTP port and a header flood, each refreshed twice. A good widget on a one-second
/// schedule must keep it, memory must stay under the documented bound, every file must stay valid JSON,
/// each hostile widget must say what went wrong, and SIGTERM must end the daemon within 2 seconds, busy
/// templates and all. Each hostile server is a `TestHTTPServer` of its own in the test's process, each
/// connection on a thread of its own with non-blocking writes, so none slows another.
@Suite(.timeLimit(.minutes(5)))
struct HostileServerTests {
    /// The hostile routes, by widget id, with what each widget's error must say. The endless body comes as
    /// fast as the loopback carries it.
    static let hostile: [(id: String, path: String, error: String)] = [
        ("endless", "/huge?bytes=100000000000&chunked=1", "exceeded the 1048576-byte limit"),
        ("endless-unannounced", "/huge?bytes=100000000000&unannounced=1", "exceeded the 1048576-byte limit"),
        ("stall", "/stall?seconds=60", "stopped at its 4s deadline"),
        ("trickle", "/trickle?bytes=1000000&interval=0.2", "stopped at its 4s deadline"),
        ("loop", "/loop", "redirected more than 5 times"),
        ("bomb", "/gzip?bytes=50000000", "exceeded the 1048576-byte limit"),
        ("truncated", "/truncated", "ended after 10 of the 100 announced bytes"),
        ("garbage", "/content?type=application/json&body=%7B%22a%22%3A%20%5B1%2C%202%2C", "is not valid JSON"),
        ("nothttp", "/not-http", "did not speak HTTP"),
        ("flood", "/header-flood?count=20000", "bytes of header and trailer fields"),
        ("slowloris", "/slow-headers?count=1000&interval=0.2", "stopped at its 4s deadline"),
    ]

    /// Widgets that keep a core busy for longer than their deadline: each renders a 588 KB text for every
    /// one of 3,000 items. Two of them, so that on a two-core machine every core has one.
    static let busy = ["busy-1", "busy-2"]

    /// The documented bound on the daemon's memory (the HTTP article, "Hostile servers"): its own ~40 MiB, plus,
    /// for each refresh under way, the `maxBytes` of its transfer and the parsed value built from it (at
    /// most about 8 times that cap, see `ValueLimits`), and the 32 MiB its templates may produce. Here at
    /// most 16 refreshes run at once, each with a 1 MiB cap; templates that run past their deadline are
    /// stopped, so at most the busy widgets hold a budget.
    static let memoryBound = 40 * 1_048_576 + 16 * (1 + 8) * 1_048_576 + busy.count * 32 * 1_048_576

    /// The peak resident memory of `pid` so far, in bytes (Linux; 0 elsewhere).
    static func peakResidentBytes(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }

    /// The `time` of a JSON log line.
    static func time(of line: String) throws -> Date {
        let record = try JSONReader.read(Data(line.utf8))
        return try #require(
            record["time"]?.string.flatMap {
                try? Date($0, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true))
            }, "\(line)")
    }

    @Test func aGoodWidgetKeepsItsScheduleBesideEveryHostileServerAtOnce() async throws {
        let good = try TestHTTPServer()
        var servers: [TestHTTPServer] = [good]
        let folder = try TemporaryFolder()
        for (id, path, _) in Self.hostile {
            let server = try TestHTTPServer()
            servers.append(server)
            try folder.write(
                "widgets.d/\(id).json",
                """
                {"source": {"url": "\(server.url(path).absoluteString)", "maxBytes": 1048576, "timeout": "5s"},
                 "parser": "json", "schedule": {"every": "10s", "allowFrequent": true}, "deadline": "4s"}
                """)
        }
        try folder.write("widgets.d/items.json", "{\"items\": [\(Array(repeating: "1", count: 3000).joined(separator: ","))]}")
        for id in Self.busy {
            try folder.write(
                "widgets.d/\(id).json",
                """
                {"source": {"path": "items.json"}, "parser": "json",
                 "transforms": [{"type": "select", "path": "$.items[*]"},
                                {"type": "map", "fields": {"n": "{{ (1..99999) | join | size }}"}}],
                 "schedule": {"every": "10s", "allowFrequent": true}, "deadline": "4s"}
                """)
        }
        try folder.write(
            "widgets.d/good.json",
            """
            {"source": {"url": "\(good.url("/json?size=2").absoluteString)"}, "parser": "json", "timeline": "single",
             "transforms": [{"type": "map", "fields": {"n": "{{ count }}"}}],
             "schedule": {"every": "1s", "allowFrequent": true, "maxPerDay": 100000}}
            """)
        // JSON log lines: their times have milliseconds, and the schedule is measured by them, not by when
        // the test got to read them.
        // The busy templates would spend their step budget in well under their deadline: with a budget a
        // thousand times larger, they run until the deadline stops them.
        let daemon = try RunningWidgetd(
            ["run", "--config", "widgets.d", "--out", "out", "--log-format", "json", "--template-steps", "10000000000"], in: folder.url)
        _ = try #require(await daemon.line(containing: "widgetd running"), "\(daemon.log)")

        // Ten refreshes of the good widget after its first: on schedule they take ten seconds. Were refreshes
        // to wait for one another, each stall, trickle or busy template would hold them for its 4-second
        // deadline; were the busy templates to hold the threads every task shares, there would be none.
        let first = try #require(await daemon.line(containing: "good: fresh"), "\(daemon.log)")
        var last = first
        for _ in 0..<10 {
            last = try #require(await daemon.line(containing: "good: fresh"), "\(daemon.log)")
        }
        let elapsed = try Self.time(of: last).timeIntervalSince(Self.time(of: first))
        // Loose for a busy machine, far from the 40 s that waiting for the hostile widgets would cost.
        #expect(elapsed < 25, "10 refreshes of a 1 s schedule took \(elapsed) s")

        // Every bad widget again at once (a failed refresh is retried only after 30 s): what the first round
        // received must not have stayed, nor what the second receives pile on it.
        let bad = Self.hostile.map(\.id) + Self.busy
        func failures(_ id: String) -> Int {
            daemon.log.filter { $0.contains("\"message\":\"\(id): placeholder") }.count
        }
        let reloadsStarted = Date()
        for id in bad {
            let reload = try await Widgetd.run(["reload", id, "--out", "out"], in: folder.url)
            #expect(reload.status == 0, "\(reload.stderr)")
        }
        // Waiting by reading the good widget's lines, each a second on its schedule, until one the daemon
        // wrote 20 seconds after the last reload was asked for. The lines it wrote while the reloads were
        // being sent (each a process of its own, which a busy machine may take seconds to start) are read
        // only now: counting those would end the wait before the last reloads had any time.
        let reloadsSent = Date()
        while bad.contains(where: { failures($0) < 2 }) {
            let line = try #require(await daemon.line(containing: "good: fresh"), "\(daemon.log)")
            if try Self.time(of: line).timeIntervalSince(reloadsSent) >= 20 { break }
        }
        let missing = bad.filter { failures($0) < 2 }
        #expect(
            missing == [],
            """
            not refreshed a second time; their lines:
            \(daemon.log.filter { line in missing.contains { line.contains("\"\($0)") || line.contains(" \($0):") } }.joined(separator: "\n"))
            """)
        let peak = Self.peakResidentBytes(daemon.pid)

        let stopping = ContinuousClock.now
        #expect(await daemon.stop() == 0)
        let stop = ContinuousClock.now - stopping
        // The daemon abandons what is under way after 1.5 s; the rest is room for a machine busy with other tests.
        #expect(stop < .seconds(5), "SIGTERM took \(stop)")
        #expect(peak < Self.memoryBound, "peak RSS \(peak / 1_048_576) MiB, bound \(Self.memoryBound / 1_048_576) MiB")
        print(
            """
            hostile servers and busy templates: 10 good refreshes in \(elapsed) s on a 1 s schedule; \
            \(bad.count) reloads sent in \(String(format: "%.1f", reloadsSent.timeIntervalSince(reloadsStarted))) s; \
            every bad widget refreshed twice; peak RSS \(peak / 1_048_576) MiB (bound \(Self.memoryBound / 1_048_576) MiB); \
            stop in \(stop)
            """)

        // Every file the daemon wrote is whole, and each hostile widget says what went wrong.
        for name in folder.names(in: "out") where name.hasSuffix(".json") {
            _ = try JSONReader.read(try Data(contentsOf: folder.file("out/\(name)")))
        }
        let snapshot = try JSONReader.read(try Data(contentsOf: folder.file("out/good.json")))
        #expect(snapshot["status"] == "fresh")
        for (id, _, error) in Self.hostile {
            let value = try JSONReader.read(try Data(contentsOf: folder.file("out/\(id).json")))
            #expect(value["status"] == "placeholder", "\(id): \(value)")
            let said = value["error"]?.string ?? ""
            #expect(said.contains(error), "\(id): \(said)")
        }
        for id in Self.busy {
            let value = try JSONReader.read(try Data(contentsOf: folder.file("out/\(id).json")))
            #expect(value["error"]?.string?.contains("stopped at its 4s deadline") == true, "\(id): \(value)")
        }
        withExtendedLifetime(servers) {}
    }
}
