import Foundation
import Testing
import WidgetCore
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

    /// Found by the fuzzer: a year of 44 digits overflowed the date reader.
    @Test func aDateWithAHugeYearIsNoDate() {
        #expect(FeedDate.parse("Mon, 30 Nov 22222222222222222222222222222222222222222222 10:00:00 +0100") == nil)
    }
}
