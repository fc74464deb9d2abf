import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetLiquid
import WidgetStages

/// Foundation's XMLParser on Linux crashes on a processing instruction without data (`<?name?>`, found by
/// the fuzzer), an `<!ATTLIST>` without a default, a `<!NOTATION>` and an unparsed entity; the parsers
/// remove those first, so no feed can stop the daemon.
struct XMLInputGuardTests {
    private let context = StageContext(widgetID: "test", now: Date(timeIntervalSince1970: 1_795_340_203))

    @Test func aFeedWithAnEmptyProcessingInstructionIsRead() throws {
        let feed = #"""
            <?xml version="1.0"?><?xm?><?empty   ?><rss version="2.0"><channel><title>T</title>
            <item><title><![CDATA[Code: <?php echo 1; ?> and <?x?>]]></title><link>https://example.com/a</link></item>
            </channel></rss>
            """#
        let document = try FeedParser().read(Payload(data: Data(feed.utf8), origin: "test"))
        #expect(document.value["title"] == "T")
        // Instructions inside CDATA are text and are kept as written.
        #expect(document.value["items"]?[0]?["title"] == "Code: <?php echo 1; ?> and <?x?>")
    }

    @Test func xmlWithAnEmptyProcessingInstructionIsRead() throws {
        let stage = try StageRegistry.builtIn.makeStage(.parser, typeName: "xml", options: [:], decoder: OptionsDecoder())
        let parser = try #require(stage as? any Parser)
        let value = try parser.parse(Payload(data: Data("<?a?><root><?b?><x>1</x></root>".utf8), origin: "test"), context: context)
        #expect(value["root"]?["x"] == "1")
    }

    @Test(arguments: [
        #"<!ATTLIST rss v CDATA #IMPLIED>"#,
        #"<!NOTATION n SYSTEM "x">"#,
        #"<!NOTATION n PUBLIC "p>q">"#,
        #"<!NOTATION n SYSTEM "x"><!ENTITY e SYSTEM "u" NDATA n>"#,
        #"<!ENTITY e SYSTEM "u" NDATA n>"#,
    ])
    func declarationsThatCrashFoundationAreRemoved(declaration: String) throws {
        let feed = #"<!DOCTYPE rss ["# + declaration + #"]><rss version="2.0"><channel><title>T</title></channel></rss>"#
        let document = try FeedParser().read(Payload(data: Data(feed.utf8), origin: "test"))
        #expect(document.value["title"] == "T")
        let stage = try StageRegistry.builtIn.makeStage(.parser, typeName: "xml", options: [:], decoder: OptionsDecoder())
        let parser = try #require(stage as? any Parser)
        let xml = "<!DOCTYPE r [\(declaration)]><r><x>1</x></r>"
        #expect(try parser.parse(Payload(data: Data(xml.utf8), origin: "test"), context: context)["r"]?["x"] == "1")
    }

    /// A declared entity is never silently dropped: a large one used to leave the text empty and the widget
    /// "fresh", nested ones (billion laughs) failed with a bare error number.
    @Test func documentsThatDeclareEntitiesAreRefusedByName() throws {
        let large = String(repeating: "x", count: 20_000_000)
        let laughs =
            #"<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">"#
            + #"<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">"#
        let documents: [(String, String, String)] = [
            (#"<!ENTITY big "\#(large)">"#, "&big;", "big"),
            (laughs, "&lol2;", "lol"),
            (#"<!ENTITY % p "x"><!ENTITY q "y">"#, "&q;", "p"),
            (#"<!ENTITY e SYSTEM "u" NDATA n><!ENTITY after "z">"#, "&after;", "after"),
        ]
        let stage = try StageRegistry.builtIn.makeStage(.parser, typeName: "xml", options: [:], decoder: OptionsDecoder())
        let xmlParser = try #require(stage as? any Parser)
        for (declarations, use, name) in documents {
            let feed = #"<!DOCTYPE rss [\#(declarations)]><rss version="2.0"><channel><title>\#(use)</title></channel></rss>"#
            let payload = Payload(data: Data(feed.utf8), origin: "https://example.com/feed")
            let expected = "the payload from https://example.com/feed declares the entity \"\(name)\" in its DTD"
            #expect { _ = try FeedParser().read(payload) } throws: { ($0 as? StageError)?.message.hasPrefix(expected) == true }
            #expect { _ = try xmlParser.parse(payload, context: context) } throws: {
                ($0 as? StageError)?.message.hasPrefix(expected) == true
            }
        }
    }

    /// Found by the fuzzer: a year of 44 digits overflowed the date reader.
    @Test func aDateWithAHugeYearIsNoDate() {
        #expect(InternetDate.parse("Mon, 30 Nov 22222222222222222222222222222222222222222222 10:00:00 +0100") == nil)
    }
}
