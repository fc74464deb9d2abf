import Foundation
import Testing
import WidgetCore
import WidgetStages

/// Foundation's XMLParser on Linux crashes on a processing instruction without data (`<?name?>`); the
/// parsers remove such instructions first. Found by the fuzzer (a feed starting `<?xm?>`).
struct XMLProcessingInstructionTests {
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
}
