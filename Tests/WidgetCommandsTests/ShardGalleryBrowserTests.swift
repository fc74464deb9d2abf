import Foundation
import Synchronization
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetTestSupport
import WidgetTesting

/// The gallery of several shards in a real browser: shards write their parts into one folder, served on
/// 127.0.0.1, and headless Chromium shows every part's cards on one page, follows a part that changes
/// without a reload, and says which shard is late or has not written.
@Suite(.enabled(if: HeadlessChromium.oracle.shouldRun, "needs chromium"), .timeLimit(.minutes(10)))
struct ShardGalleryBrowserTests {
    /// The page's clock (`?now=`).
    static let now = Timestamp.date("2026-11-22T08:00:00Z")!

    static func snapshot(_ id: String, _ text: String, at date: Date, next: Date?) -> Snapshot {
        Snapshot(
            id: id, title: id.capitalized, status: .fresh, generatedAt: date, lastSuccessAt: date, nextRefreshAt: next,
            entries: [TimelineEntry(date: date, content: ["text": .string(text)])], error: nil)
    }

    /// Writes what shard `number` of 3 writes after a wave: snapshots, pages, its gallery and its index part.
    static func write(_ snapshots: [Snapshot], shard number: Int, into folder: URL, at date: Date) throws {
        var store = SnapshotStore(directory: folder)
        store.shard = try Shard(number: number, count: 3)
        try FolderOutput(folder: store.directory).prepareFolder()
        var cards: [GalleryCard] = []
        for snapshot in snapshots {
            try store.write(snapshot)
            cards.append(try store.writeCard(of: snapshot, definition: nil))
        }
        let page = try store.writeGallery(cards, writtenAt: date)
        try store.writeIndex(snapshots, generatedAt: date, gallery: page)
    }

    /// One folder as three shards leave it (shard 1 late: its widgets' next refresh was five minutes ago;
    /// shard 2 current; shard 3 never started), and the same folder after shard 2's next wave (bravo
    /// changed, echo added). The server gives the folder before until shard 2's part has been read once,
    /// then the folder after.
    static func server() throws -> (TestHTTPServer, before: TemporaryFolder, after: TemporaryFolder) {
        let before = try TemporaryFolder("shards-before")
        let after = try TemporaryFolder("shards-after")
        let early = now.addingTimeInterval(-600)
        for folder in [before, after] {
            try write(
                [
                    snapshot("alpha", "alpha's news", at: early, next: now.addingTimeInterval(-300)),
                    snapshot("delta", "delta's news", at: early, next: now.addingTimeInterval(-300)),
                ],
                shard: 1, into: folder.url, at: early)
        }
        let next = now.addingTimeInterval(3_600)
        try write(
            [snapshot("bravo", "first version", at: now, next: next), snapshot("charlie", "unchanged", at: now, next: next)],
            shard: 2, into: before.url, at: now.addingTimeInterval(-60))
        try write(
            [
                snapshot("bravo", "second version", at: now, next: next), snapshot("charlie", "unchanged", at: now, next: next),
                snapshot("echo", "a new widget", at: now, next: next),
            ],
            shard: 2, into: after.url, at: now)
        let partReads = Mutex(0)
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/site/*") { request in
                let key = String(request.decodedPath.dropFirst("/site/".count))
                let reads = partReads.withLock { reads in
                    if key == "shards/2-of-3.json" { reads += 1 }
                    return reads
                }
                let folder = reads >= 2 ? after : before
                guard let data = FileManager.default.contents(atPath: folder.file(key).path) else {
                    return .text("not found", status: 404)
                }
                let type = key.hasSuffix(".html") ? "text/html; charset=utf-8" : "application/json"
                return .data(data, contentType: type)
            }
        ])
        return (server, before, after)
    }

    @Test func theGalleryShowsEveryShardsCardsFollowsAChangedPartAndSaysWhichShardIsLateOrMissing() async throws {
        let (server, before, after) = try Self.server()
        defer { server.stop() }
        // Every shard wrote the same index.json and index.html.
        #expect(try before.read("index.html") == after.read("index.html"))
        #expect(try before.read("index.json") == after.read("index.json"))

        let dom = DumpedDOM(
            html: try await HeadlessChromium.dom(of: server.url("/site/index.html?poll=1&now=2026-11-22T08:00:00Z"), budget: 3_500))
        #expect(dom.rootAttributes["data-ready"] == "true", "the page's script ran")
        #expect(dom.rootAttributes["data-parts"] == "2", "\(dom.rootAttributes)")
        // The first read showed both parts; shard 2's next wave replaced its cards in place.
        #expect(dom.rootAttributes["data-refreshes"] == "2", "\(dom.rootAttributes)")
        #expect(dom.cards.map(\.id) == ["alpha", "bravo", "charlie", "delta", "echo"])
        #expect(dom.cards.first { $0.id == "bravo" }?.shownEntry?.contains("second version") == true)
        #expect(dom.cards.first { $0.id == "alpha" }?.shownEntry?.contains("alpha's news") == true)
        #expect(server.requestCount(path: "/site/index.html") == 1, "no reload")
        #expect(server.requestCount(path: "/site/shards/1-of-3.html") == 1, "an unchanged part's page is fetched once")

        let lines = DumpedDOM.elements("li", in: dom.html)
        let states = lines.map { "\($0.attributes["id"] ?? ""): \($0.attributes["data-state"] ?? "") \($0.inner)" }
        #expect(
            states == [
                "shard-1: old shard 1/3 last wrote 10 min ago",
                "shard-2: ok shard 2/3: 3 widgets, wrote just now",
                "shard-3: missing shard 3/3 has not written yet",
            ], "\(states)")
        #expect(dom.html.contains("5 widgets · 2 of 3 shards read"))

        // Opened as a file, the page cannot read the parts, and says so.
        let file = DumpedDOM(html: try await HeadlessChromium.dom(of: before.file("index.html"), budget: 1_000))
        #expect(file.rootAttributes["data-served"] == "false" && file.rootAttributes["data-ready"] == "true")
        #expect(file.cards.isEmpty)
        #expect(file.html.contains("served over HTTP"))
    }

    @Test func aWidgetsOwnPageFindsItsCardsGenerationInTheShardsParts() async throws {
        let (server, _, _) = try Self.server()
        defer { server.stop() }
        // index.json is the manifest; bravo's page reads the parts it lists, and follows bravo's generation.
        let dom = DumpedDOM(html: try await HeadlessChromium.dom(of: server.url("/site/bravo.html?poll=1"), budget: 3_500))
        #expect(dom.cards.map(\.id) == ["bravo"])
        #expect(dom.cards.first?.shownEntry?.contains("second version") == true)
        #expect(dom.rootAttributes["data-refreshes"] == "1", "\(dom.rootAttributes)")
        #expect(server.requestCount(path: "/site/index.json") >= 2)
        #expect(server.requestCount(path: "/site/bravo.html") == 2)
    }

    @Test func aScreenshotOfTheGalleryOfThreeShards() async throws {
        let (server, _, _) = try Self.server()
        defer { server.stop() }
        let shots = try TemporaryFolder("shards-screenshot")
        let file = shots.file("shards.png")
        _ = try await HeadlessChromium.run([
            "--virtual-time-budget=3500", "--window-size=1280,900", "--hide-scrollbars", "--screenshot=\(file.path)",
            server.url("/site/index.html?poll=1&now=2026-11-22T08:00:00Z").absoluteString,
        ])
        let png = try Data(contentsOf: file)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
        // `swift test --attachments-path DIR` keeps it.
        Attachment.record(png, named: "shard-gallery.png")
    }
}
