import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTestSupport
import WidgetTesting

@testable import WidgetRuntime

/// The gallery's files without a browser: the markup check, the cards, the page's policy, and what
/// `run --once` and `preview --html` write.
struct GalleryPageTests {
    static let now = Timestamp.date("2026-11-22T08:00:00Z")!

    static func snapshot(_ id: String, content: WidgetValue, status: Snapshot.Status = .fresh, error: String? = nil) -> Snapshot {
        Snapshot(
            id: id, title: id.capitalized, status: status, generatedAt: now, lastSuccessAt: status == .placeholder ? nil : now,
            nextRefreshAt: now.addingTimeInterval(3_600), entries: [TimelineEntry(date: now, content: content)], error: error)
    }

    // MARK: - Markup

    @Test func markupKeepsLinksAndImagesToTheWebOrTheFolderAndDropsTheRest() {
        #expect(ViewMarkup.sanitize(#"<a href="javascript:alert(1)" onclick="x()">go</a>"#) == "<a>go</a>")
        #expect(
            ViewMarkup.sanitize(#"<a href="https://example.com/a?b=1&amp;c=2">x</a>"#)
                == #"<a href="https://example.com/a?b=1&amp;c=2">x</a>"#)
        #expect(ViewMarkup.sanitize(#"<img src="assets/ab12.png" alt="">"#) == #"<img src="assets/ab12.png" alt="">"#)
        #expect(ViewMarkup.sanitize(#"<abbr title='say "hé"'>x</abbr>"#) == #"<abbr title="say &quot;hé&quot;">x</abbr>"#)
        #expect(ViewMarkup.sanitize(#"<img src='jav&#x61;script:alert(1)' onerror=alert(1)>"#) == "<img>")
        #expect(ViewMarkup.sanitize(#"<IMG SRC="  java\#tscript:x">"#) == "<img>")
        #expect(ViewMarkup.sanitize(#"<img src="data:image/png;base64,AAAA">"#) == "<img>")
        #expect(ViewMarkup.sanitize(#"<img srcset="a.png 1x, javascript:x 2x">"#) == "<img>")
        #expect(ViewMarkup.sanitize(#"<script>alert(1)</script>"#) == "&lt;script>alert(1)&lt;/script>")
        #expect(
            ViewMarkup.sanitize(#"<style>body{}</style><iframe src="https://x">"#)
                == #"&lt;style>body{}&lt;/style>&lt;iframe src="https://x">"#)
        #expect(ViewMarkup.sanitize(#"<p style="color:red" class="pos">1 < 2</p>"#) == #"<p class="pos">1 &lt; 2</p>"#)
        // Comments are dropped: a browser may end one early (`<!-->`), and what followed would act.
        #expect(ViewMarkup.sanitize("<!-- note --><br/>") == "<br />")
        #expect(ViewMarkup.sanitize(#"<!--><meta http-equiv="refresh" content="0;url=https://evil">-->ok"#) == "ok")
        #expect(ViewMarkup.sanitize("<!--><plaintext>x") == "&lt;!-->&lt;plaintext>x")
        // Nothing left open can swallow the cards after it.
        #expect(ViewMarkup.sanitize("<!-- open <b>x</b>") == "&lt;!-- open <b>x</b>")
        #expect(ViewMarkup.sanitize("<textarea><plaintext>x") == "&lt;textarea>&lt;plaintext>x")
    }

    @Test func safeAddressesAreHTTPFragmentsAndRelativePathsInsideTheFolder() {
        for safe in ["https://example.com/x.png", "HTTP://example.com", "assets/3f2a.png", "#top", "jotd.html", "a/b?c=d:e"] {
            #expect(ViewMarkup.isSafeURL(safe), "\(safe)")
        }
        for unsafe in [
            "javascript:alert(1)", " JavaScript:x", "java\nscript:x", "vbscript:x", "data:text/html,x", "file:///etc/passwd",
            "//evil.example/x", "../secrets.json", "assets/../../x", "%2e%2e/x", "\\\\host\\share", "", "mailto:a@b.c",
        ] {
            #expect(!ViewMarkup.isSafeURL(unsafe), "\(unsafe)")
        }
    }

    // MARK: - Cards

    @Test func theGenericCardShowsThePictureTheLinkedHeadingAndTheOtherFields() {
        let content: WidgetValue = [
            "title": "Sunflowers & Irises", "link": "https://example.com/a", "image": "assets/ab.png", "price": .number(WidgetNumber(-3)),
            "tags": ["oil", "1888"],
        ]
        let card = GalleryCard.render(Self.snapshot("art", content: content), definition: nil, now: Self.now)
        #expect(card.html.contains(#"<img class="hero" src="assets/ab.png" alt="">"#), "\(card.html)")
        #expect(card.html.contains(#"<h3><a href="https://example.com/a">Sunflowers &amp; Irises</a></h3>"#), "\(card.html)")
        #expect(card.html.contains(#"<dt>price</dt><dd><span class="num neg">-3</span></dd>"#), "\(card.html)")
        #expect(card.html.contains("<dt>tags</dt><dd>oil, 1888</dd>"), "\(card.html)")
    }

    @Test func theGenericCardIsAlreadyWhatSanitizingLeaves() {
        // Hostile data in every place the generic card puts data: it is written unsanitized.
        let hostile: WidgetValue = [
            "title": "<script>alert(1)</script>", "link": "javascript:alert(1)", "image": "java\tscript:x",
            "url": "https://example.com/\"onmouseover=\"x", "note": "<!-- <img src=x onerror=alert(1)> -->",
            "items": [
                ["name": "<b>a</b>", "thumbnail": "assets/../../etc", "link": "//evil.example", "other": "'\"<>&"],
                ["picture": "assets/ok.png", "headline": "ok", "url": "https://example.com/?a=1&b=<2>"],
                "https://example.com/\u{0}x", .number(WidgetNumber(-1)), .null, ["nested": ["deeper": ["deepest": "x"]]],
            ],
            "<key onclick=\"x\">": "v",
        ]
        for content in [hostile, hostile["items"]!, .string("<i>x</i>")] {
            let html = WidgetViewRenderer.generic(content)
            #expect(ViewMarkup.sanitize(html) == html, "\(html)")
        }
    }

    @Test func aListShowsOneRowPerItemWithItsThumbnail() {
        let content: WidgetValue = [
            ["title": "One", "link": "https://example.com/1", "image": "assets/1.png", "author": "Ada"],
            ["title": "Two", "link": "javascript:alert(1)", "image": "javascript:alert(2)"],
        ]
        let card = GalleryCard.render(Self.snapshot("news", content: content), definition: nil, now: Self.now)
        #expect(
            card.html.contains(
                #"<li><img class="thumb" src="assets/1.png" alt=""><div class="row-text"><a class="row-title" href="https://example.com/1">One</a><span class="muted">author: Ada</span></div></li>"#
            ), "\(card.html)")
        #expect(card.html.contains(#"<li><div class="row-text"><span class="row-title">Two</span></div></li>"#), "\(card.html)")
    }

    @Test func theBadgeShowsTheStatusAndTheErrorBehindIt() {
        let card = GalleryCard.render(
            Self.snapshot("down", content: ["text": "old"], status: .cached, error: "source: <host> answered 503"), definition: nil,
            now: Self.now)
        #expect(
            card.html.contains(
                #"<details class="badge badge-cached"><summary title="source: &lt;host&gt; answered 503">cached"#
                    + GalleryCard.infoIcon + "</summary>"),
            "\(card.html)")
        #expect(card.html.contains(#"<div class="error"><p>source: &lt;host&gt; answered 503</p></div></details>"#), "\(card.html)")
        #expect(card.html.contains(#"data-status="cached""#))
        // A fresh snapshot with warnings shows them the same way, marked as warnings.
        var warned = Self.snapshot("quiet", content: [])
        warned.warnings = ["transforms[0] (select): gave an empty list", "timeline: no entries"]
        let quiet = GalleryCard.render(warned, definition: nil, now: Self.now).html
        #expect(
            quiet.contains(#"<details class="badge badge-fresh badge-warned"><summary title="transforms[0] (select): gave an empty list"#),
            "\(quiet)")
        #expect(quiet.contains("<p>timeline: no entries</p>"))
        #expect(quiet.contains(">fresh" + GalleryCard.warningIcon + "</summary>"))
    }

    @Test func badgeIconsAreInlineDrawingsNotFontGlyphs() {
        // Common fonts lack ⓘ and draw an empty box: the icons are SVG in the badge's own colour.
        for icon in [GalleryCard.infoIcon, GalleryCard.warningIcon] {
            #expect(icon.hasPrefix("<svg ") && icon.hasSuffix("</svg>"))
            #expect(icon.contains("currentColor"))
            #expect(!icon.contains("style=") && !icon.contains("href") && !icon.contains("http"))
        }
        #expect(!GalleryPage.style.contains("ⓘ") && !GalleryPage.style.contains("⚠"))
        #expect(!GalleryPage.style.contains("content:"))
        let plain = GalleryCard.render(Self.snapshot("ok", content: ["text": "x"]), definition: nil, now: Self.now).html
        #expect(!plain.contains("<svg"))
    }

    @Test func withoutTheScriptTheEntryCurrentWhenRenderedShows() {
        let noon = Self.now.addingTimeInterval(4 * 3_600)
        var snapshot = Self.snapshot("day", content: "morning")
        snapshot.entries.append(TimelineEntry(date: noon, content: "afternoon"))
        let early = GalleryCard.render(snapshot, definition: nil, now: Self.now.addingTimeInterval(60)).html
        #expect(early.contains(#"<section class="entry" data-date="2026-11-22T08:00:00Z">"#))
        #expect(early.contains(#"<section class="entry" data-date="2026-11-22T12:00:00Z" hidden>"#))
        let late = GalleryCard.render(snapshot, definition: nil, now: noon).html
        #expect(late.contains(#"<section class="entry" data-date="2026-11-22T08:00:00Z" hidden>"#))
        #expect(GalleryCard.currentIndex(of: snapshot.entries, at: Self.now.addingTimeInterval(-60)) == 0)
    }

    // MARK: - Families and links

    /// The definition of a widget whose `view` is `view`, as `widgets.d/w.json` reads.
    static func definition(view: String) throws -> WidgetDefinition {
        let result = DefinitionReader(registry: .builtIn, defaultTimeZone: TimeZone(identifier: "UTC")!)
            .read(Data(#"{"source": {"path": "data/a.json"}, "view": \#(view)}"#.utf8), file: "widgets.d/w.json")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        return try #require(result.widgets.first?.definition)
    }

    @Test func eachTemplateRendersOnceForTheFamiliesItServesAndTheOthersAreUnavailable() throws {
        let snapshot = Self.snapshot("jotd", content: ["setup": "Why?"])
        let one = try Self.definition(view: #""<p>{{ entry.content.setup }}</p>""#)
        #expect(
            GalleryCard.render(snapshot, definition: one, now: Self.now).html.contains(
                #"<div class="view" data-family="small medium large extraLarge"><p>Why?</p></div>"#
                    + #"<div class="view view-unavailable" data-family="accessoryCircular accessoryRectangular accessoryInline"><p>Unavailable in this size</p></div>"#
            ))
        let families = try Self.definition(view: #"{"small": "S", "medium": "M", "accessoryInline": "I {{ entry.content.setup }}"}"#)
        let html = GalleryCard.render(snapshot, definition: families, now: Self.now).html
        #expect(
            html.contains(
                #"<div class="view" data-family="small">S</div><div class="view" data-family="medium large extraLarge">M</div>"#
                    + #"<div class="view" data-family="accessoryInline">I Why?</div>"#
                    + #"<div class="view view-unavailable" data-family="accessoryCircular accessoryRectangular"><p>Unavailable in this size</p></div>"#
            ), "\(html)")
        let supported = try Self.definition(view: #"{"large": "L", "supportedFamilies": ["large", "extraLarge"]}"#)
        let large = GalleryCard.render(snapshot, definition: supported, now: Self.now).html
        #expect(
            large.contains(
                #"<div class="view" data-family="large extraLarge">L</div><div class="view view-unavailable" data-family="small medium accessoryCircular accessoryRectangular accessoryInline">"#
            ), "\(large)")
        // The generic card serves the home screen.
        let generic = GalleryCard.render(snapshot, definition: nil, now: Self.now).html
        #expect(generic.contains(#"<div class="view view-generic" data-family="small medium large extraLarge">"#), "\(generic)")
        #expect(
            generic.contains(#"<div class="view view-unavailable" data-family="accessoryCircular accessoryRectangular accessoryInline">"#))
    }

    @Test func anEntrysURLIsItsLinkWebOrAppButNeverScript() {
        func link(_ url: String?) -> String {
            var snapshot = Self.snapshot("w", content: ["text": "x"])
            snapshot.entries[0].url = url
            return GalleryCard.render(snapshot, definition: nil, now: Self.now).html
        }
        #expect(
            link("bitpal://portfolio").contains(
                #"<section class="entry" data-date="2026-11-22T08:00:00Z"><a class="entry-link" href="bitpal://portfolio" title="bitpal://portfolio" aria-label="Open bitpal://portfolio"><svg class="link-icon""#
            ))
        #expect(
            link("https://www.artsy.net/artwork/a?utm_medium=ios_widget&x=1").contains(
                #"href="https://www.artsy.net/artwork/a?utm_medium=ios_widget&amp;x=1""#))
        #expect(link("mrfunnyjokes://jotd").contains(#"href="mrfunnyjokes://jotd""#))
        for unsafe in [nil, "", "javascript:alert(1)", "javascript://%0Aalert(1)", "data:text/html,x"] {
            #expect(!link(unsafe).contains("entry-link"), "\(unsafe ?? "nil")")
        }
        // A relative address stays inside the folder, and is escaped.
        #expect(link("\"><script>").contains(#"href="&quot;&gt;&lt;script&gt;""#))
    }

    @Test func linksMayOpenAnAppButNotRunScriptAndDetailsHideText() {
        for safe in ["bitpal://portfolio", "mrfunnyjokes://jotd", "MrFunnyJokes://jotd?x=1", "https://example.com", "#top", "a.html"] {
            #expect(ViewMarkup.isSafeLink(safe), "\(safe)")
        }
        for unsafe in [
            "javascript:alert(1)", "javascript://%0Aalert(1)", "JaVa\tScript://x", "jav&#x61;script://x", "data://x", "file:///etc/passwd",
            "vbscript://x", "ms-msdt://x", "search-ms://x", "chrome://settings", "view-source://x", "1app://x", "://x", "mailto:a@b.c",
            "../x",
        ] {
            #expect(!ViewMarkup.isSafeLink(unsafe), "\(unsafe)")
        }
        #expect(ViewMarkup.sanitize(#"<a href="bitpal://portfolio">Open</a>"#) == #"<a href="bitpal://portfolio">Open</a>"#)
        #expect(ViewMarkup.sanitize(#"<a href="javascript://%0Aalert(1)">x</a>"#) == "<a>x</a>")
        // Only a link opens an app: an image's address is still the web's or the folder's.
        #expect(ViewMarkup.sanitize(#"<img src="bitpal://x.png">"#) == "<img>")
        let details = #"<details><summary>Reveal</summary><p class="punchline">Because.</p></details>"#
        #expect(ViewMarkup.sanitize(details) == details)
    }

    @Test func theSizeSwitchOffersEveryFamilyInTwoGroupsWithTheirNames() {
        let html = GalleryPage(title: "Widgets", cards: [], writtenAt: Self.now).html
        for family in ViewDefinition.Family.allCases {
            #expect(html.contains(#"<button type="button" data-family="\#(family.rawValue)" aria-label=""#), "\(family)")
            #expect(GalleryPage.style.contains("html[data-family=\(family.rawValue)] .view[data-family~=\(family.rawValue)]"), "\(family)")
        }
        #expect(html.contains(#"<span class="group" role="group" aria-label="Home screen">"#))
        #expect(html.contains(#"<span class="group" role="group" aria-label="Lock screen">"#))
        #expect(html.contains(#"aria-label="Extra large" title="Extra large">XL</button>"#))
    }

    // MARK: - The page

    @Test func thePolicyAllowsExactlyThePagesOwnStyleAndScript() throws {
        let page = GalleryPage(
            title: "Widgets", cards: [GalleryCard.render(Self.snapshot("a", content: "x"), definition: nil, now: Self.now)],
            writtenAt: Self.now)
        let html = page.html
        func between(_ start: String, _ end: String) throws -> String {
            let from = try #require(html.range(of: start))
            let to = try #require(html.range(of: end, range: from.upperBound..<html.endIndex))
            return String(html[from.upperBound..<to.lowerBound])
        }
        let style = try between("<style>", "</style>")
        let script = try between("<script>", "</script>")
        func hash(_ text: String) -> String { Data(SHA256.digest(of: Data(text.utf8))).base64EncodedString() }
        let policy = try between(#"<meta http-equiv="Content-Security-Policy" content=""#, "\">")
        #expect(policy.hasPrefix("default-src 'none'; "))
        #expect(policy.contains("script-src 'sha256-\(hash(script))';"))
        #expect(policy.contains("style-src 'sha256-\(hash(style))';"))
        // One script and one style: nothing else for the policy to allow, nothing loaded from elsewhere.
        #expect(html.components(separatedBy: "<script").count == 2)
        #expect(html.components(separatedBy: "<style").count == 2)
        #expect(!html.contains("<link") && !html.contains("@import") && !html.contains("url("))
        #expect(html.contains(#"<meta name="widgetd-generation" content="\#(page.generation)">"#))
        #expect(html.contains(#"<article data-generation="\#(page.cards[0].generation)" class="card" id="w-a""#))
    }

    // MARK: - The files

    @Test func runOnceWritesTheGalleryAPagePerWidgetAndTheIndexCarriesTheirGenerations() async throws {
        let folder = try TemporaryFolder("gallery-files")
        try folder.write("widgets.d/data/a.json", #"{"title": "Hello"}"#)
        try folder.write(
            "widgets.d/hello.json", #"{"title": "Hello", "source": {"path": "data/a.json"}, "view": "<h3>{{ entry.content.title }}</h3>"}"#)
        try folder.write("widgets.d/plain.json", #"{"source": {"path": "data/a.json"}}"#)
        let run = try await Widgetd.run(["run", "--config", "widgets.d", "--out", "out", "--once"], in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(folder.names(in: "out").filter { $0.hasSuffix(".html") } == ["hello.html", "index.html", "plain.html"])
        let index = try JSONReader.read(Data(try folder.read("out/index.json").utf8))
        let gallery = try folder.read("out/index.html")
        let generation = try #require(index["generation"]?.string)
        #expect(gallery.contains(#"<meta name="widgetd-generation" content="\#(generation)">"#))
        for widget in index["widgets"]?.array ?? [] {
            let id = try #require(widget["id"]?.string)
            let cardGeneration = try #require(widget["generation"]?.string)
            #expect(widget["page"]?.string == "\(id).html")
            #expect(gallery.contains(#"<article data-generation="\#(cardGeneration)" class="card" id="w-\#(id)""#))
            let own = try folder.read("out/\(id).html")
            #expect(own.contains(#"<meta name="widgetd-generation" content="\#(cardGeneration)">"#))
            #expect(own.contains(#"<meta name="widgetd-widget" content="\#(id)">"#))
        }
        #expect(gallery.contains("<h3>Hello</h3>"))
    }

    @Test func aWidgetRemovedLosesItsPageAndItsCard() throws {
        let folder = try TemporaryFolder("gallery-remove")
        let store = SnapshotStore(directory: folder.url)
        try FolderOutput(folder: store.directory).prepareFolder()
        let snapshot = Self.snapshot("gone", content: "x")
        try store.write(snapshot)
        try store.writeCard(of: snapshot, definition: nil)
        #expect(FileManager.default.fileExists(atPath: store.pageFile(for: "gone").path))
        #expect(store.card(for: "gone") != nil)
        store.removeSnapshot(for: "gone")
        #expect(!FileManager.default.fileExists(atPath: store.pageFile(for: "gone").path))
        #expect(store.card(for: "gone") == nil)
    }

    @Test func aWidgetsPageKeepsItsCardForTheGallery() throws {
        let snapshot = Self.snapshot("jotd", content: ["setup": "<main id=\"gallery\" class=\"grid\">", "punchline": "</main>"])
        let (card, page) = GalleryPage.widgetPage(for: snapshot, definition: nil)
        #expect(GalleryPage.card(inPage: page.html, id: "jotd") == card)
        // Not a one-widget page, another widget's page, or a page cut short: no card.
        let gallery = GalleryPage(title: "Widgets", cards: [card, card], writtenAt: Self.now)
        #expect(GalleryPage.card(inPage: gallery.html, id: "jotd") == nil)
        #expect(GalleryPage.card(inPage: page.html, id: "news") == nil)
        #expect(GalleryPage.card(inPage: String(page.html.dropLast(10)), id: "jotd") == nil)
        #expect(GalleryPage.card(inPage: "", id: "jotd") == nil)

        let folder = try TemporaryFolder("gallery-page-card")
        let store = SnapshotStore(directory: folder.url)
        try folder.write(".state/cards/jotd.html", "<article>from an earlier version</article>")
        try FolderOutput(folder: store.directory).prepareFolder()
        #expect(!FileManager.default.fileExists(atPath: folder.file(".state/cards").path))
        #expect(try store.writeCard(of: snapshot, definition: nil) == card)
        #expect(store.card(for: "jotd") == card)
        // A refresh writes two files: the snapshot and the page.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == [".state", "jotd.html"])
    }

    @Test func previewWritesTheWidgetsPageWhenAsked() async throws {
        let folder = try TemporaryFolder("gallery-preview")
        try folder.write("widgets.d/data/a.json", #"{"title": "Hello"}"#)
        try folder.write("widgets.d/hello.json", #"{"title": "Greeting", "source": {"path": "data/a.json"}}"#)
        let run = try await Widgetd.run(["preview", "hello", "--config", "widgets.d", "--html", "hello.html"], in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#""status": "fresh""#))
        let page = try folder.read("hello.html")
        #expect(page.contains("<title>Greeting</title>"))
        #expect(page.contains(#"<h3>Hello</h3>"#))
        let bad = try await Widgetd.run(["preview", "hello", "--config", "widgets.d", "--html", "missing/dir/x.html"], in: folder.url)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("Error: cannot write the page missing/dir/x.html"), "\(bad.stderr)")
    }
}
