import Foundation
import Testing
import WidgetCore
import WidgetTesting
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One daemon (the built `widgetd run`) beside every kind of hostile server at once: an endless body, a
/// stall after the headers, a trickle, a redirect loop, a gzip bomb, a truncated body, garbage, another
/// protocol on the HTTP port and a header flood. A good widget on a one-second schedule must keep it,
/// memory must stay bounded, every file must stay valid JSON, each hostile widget must say what went
/// wrong, and SIGTERM must end the daemon at once. Each hostile server is a `TestHTTPServer` of its own in
/// the test's process, each connection on a thread of its own with non-blocking writes, so none slows
/// another.
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
        ("flood", "/header-flood?count=20000", "failed: Too large response headers"),
    ]

    /// The peak resident memory of `pid` so far, in bytes (Linux; 0 elsewhere).
    static func peakResidentBytes(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }

    @Test func aGoodWidgetKeepsItsScheduleBesideEveryHostileServerAtOnce() async throws {
        let good = try TestHTTPServer()
        var servers: [TestHTTPServer] = [good]
        let folder = try TemporaryFolder()
        for (id, path, _) in Self.hostile {
            let server = try TestHTTPServer()
            servers.append(server)
            try folder.write("widgets.d/\(id).json", """
                {"source": {"url": "\(server.url(path).absoluteString)", "maxBytes": 1048576, "timeout": "5s"},
                 "parser": "json", "schedule": {"every": "10s", "allowFrequent": true}, "deadline": "4s"}
                """)
        }
        try folder.write("widgets.d/good.json", """
            {"source": {"url": "\(good.url("/json?size=2").absoluteString)"}, "parser": "json", "timeline": "single",
             "transforms": [{"type": "map", "fields": {"n": "{{ count }}"}}],
             "schedule": {"every": "1s", "allowFrequent": true, "maxPerDay": 100000}}
            """)
        let daemon = try RunningWidgetd(["run", "--config", "widgets.d", "--out", "out"], in: folder.url)
        _ = try #require(await daemon.line(containing: "widgetd running"), "\(daemon.log)")

        // Eight refreshes of the good widget: on schedule they take seven seconds. The bound is loose (a busy
        // machine is slow), but far below what one stalled or endless neighbour would cost if refreshes
        // waited for one another (the stall alone holds its refresh for the 4-second deadline each time).
        let started = ContinuousClock.now
        for _ in 0..<8 {
            _ = try #require(await daemon.line(containing: "good: fresh"), "\(daemon.log)")
        }
        let elapsed = ContinuousClock.now - started
        let peak = Self.peakResidentBytes(daemon.pid)
        #expect(elapsed < .seconds(20), "8 refreshes of a 1 s schedule took \(elapsed)")

        let stopping = ContinuousClock.now
        #expect(await daemon.stop() == 0)
        let stop = ContinuousClock.now - stopping
        #expect(stop < .seconds(4), "SIGTERM took \(stop)")
        // Measured at 41 MiB (debug build): each transfer keeps at most its 1 MiB cap. The bound leaves room
        // for a slower machine, not for keeping what an endless body sends after its cap.
        #expect(peak < 256 * 1_048_576, "peak RSS \(peak / 1_048_576) MiB")
        print("hostile servers: 8 good refreshes in \(elapsed), peak RSS \(peak / 1_048_576) MiB, stop in \(stop)")

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
        withExtendedLifetime(servers) {}
    }
}
