import Foundation
import Synchronization
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetTestSupport
import WidgetTesting

/// The gallery page in a real browser: headless Chromium loads an output folder served on 127.0.0.1 (or
/// opened as a file) and the DOM is read after the page's script ran. The page's clock is fixed with
/// `?now=`, and Chromium's virtual time runs the script's timers without waiting.
@Suite(.enabled(if: HeadlessChromium.oracle.shouldRun, "needs chromium"), .timeLimit(.minutes(10)))
struct GalleryBrowserTests {
    /// What the hostile payloads set when they run: none may.
    static let marker = "pwned"

    /// A payload for each way markup could sneak in; each sets `data-pwned` on `<html>` if it runs.
    static let hostile: [String: String] = [
        "script": "<script>document.documentElement.dataset.pwned='script'</script>",
        "image": "<img src=x onerror=\"document.documentElement.dataset.pwned='img'\">",
        "link": "javascript:document.documentElement.dataset.pwned='link'",
        "style": "</style><script>document.documentElement.dataset.pwned='style'</script><style>",
    ]

    /// A one-pixel PNG the test server serves as an image to download.
    static let png = Data(
        base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!

    /// A config folder with four widgets: `art` (an image downloaded into assets, shown by a view),
    /// `broken` (a missing file: placeholder with its error), `hostile` (a title and fields that are
    /// payloads, shown by the generic card) and `trap` (a view that puts the payloads in text, `href` and `src`).
    static func config(_ server: TestHTTPServer) throws -> TemporaryFolder {
        let folder = try TemporaryFolder("gallery-config")
        let art = #"{"title": "Sunflowers", "artist": "Vincent van Gogh", "image": "\#(server.url("/img/sunflowers.png").absoluteString)"}"#
        try folder.write("widgets.d/data/art.json", art)
        try folder.write(
            "widgets.d/art.json",
            #"""
            {"title": "Artwork", "source": {"path": "data/art.json"},
             "transforms": [{"type": "assets", "path": "$.image"}],
             "view": "<div class=\"full-bleed\"><img src=\"{{ entry.content.image }}\" alt=\"\"><div class=\"caption\"><h3>{{ entry.content.title }}</h3><p>{{ entry.content.artist }}</p></div></div>"}
            """#)
        try folder.write(
            "widgets.d/broken.json",
            #"{"title": "Broken", "source": {"path": "data/missing.json"}, "placeholder": {"text": "Nothing yet"}}"#)
        let fields: [String: Any] = [
            "title": hostile["script"]!, "summary": hostile["image"]!, "style": hostile["style"]!, "link": hostile["link"]!,
            "items": [["title": hostile["script"]!, "link": hostile["link"]!, "image": hostile["link"]!]],
        ]
        try folder.write("widgets.d/data/hostile.json", String(decoding: try JSONSerialization.data(withJSONObject: fields), as: UTF8.self))
        let title = String(decoding: try JSONSerialization.data(withJSONObject: [hostile["style"]!]), as: UTF8.self).dropFirst().dropLast()
        try folder.write("widgets.d/hostile.json", #"{"title": \#(title), "source": {"path": "data/hostile.json"}}"#)
        try folder.write("widgets.d/data/trap.json", String(decoding: try JSONSerialization.data(withJSONObject: hostile), as: UTF8.self))
        try folder.write(
            "widgets.d/trap.json",
            #"""
            {"title": "Trap", "source": {"path": "data/trap.json"},
             "view": "<a class=\"trap\" href=\"{{ entry.content.link }}\">{{ entry.content.script }}</a><p>{{ entry.content.image }}</p><p>{{ entry.content.style }}</p><img src=\"{{ entry.content.link }}\" alt=\"\">"}
            """#)
        return folder
    }

    /// A server for the images the widgets download, and for the output folder (`/file/…`).
    static func server(serving out: URL?) throws -> TestHTTPServer {
        try TestHTTPServer(
            routes: [TestHTTPRoute("GET", "/img/*") { _ in TestHTTPResponse.data(png, contentType: "image/png") }]
                + TestHTTPRoute.builtIn(root: out))
    }

    @Test func theGalleryShowsOneCardPerWidgetWithItsStatusImagesLoadedAndHostileContentAsText() async throws {
        let out = try TemporaryFolder("gallery-out")
        let server = try Self.server(serving: out.url)
        defer { server.stop() }
        let config = try Self.config(server)
        let run = try await Widgetd.run(["run", "--config", "widgets.d", "--out", out.path, "--once"], in: config.url)
        #expect(run.status == 1, "broken fails: \(run.stderr)")

        let dom = DumpedDOM(html: try await HeadlessChromium.dom(of: server.url("/file/index.html")))
        #expect(dom.rootAttributes["data-ready"] == "true", "the page's script ran")
        #expect(dom.rootAttributes["data-\(Self.marker)"] == nil, "a payload ran: \(dom.rootAttributes)")
        let cards = dom.cards
        #expect(cards.map(\.id) == ["art", "broken", "hostile", "trap"])
        #expect(cards.map(\.status) == ["fresh", "placeholder", "fresh", "fresh"])

        // The placeholder's error is behind its badge; its placeholder shows.
        let broken = try #require(cards.first { $0.id == "broken" })
        #expect(broken.html.contains("source:"), "\(broken.html)")
        #expect(broken.shownEntry?.contains("Nothing yet") == true)

        // The artwork's view, with its image downloaded into assets and loaded.
        let art = try #require(cards.first { $0.id == "art" })
        #expect(art.shownEntry?.contains("<h3>Sunflowers</h3>") == true, "\(art.html)")
        #expect(art.shownEntry?.contains("src=\"assets/") == true, "\(art.html)")
        // Every image with an address loaded; the trap's, whose address was a script, has none.
        let images = dom.images.filter { $0["src"] != nil }
        #expect(images.count == 1)
        for image in images { #expect(image["data-state"] == "loaded", "\(image)") }

        // Every payload is text on the page, nothing of it is markup, and no link runs script.
        let hostile = try #require(cards.first { $0.id == "hostile" })
        let trap = try #require(cards.first { $0.id == "trap" })
        for card in [hostile, trap] {
            #expect(card.html.contains("&lt;script&gt;document.documentElement.dataset.pwned="), "\(card.id): \(card.html)")
            #expect(!card.html.contains("<script"), "\(card.id)")
            let handlers = DumpedDOM.elements("img", in: card.html, void: true).filter {
                $0.attributes.keys.contains { $0.hasPrefix("on") }
            }
            #expect(handlers.isEmpty, "\(card.id): \(handlers)")
            #expect(!card.html.contains("href=\"javascript:"), "\(card.id)")
        }
        #expect(hostile.html.contains("<h2>&lt;/style&gt;&lt;script&gt;"), "the title is text: \(hostile.html)")
        #expect(hostile.html.contains("&lt;img src=x onerror="), "\(hostile.html)")
        #expect(trap.html.contains("&lt;img src=x onerror="), "\(trap.html)")
        #expect(trap.html.contains("<a class=\"trap\">"), "the javascript: href is dropped: \(trap.html)")
        #expect(trap.html.contains("<img alt=\"\""), "the javascript: src is dropped: \(trap.html)")
        #expect(!dom.html.contains("<script>document"))
    }

    @Test func thePageShowsTheEntryCurrentNowAndSwitchesAtTheNextEntrysDateWithoutAReload() async throws {
        let out = try TemporaryFolder("gallery-time")
        let store = SnapshotStore(directory: out.url)
        try await store.prepare()
        let morning = Timestamp.date("2026-11-22T08:00:00Z")!
        let noon = Timestamp.date("2026-11-22T12:00:00Z")!
        let snapshot = Snapshot(
            id: "day", title: "Day", status: .fresh, generatedAt: morning, lastSuccessAt: morning,
            nextRefreshAt: Timestamp.date("2026-11-23T08:00:00Z"),
            entries: [
                TimelineEntry(date: morning, content: ["text": "Good morning"]),
                TimelineEntry(date: noon, content: ["text": "Good afternoon"]),
            ],
            error: nil)
        try store.write(snapshot)
        let card = try store.writeCard(of: snapshot, definition: nil)
        try store.writeGallery([card], writtenAt: morning)
        let server = try Self.server(serving: out.url)
        defer { server.stop() }

        func shown(at now: String, budget: Int = 2_000) async throws -> String? {
            let dom = DumpedDOM(html: try await HeadlessChromium.dom(of: server.url("/file/index.html?now=\(now)"), budget: budget))
            return dom.cards.first?.shownEntry
        }
        // A minute either side of noon.
        #expect(try await shown(at: "2026-11-22T11:59:00Z")?.contains("Good morning") == true)
        #expect(try await shown(at: "2026-11-22T12:01:00Z")?.contains("Good afternoon") == true)
        // Before the first entry, the first shows.
        #expect(try await shown(at: "2026-11-22T07:00:00Z")?.contains("Good morning") == true)
        // Loaded three seconds before noon, the page switches by itself within its ten seconds of virtual time.
        let switched = DumpedDOM(
            html: try await HeadlessChromium.dom(of: server.url("/file/index.html?now=2026-11-22T11:59:57Z"), budget: 10_000))
        #expect(switched.cards.first?.shownEntry?.contains("Good afternoon") == true)
        #expect(switched.cards.first?.attributes["data-current"] == "1")
        #expect(server.requestCount(path: "/file/index.html") == 4, "no reload")
    }

    @Test func aServedPageReplacesOnlyTheChangedCardsWhenTheIndexGenerationChanges() async throws {
        let out = try TemporaryFolder("gallery-poll")
        let store = SnapshotStore(directory: out.url)
        try await store.prepare()
        let now = Timestamp.date("2026-11-22T08:00:00Z")!
        func snapshot(_ id: String, _ text: String) -> Snapshot {
            Snapshot(
                id: id, title: id, status: .fresh, generatedAt: now, lastSuccessAt: now, nextRefreshAt: nil,
                entries: [TimelineEntry(date: now, content: ["text": .string(text)])], error: nil)
        }
        let before = [snapshot("a", "first version"), snapshot("b", "unchanged")]
        let after = [snapshot("a", "second version"), snapshot("b", "unchanged"), snapshot("c", "new widget")]
        let first = GalleryPage(title: "Widgets", cards: before.map { GalleryCard.render($0, definition: nil, now: now) }, writtenAt: now)
        let second = GalleryPage(title: "Widgets", cards: after.map { GalleryCard.render($0, definition: nil, now: now) }, writtenAt: now)
        // The first load gets the first page; the index, and the page fetched again, are the second.
        let pageLoads = Mutex(0)
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/index.html") { _ in
                let count = pageLoads.withLock { count in
                    count += 1
                    return count
                }
                return .text((count == 1 ? first : second).html, contentType: "text/html; charset=utf-8")
            },
            TestHTTPRoute("GET", "/index.json") { _ in .json(["generation": .string(second.generation), "widgets": []]) },
        ])
        defer { server.stop() }
        let dom = DumpedDOM(
            html: try await HeadlessChromium.dom(of: server.url("/index.html?poll=1&now=2026-11-22T09:00:00Z"), budget: 2_500))
        #expect(dom.rootAttributes["data-refreshes"] == "1", "one refresh in place, no reload: \(dom.rootAttributes)")
        #expect(dom.cards.map(\.id) == ["a", "b", "c"])
        #expect(dom.cards.first?.shownEntry?.contains("second version") == true)
        #expect(dom.html.contains("content=\"\(second.generation)\""))
        #expect(pageLoads.withLock { $0 } == 2)
    }

    @Test func aWidgetsOwnPageFollowsItsCardsGenerationInTheIndex() async throws {
        let now = Timestamp.date("2026-11-22T08:00:00Z")!
        func card(_ text: String) -> GalleryCard {
            GalleryCard.render(
                Snapshot(
                    id: "a", title: "A", status: .fresh, generatedAt: now, lastSuccessAt: now, nextRefreshAt: nil,
                    entries: [TimelineEntry(date: now, content: ["text": .string(text)])], error: nil),
                definition: nil, now: now)
        }
        let first = GalleryPage(title: "A", cards: [card("first version")], writtenAt: now, widget: "a")
        let second = GalleryPage(title: "A", cards: [card("second version")], writtenAt: now, widget: "a")
        let pageLoads = Mutex(0)
        let indexReads = Mutex(0)
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/a.html") { _ in
                let count = pageLoads.withLock { count in
                    count += 1
                    return count
                }
                return .text((count == 1 ? first : second).html, contentType: "text/html; charset=utf-8")
            },
            // The gallery's generation changes on every read; the widget's only once.
            TestHTTPRoute("GET", "/index.json") { _ in
                let read = indexReads.withLock { count in
                    count += 1
                    return count
                }
                return .json([
                    "generation": .string("gallery-\(read)"),
                    "widgets": [["id": "a", "generation": .string(second.cards[0].generation)], ["id": "b", "generation": "other"]],
                ])
            },
        ])
        defer { server.stop() }
        let dom = DumpedDOM(html: try await HeadlessChromium.dom(of: server.url("/a.html?poll=1"), budget: 4_500))
        #expect(dom.cards.map(\.id) == ["a"])
        #expect(dom.cards.first?.shownEntry?.contains("second version") == true)
        #expect(dom.rootAttributes["data-refreshes"] == "1", "only the widget's own change refreshes it: \(dom.rootAttributes)")
        #expect(pageLoads.withLock { $0 } == 2)
        #expect(indexReads.withLock { $0 } >= 3)
    }

    @Test func openedAsAFileThePageShowsEveryCardAsOfTheLastWrite() async throws {
        let out = try TemporaryFolder("gallery-file")
        let server = try Self.server(serving: nil)
        defer { server.stop() }
        let config = try Self.config(server)
        _ = try await Widgetd.run(["run", "--config", "widgets.d", "--out", out.path, "--once"], in: config.url)
        server.stop()
        let dom = DumpedDOM(html: try await HeadlessChromium.dom(of: out.file("index.html")))
        #expect(dom.rootAttributes["data-ready"] == "true")
        #expect(dom.cards.map(\.id) == ["art", "broken", "hostile", "trap"])
        #expect(dom.cards.first?.shownEntry?.contains("Sunflowers") == true)
        for image in dom.images where image["src"] != nil { #expect(image["data-state"] == "loaded", "\(image)") }
        // One widget's own page.
        let one = DumpedDOM(html: try await HeadlessChromium.dom(of: out.file("art.html")))
        #expect(one.cards.map(\.id) == ["art"])
    }

    @Test func theAddressPicksAnyFamilyAndCanShowOneCardAlone() async throws {
        let out = try TemporaryFolder("gallery-family")
        let now = Timestamp.date("2026-11-22T08:00:00Z")!
        let cards = ["a", "b"].map { id in
            GalleryCard.render(
                Snapshot(
                    id: id, title: id, status: .fresh, generatedAt: now, lastSuccessAt: now, nextRefreshAt: nil,
                    entries: [TimelineEntry(date: now, content: ["text": .string(id)])], error: nil),
                definition: nil, now: now)
        }
        try out.write("index.html", GalleryPage(title: "Widgets", cards: cards, writtenAt: now).html)
        func dom(_ query: String) async throws -> DumpedDOM {
            var address = URLComponents(url: out.file("index.html"), resolvingAgainstBaseURL: false)!
            address.percentEncodedQuery = query
            return DumpedDOM(html: try await HeadlessChromium.dom(of: address.url!, budget: 1_000))
        }
        for family in [ViewDefinition.Family.extraLarge, .accessoryInline] {
            let page = try await dom("family=\(family.rawValue)&widget=b")
            #expect(page.rootAttributes["data-family"] == family.rawValue, "\(page.rootAttributes)")
            #expect(page.rootAttributes["data-widget"] == "b")
            #expect(page.cards.map(\.id) == ["a", "b"])
            #expect(page.cards.map { $0.attributes["hidden"] != nil } == [true, false], "only b shows")
            #expect(page.html.contains(#"data-family="\#(family.rawValue)" aria-label"#))
            #expect(page.html.contains(#"aria-pressed="true""#))
        }
        // A name that is no family leaves the default; without ?widget= every card shows.
        let unknown = try await dom("family=huge")
        #expect(unknown.rootAttributes["data-family"] == "medium")
        #expect(unknown.rootAttributes["data-widget"] == nil)
        #expect(unknown.cards.allSatisfy { $0.attributes["hidden"] == nil })
    }
}
