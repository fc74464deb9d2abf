import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetTestSupport
import WidgetTesting

/// Memory is bounded by design, as the daemon shows when it runs: a snapshot past its limit fails its
/// refresh and keeps the last good data, and hostile servers leave the daemon within its bound (see
/// `BoundedMemoryTests` for the limits in process).
@Suite(.timeLimit(.minutes(5)))
struct BoundedMemoryEndToEndTests {
    // MARK: - Snapshot size

    /// A refresh whose snapshot would pass its limit (4 times the source's `maxBytes`) fails, names the
    /// limit and its option, and serves the last good data.
    @Test func aSnapshotPastItsLimitFailsTheRefreshAndKeepsTheLastGoodData() async throws {
        let folder = try TemporaryFolder()
        // Each item's 2 KB text, copied into 8 fields: about 1.6 MB of snapshot from 200 KB of data,
        // past the limit of a 300,000-byte cap (1,200,000 bytes).
        let text = String(repeating: "s", count: 2_000)
        let items = Array(repeating: "{\"s\": \"\(text)\"}", count: 100).joined(separator: ", ")
        try folder.write("widgets.d/data/data.json", "{\"items\": [{\"s\": \"small\"}]}")
        let fields = (1...8).map { "\"f\($0)\": \"{{ s }}\"" }.joined(separator: ", ")
        try folder.write(
            "widgets.d/big.json",
            """
            {"source": {"path": "data/data.json", "maxBytes": 300000}, "parser": "json", "timeline": "single",
             "transforms": [{"type": "select", "path": "$.items[*]"}, {"type": "map", "fields": {\(fields)}}],
             "schedule": {"every": "1h"}}
            """)
        let first = try await Widgetd.run(["run", "--once", "--config", "widgets.d", "--out", "out"], in: folder.url)
        #expect(first.status == 0, "\(first.stdout) \(first.stderr)")
        try folder.write("widgets.d/data/data.json", "{\"items\": [\(items)]}")
        let second = try await Widgetd.run(["run", "--once", "--config", "widgets.d", "--out", "out"], in: folder.url)
        #expect(second.status == 1)
        let snapshot = try JSONReader.read(Data(contentsOf: folder.file("out/big.json")))
        #expect(snapshot["status"] == "cached")
        let error = snapshot["error"]?.string ?? ""
        #expect(error.hasPrefix("timeline: the snapshot would take 120"), "\(error)")
        #expect(error.contains("more than its limit of 1200000 bytes"), "\(error)")
        #expect(error.contains("raise the source's \"maxBytes\" (now 300000)"), "\(error)")
        #expect(snapshot["entries"]?[0]?["content"]?[0]?["f1"] == "small")
        #expect(try Data(contentsOf: folder.file("out/big.json")).count < 100_000)
    }

    // MARK: - The daemon's peak

    /// The peak resident memory the daemon may reach beside the servers below, which all fail at once:
    /// its own ~40 MiB, and for each of the 5 refreshes under way its body (10 MiB) and the value parsed
    /// from it (at most 8 times that), and the 32 MiB its templates may keep (the HTTP article, "Hostile servers").
    static let memoryBound = 40 * 1_048_576 + 5 * (10 + 80) * 1_048_576 + 32 * 1_048_576

    /// Deep XML, a million empty feed items, a JSON Feed of three million `{}`, endless trailers and a
    /// template doubling a list: each fails with its limit, and the daemon stays within its bound.
    @Test func hostileValuesFailWithTheirLimitsWithinTheMemoryBound() async throws {
        let deepXML = Data((String(repeating: "<a>", count: 50_000) + String(repeating: "</a>", count: 50_000)).utf8)
        let feed = Data(("<rss><channel>" + String(repeating: "<item/>", count: 1_400_000) + "</channel></rss>").utf8)
        let jsonFeed = Data(
            (#"{"version": "https://jsonfeed.org/version/1.1", "items": ["#
                + String(repeating: "{},", count: 2_999_999) + "{}"
                + "]}").utf8)
        let server = try TestHTTPServer(
            routes: TestHTTPRoute.builtIn() + [
                .endlessTrailers,
                TestHTTPRoute(nil, "/deep.xml") { _ in .data(deepXML, contentType: "application/xml") },
                TestHTTPRoute(nil, "/feed.xml") { _ in .data(feed, contentType: "application/rss+xml") },
                TestHTTPRoute(nil, "/feed.json") { _ in .data(jsonFeed, contentType: "application/feed+json") },
            ])
        let folder = try TemporaryFolder()
        let widgets: [(id: String, path: String, parser: String, error: String)] = [
            ("deep", "/deep.xml", "xml", "nests lists and objects deeper than 512 levels"),
            ("feed", "/feed.xml", "feed", "holds more than 1310720 values"),
            ("jsonfeed", "/feed.json", "feed", "holds more than 1310720 values"),
            ("trailers", "/trailers", "json", "sent more than 262144 bytes of header and trailer fields"),
            ("concat", "/json?size=8", "json", "concat would make a list of 2097152 items"),
        ]
        for widget in widgets {
            let transforms =
                widget.id == "concat"
                ? #", "transforms": [{"type": "map", "fields": {"n": "{% assign l = items %}{% for i in (1..40) %}{% assign l = l | concat: l %}{% endfor %}{{ l | size }}"}}]"#
                : ""
            try folder.write(
                "widgets.d/\(widget.id).json",
                """
                {"source": {"url": "\(server.url(widget.path).absoluteString)", "timeout": "30s"}, "parser": "\(widget.parser)",
                 "schedule": {"every": "1h"}\(transforms)}
                """)
        }
        let daemon = try RunningWidgetd(["run", "--config", "widgets.d", "--out", "out"], in: folder.url)
        for widget in widgets {
            _ = try #require(await daemon.line(containing: "\(widget.id): placeholder"), "\(daemon.log)")
        }
        let peak = HostileServerTests.peakResidentBytes(daemon.pid)
        #expect(await daemon.stop() == 0)
        #expect(peak < Self.memoryBound, "peak RSS \(peak / 1_048_576) MiB, bound \(Self.memoryBound / 1_048_576) MiB")
        print("hostile values: peak RSS \(peak / 1_048_576) MiB (bound \(Self.memoryBound / 1_048_576) MiB)")
        for widget in widgets {
            let snapshot = try JSONReader.read(Data(contentsOf: folder.file("out/\(widget.id).json")))
            #expect(snapshot["status"] == "placeholder", "\(widget.id): \(snapshot)")
            let error = snapshot["error"]?.string ?? ""
            #expect(error.contains(widget.error), "\(widget.id): \(error)")
            #expect(try Data(contentsOf: folder.file("out/\(widget.id).json")).count < 10_000)
        }
    }
}
