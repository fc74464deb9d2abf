import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetLiquid

@testable import WidgetStages

struct FeedParserTests {
    static let feeds = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/feeds")

    func read(_ file: String, origin: String? = nil) throws -> FeedDocument {
        let data = try Data(contentsOf: Self.feeds.appendingPathComponent(file))
        return try FeedParser().read(Payload(data: data, origin: origin ?? file))
    }

    func parse(_ text: String, origin: String = "test") throws -> FeedDocument {
        try FeedParser().read(Payload(data: Data(text.utf8), origin: origin))
    }

    @Test func everyCorpusFileParses() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.feeds.path)
            .filter { $0.hasSuffix(".xml") || $0.hasSuffix(".json") }
        #expect(files.count >= 30)
        for file in files {
            let document = try read(file)
            #expect(!document.items.isEmpty, "\(file) gave no items")
            #expect(!document.format.isEmpty, "\(file) has no format")
        }
    }

    @Test func rss2ItemsHaveTheNormalisedShape() throws {
        let document = try read("rss2-artsy-news.xml")
        #expect(document.format == "rss2.0")
        #expect(document.title == "Artsy News")
        #expect(document.link == "https://www.artsy.net/news")
        #expect(document.description == "Artsy News & Editorial")
        #expect(document.updated == "2026-11-22T08:12:00Z")
        #expect(document.items.count == 3)
        let first = document.items[0]
        #expect(first.id == "5f1c9a2b7d3e4a001234abcd")
        #expect(first.title == "The 10 Best Booths at Art Basel Miami Beach")
        #expect(first.published == "2026-11-21T17:30:00Z")
        #expect(first.author == "Casey Lesser")
        #expect(first.categories == ["Art Fairs", "Editorial"])
        #expect(first.summary == "From painting to sculpture, these booths stood out…")
        #expect(first.content?.hasPrefix("<p><img") == true)
        #expect(first.image == "https://files.artsy.net/images/booth-1.jpg")
        #expect(first.enclosures == [FeedEnclosure(url: "https://files.artsy.net/images/booth-1.jpg", type: "image/jpeg", length: 123456)])
        #expect(document.items[1].title == "Why Collectors Are Turning to Prints — and What to Buy")
        #expect(document.items[2].title == "Café Society: The Artists Who Met in Paris")
        #expect(document.items[2].summary == "A look at the cafés of Montparnasse.")
        #expect(document.items[2].image == "https://files.artsy.net/images/cafe.jpg")

        let value = document.value
        let keys = value["items"]?[0]?.object?.keys
        #expect(
            keys == ["id", "title", "link", "published", "updated", "author", "summary", "content", "image", "categories", "enclosures"])
        #expect(value.object?.keys == ["format", "title", "link", "description", "updated", "items"])
    }

    @Test func formatsAreDetectedFromTheContent() throws {
        #expect(try read("rss091-netscape.xml").format == "rss0.91")
        #expect(try read("rss092-userland.xml").format == "rss0.92")
        #expect(try read("rss10-rdf.xml").format == "rss1.0")
        #expect(try read("rss090.xml").format == "rss1.0")
        #expect(try read("atom03.xml").format == "atom0.3")
        #expect(try read("atom10-basic.xml").format == "atom1.0")
        #expect(try read("jsonfeed10.json").format == "jsonfeed1.0")
        #expect(try read("jsonfeed11.json").format == "jsonfeed1.1")
    }

    @Test func rdfItemsAndTheirChannelImageAreToldApart() throws {
        let document = try read("rss10-rdf.xml")
        #expect(document.title == "XML.com")
        #expect(document.items.map(\.title) == ["Processing Inclusions with XSLT", "Putting RDF to Work"])
        #expect(document.items[0].id == "http://xml.com/pub/2000/08/09/xslt/xslt.html")
        #expect(document.items[0].published == "2000-08-09T17:00:00Z")
        #expect(document.items[0].author == "Bob DuCharme")
        #expect(document.items[0].categories == ["XSLT"])
    }

    @Test func atomEntriesReadLinksAuthorsAndXHTMLContent() throws {
        let entry = try #require(try read("atom10-basic.xml").items.first)
        #expect(entry.link == "http://example.org/2003/12/13/atom03.html")
        #expect(entry.id == "urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a")
        #expect(entry.published == "2003-12-13T17:17:51Z")
        #expect(entry.updated == "2003-12-13T18:30:02Z")
        #expect(entry.author == "John Doe")
        #expect(entry.summary == "Some text.")
        #expect(entry.content == "<p>This is the entry content.</p>")
        #expect(entry.categories == ["robots", "news"])
    }

    @Test func atom03UsesIssuedAndEscapedContent() throws {
        let entry = try #require(try read("atom03.xml").items.first)
        #expect(entry.published == "2003-12-13T12:29:29Z")
        #expect(entry.updated == "2003-12-13T18:30:02Z")
        #expect(entry.content == "<p>The <b>Atom</b> 0.3 snapshot is out.</p>")
        #expect(entry.summary == "The Atom 0.3 snapshot is out.")
    }

    @Test func htmlTitlesBecomeTextAndTextTitlesStayAsWritten() throws {
        let document = try read("atom10-html-title.xml")
        #expect(document.title == "Tom & Jerry’s Blog")
        #expect(document.items[0].title == "Cheese & Crackers reviewed")
        #expect(document.items[0].summary == "Best cheese ever")
        #expect(document.items[1].title == "Plain <tags> stay")
        let cdata = try read("atom10-entities-in-cdata.xml").items[0]
        #expect(cdata.title == "Ben & Jerry’s")
        #expect(cdata.content == "<p>Ice cream &amp; <em>more</em></p>")
    }

    @Test func entitiesInsideCDATAAreDecoded() throws {
        let document = try read("rss2-cdata-entities.xml")
        #expect(document.title == "Rock & Roll Daily")
        #expect(document.items[0].title == "AC/DC’s new tour & more")
        #expect(document.items[0].link == "https://rock.example.com/acdc?a=1&b=2")
        #expect(document.items[0].summary == "They’re back — with bells on.")
        #expect(document.items[1].title == "Double & escaped")
        #expect(document.items[1].categories == ["Reviews & Interviews"])
    }

    @Test func linksResolveAgainstXMLBaseAndTheFeedLink() throws {
        let atom = try read("atom10-xmlbase.xml")
        #expect(atom.link == "http://example.com/blog/")
        #expect(atom.items[0].link == "http://example.com/blog/posts/first.html")
        #expect(atom.items[1].link == "http://example.com/archive/second.html")
        #expect(atom.items[1].published == "2026-11-02T10:00:00.123Z")
        let rss = try read("rss2-relative-links.xml")
        #expect(rss.items.map(\.link) == ["https://relative.example.com/posts/one.html", "https://relative.example.com/posts/two.html"])
        let bare = try parse(
            """
            <rss version="2.0"><channel><title>T</title><link>https://site.example/blog/</link>
            <item><title>A</title><link>a.html</link></item></channel></rss>
            """)
        #expect(bare.items[0].link == "https://site.example/blog/a.html")
        let fromDocument = try parse(
            "<rss><channel><title>T</title><item><link>/x</link></item></channel></rss>", origin: "https://feeds.example/rss")
        #expect(fromDocument.items[0].link == "https://feeds.example/x")
    }

    @Test func namespacedImagesAndEnclosuresAreUnderstood() throws {
        let photos = try read("rss2-media-rss.xml")
        #expect(photos.items[0].image == "https://cdn.photos.example.com/1/thumb.jpg")
        #expect(photos.items[0].enclosures.count == 2)
        #expect(photos.items[0].author == "ansel")
        #expect(photos.items[1].image == "https://cdn.photos.example.com/2/large.jpg")
        let podcast = try read("rss2-podcast-itunes.xml")
        #expect(podcast.items[0].image == "https://applehosted.podcasts/hiking/trailer.jpg")
        #expect(podcast.items[0].enclosures.first?.type == "audio/mpeg")
        #expect(podcast.items[0].enclosures.first?.length == 498537)
        #expect(podcast.items[1].author == "Sunset Explorers")
        #expect(podcast.items[1].published == "2019-05-15T20:00:00Z")
        let wordpress = try read("rss2-wordpress.xml")
        #expect(wordpress.items[0].image == "https://wordpress.org/news/files/2026/11/coltrane.png")
        #expect(wordpress.items[0].title == "WordPress 7.0 “Coltrane”")
        #expect(wordpress.items[1].summary == "October brought new releases & events.")
        #expect(try read("atom10-reddit.xml").items[1].image == "https://b.thumbs.redditmedia.com/xyz.jpg")
    }

    @Test func guidsThatArePermalinksBecomeLinks() throws {
        let items = try read("rss2-guid-permalink.xml").items
        #expect(items[0].link == "https://guids.example.com/a")
        #expect(items[0].id == "https://guids.example.com/a")
        #expect(items[1].id == "b-123")
        #expect(items[2].id == nil)
    }

    @Test func brokenFeedsAreReadAsFarAsPossible() throws {
        let entities = try read("broken-undeclared-entities.xml")
        #expect(entities.title == "Café Notes")
        #expect(entities.items[0].title == "Crème brûlée — a recipe")
        #expect(entities.items[0].summary == "Sugar\u{A0}& cream … and patience.")
        #expect(entities.items[1].title == "Q&A with our barista")
        #expect(entities.items[1].link == "https://cafe.example.com/qa?id=2&page=1")

        let truncated = try read("broken-truncated.xml")
        #expect(truncated.items.prefix(2).map(\.title) == ["Complete item", "Another complete item"])

        let encoding = try read("broken-wrong-encoding.xml")
        #expect(encoding.title == "Mis-declared Café")
        #expect(encoding.items[0].title == "Crème – brûlée")

        let latin1 = try read("rss2-latin1.xml")
        #expect(latin1.items[0].title == "L'été arrive à Genève")

        let dates = try read("broken-missing-dates.xml")
        #expect(dates.items.map(\.published) == [nil, nil, nil])

        let bom = try read("rss2-bom-leading-space.xml")
        #expect(bom.items[0].title == "Still readable")

        let numbers = try read("broken-html-in-title.xml")
        #expect(numbers.items[1].title == "Numbers ’quoted”")
    }

    @Test func invalidUTF8InANameIsReadAsWindows1252() throws {
        // Found by fuzzing: XMLParser traps on this byte sequence inside an element name.
        var data = Data("<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>T</title><li".utf8)
        data.append(contentsOf: [0xCF])
        data.append(contentsOf: Data("k href=\"https://x.example/\"/><entry><title>E</title></entry></feed>".utf8))
        let document = try FeedParser().read(Payload(data: data, origin: "fuzz"))
        #expect(document.items.map(\.title) == ["E"])
        #expect(FeedInputRepair.isValidUTF8(Data("café ✓ 𝄞".utf8)))
        #expect(!FeedInputRepair.isValidUTF8(Data([0xC0, 0x80])))
        #expect(!FeedInputRepair.isValidUTF8(Data([0xED, 0xA0, 0x80])))
        #expect(!FeedInputRepair.isValidUTF8(Data([0xE2, 0x82])))
    }

    @Test func jsonFeedItemsHaveTheSameShape() throws {
        let document = try read("jsonfeed11.json")
        #expect(document.title == "My Example Feed")
        #expect(document.link == "https://example.org/")
        let second = document.items[0]
        #expect(second.id == "2")
        #expect(second.published == "2026-11-20T17:00:00Z")
        #expect(second.author == "Brent Simmons")
        #expect(second.categories == ["news", "example"])
        #expect(second.summary == "This is a second item.")
        let first = document.items[1]
        #expect(first.author == "Manton Reece")
        #expect(first.updated == "2026-11-19T09:00:00Z")
        #expect(first.image == "https://example.org/a.png")
        #expect(first.enclosures == [FeedEnclosure(url: "https://example.org/episode.mp3", type: "audio/mpeg", length: 123)])
        #expect(try read("jsonfeed10.json").items[0].author == "John Gruber")
    }

    @Test func somethingThatIsNoFeedIsAClearError() {
        #expect(throws: StageError.self) { try parse("<html><body>Login</body></html>") }
        #expect(throws: StageError.self) { try parse("{\"hello\": 1}") }
        #expect(throws: StageError.self) { try parse("plain text") }
        #expect(throws: StageError.self) { try parse("") }
        do {
            _ = try parse("<!DOCTYPE html><html><body>Proxy error</body></html>", origin: "portal.example")
            Issue.record("an HTML page was read as a feed")
        } catch let error as StageError {
            #expect(error.message.contains("HTML page"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func theStageIsRegisteredAndParsesPayloads() throws {
        let payload = Payload(data: Data("<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>X</title></feed>".utf8), origin: "t")
        let value = try FeedParser(options: .init()).parse(payload, context: StageContext(widgetID: "t", now: Date()))
        #expect(value["title"] == "X")
        #expect(value["items"] == [])
        #expect(StageRegistry.builtIn.typeNames(of: .parser).contains("feed"))
        #expect(StageRegistry.builtIn.typeNames(of: .parser).contains("xml"))
        #expect(StageRegistry.builtIn.typeNames(of: .parser).contains("firestore"))
        #expect(StageRegistry.builtIn.typeNames(of: .transformer).contains("assets"))
    }

    @Test func htmlTextStripsMarkupAndDecodesEntities() {
        #expect(HTMLText.plainText("<p>Caf&eacute; <b>opens</b>&nbsp;today</p><script>x()</script>") == "Café opens\u{A0}today")
        #expect(HTMLText.plainText("a<br>b</p><p>c") == "a b c")
        #expect(HTMLText.plainText("<!-- note -->x &amp;amp; y") == "x &amp; y")
        #expect(HTMLText.decodeEntities("&#x2019;&#8217;&#146;&unknown;&amp") == "’’’&unknown;&amp")
        #expect(HTMLText.firstImageSource("<p><IMG alt='' SRC='/a.png?x=1&amp;y=2'></p>") == "/a.png?x=1&y=2")
    }
}
