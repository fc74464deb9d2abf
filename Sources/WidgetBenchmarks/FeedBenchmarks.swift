import Foundation
import WidgetCore
import WidgetLiquid
import WidgetStages

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Feed parsing: our `feed` parser beside a bare `XMLParser` pass over the same bytes, in the same run.
///
/// The document is a 1 MB RSS 2.0 feed of 500 items shaped like real ones (CDATA, entities, HTML
/// descriptions, `content:encoded`, `dc:creator`, `media:content`, RFC 822 dates). The bare pass uses the
/// same parser settings with a delegate that does nothing, so the ratio is what our normalisation costs
/// on top of libxml2. Goal: ratio ≥ 0.7.
///
/// The two are timed in alternation by ``Benchmarks/measurePair(_:_:against:_:bytes:iterations:warmups:budget:)``
/// (so that both meet the same load on a busy machine), each result released outside the timed region,
/// as in every suite; the ratio is that of the fastest runs.
func runFeedBenchmarks() {
    Benchmarks.section("feed: 1 MB RSS of 500 items, our parser beside a bare XMLParser pass")
    let data = FeedBenchmarkDocument.rss(items: 500, targetBytes: 1_000_000)
    let payload = Payload(data: data, contentType: "application/rss+xml", origin: "https://bench.example/rss")
    let parser = FeedParser()

    // Check that every item is read.
    let items = (try? parser.read(payload).items.count) ?? 0
    precondition(items == 500, "the feed benchmark document gave \(items) items instead of 500")

    guard
        let (ours, bare) = Benchmarks.measurePair(
            "feed parser", { try parser.read(payload) },
            against: "bare XMLParser pass", { FeedBenchmarkDocument.barePass(data) },
            bytes: data.count, iterations: 40)
    else { return }
    let dates = Benchmarks.measure(name: "InternetDate.parse, \(FeedBenchmarkDocument.dates.count) dates", iterations: 40) {
        FeedBenchmarkDocument.dates.reduce(0) { $0 + (InternetDate.parse($1) == nil ? 0 : 1) }
    }

    emit(String(format: "  bare XMLParser pass   %8.2f ms  %10.0f items/s", bare.fastest * 1000, 500 / bare.fastest))
    emit(String(format: "  feed parser           %8.2f ms  %10.0f items/s", ours.fastest * 1000, 500 / ours.fastest))
    emit(
        String(
            format: "  ratio (items/s ours / bare)  %.2f  (goal ≥ 0.70; by median %.2f)", bare.fastest / ours.fastest,
            bare.median / ours.median))
    emit(String(format: "  InternetDate.parse    %8.0f ns per date", dates.fastest * 1e9 / Double(FeedBenchmarkDocument.dates.count)))
}

/// The benchmark's input.
enum FeedBenchmarkDocument {
    static let dates = [
        "Tue, 10 Jun 2003 04:00:00 GMT", "Sat, 21 Nov 2026 17:30:00 +0000", "10 Jun 03 4:00 PDT",
        "2003-12-13T18:30:02.25+01:00", "2026-11-22T05:00:03Z", "Wed, 02 Oct 2002 08:00:00 EST",
    ]

    /// A RSS 2.0 document of `items` items padded to about `targetBytes`.
    static func rss(items: Int, targetBytes: Int) -> Data {
        let perItem = targetBytes / items
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:media="http://search.yahoo.com/mrss/">
            <channel><title>Benchmark News &amp; Views</title><link>https://bench.example/</link>
            <description>Items shaped like real ones</description><lastBuildDate>Sun, 22 Nov 2026 08:12:00 GMT</lastBuildDate>

            """
        for index in 0..<items {
            var item = """
                <item>
                <title><![CDATA[Story \(index): Caf&eacute; society &amp; the art market&#8217;s year]]></title>
                <link>https://bench.example/articles/\(index)-cafe-society</link>
                <guid isPermaLink="false">bench-\(index)</guid>
                <pubDate>Sat, \(10 + index % 18) Nov 2026 \(10 + index % 12):30:00 +0000</pubDate>
                <dc:creator><![CDATA[Writer \(index % 7)]]></dc:creator>
                <category><![CDATA[Art]]></category><category>Market &amp; Auctions</category>
                <description>&lt;p&gt;From painting to sculpture, these works stood out &amp;mdash; a look at item \(index).&lt;/p&gt;</description>
                <media:content url="https://img.bench.example/\(index).jpg" medium="image" type="image/jpeg"/>
                <content:encoded><![CDATA[<p><img src="https://img.bench.example/\(index).jpg"/>
                """
            let paragraph = "<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor &amp; more.</p>\n"
            while item.utf8.count + paragraph.utf8.count + 40 < perItem { item += paragraph }
            item += "]]></content:encoded>\n</item>\n"
            text += item
        }
        text += "</channel></rss>\n"
        return Data(text.utf8)
    }

    /// One `XMLParser` pass with a delegate that does nothing; returns the number of elements.
    static func barePass(_ data: Data) -> Int {
        let delegate = CountingDelegate()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.delegate = delegate
        _ = parser.parse()
        return delegate.elements
    }

    private final class CountingDelegate: NSObject, XMLParserDelegate {
        var elements = 0

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            elements += 1
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {}
        func parser(_ parser: XMLParser, foundCDATA block: Data) {}
        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {}
    }
}
