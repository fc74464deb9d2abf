import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetTesting

@testable import WidgetStages

/// Every parser keeps to ``ValueLimits``: one depth for all (512), and a number of values scaled from the
/// source's body cap; each refusal says which limit and how to raise it.
struct ValueLimitsTests {
    let context = StageContext(widgetID: "x", now: Date(timeIntervalSince1970: 1_800_000_000))

    func payload(_ data: Data, maxBytes: Int? = nil) -> Payload {
        Payload(data: data, origin: "api.example", maxBytes: maxBytes)
    }

    /// The message of the `StageError` `body` throws.
    func failure(_ body: () throws -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as StageError {
            return error.message
        } catch {
            return "not a StageError: \(error)"
        }
    }

    /// `<a>` nested `depth` deep around `x`.
    func nestedXML(_ depth: Int) -> Data {
        Data((String(repeating: "<a>", count: depth) + "x" + String(repeating: "</a>", count: depth)).utf8)
    }

    // MARK: - Depth

    @Test func xmlNested50000DeepIsRefusedAtTheDepthLimit() throws {
        let parser = XMLValueParser(options: .init(forceList: []))
        let message = try #require(failure { try parser.parse(payload(nestedXML(50_000)), context: context) })
        #expect(message.hasPrefix("the XML from api.example (line 1, column "), "\(message)")
        #expect(message.contains("deeper than 512 levels, the limit for any value widgetd keeps"), "\(message)")
    }

    @Test func xmlAtTheDepthLimitIsReadAndOnePastItIsNot() throws {
        let parser = XMLValueParser(options: .init(forceList: []))
        // The root is a member of the value's object: 511 elements whose innermost holds text nest 511 levels
        // of objects inside that one.
        let value = try parser.parse(payload(nestedXML(ValueLimits.maximumDepth - 1)), context: context)
        #expect(ValueLimits.depth(of: value) == ValueLimits.maximumDepth - 1)
        // A repeated child is a list: one level more. 510 elements around two: 509 objects, the innermost's
        // object and its list, and the root's.
        let atLimit = try parser.parse(
            payload(Data((String(repeating: "<a>", count: 510) + "<b/><b/>" + String(repeating: "</a>", count: 510)).utf8)),
            context: context)
        #expect(ValueLimits.depth(of: atLimit) == ValueLimits.maximumDepth)
        let past = Data((String(repeating: "<a>", count: 511) + "<b/><b/>" + String(repeating: "</a>", count: 511)).utf8)
        let message = try #require(failure { try parser.parse(payload(past), context: context) })
        #expect(message.contains("deeper than 512 levels"), "\(message)")
    }

    @Test func jsonNestedPastTheLimitIsRefusedWithTheLimitNotAsInvalid() throws {
        let parser = try JSONParser(options: .decoded())
        let deep = Data((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)
        let message = try #require(failure { try parser.parse(payload(deep), context: context) })
        #expect(message.hasPrefix("the JSON from api.example (line 1, column 513) nests lists and objects deeper than 512 levels"))
        let atLimit = Data((String(repeating: "[", count: 512) + String(repeating: "]", count: 512)).utf8)
        #expect(ValueLimits.depth(of: try parser.parse(payload(atLimit), context: context)) == 512)
    }

    @Test func firestoreMapsNestedPastTheLimitAreRefused() throws {
        // Each map level is three levels of JSON: {"mapValue": {"fields": {"a": …}}}.
        var field = "{\"stringValue\": \"x\"}"
        for _ in 0..<200 { field = "{\"mapValue\": {\"fields\": {\"a\": \(field)}}}" }
        let document = Data("{\"name\": \"projects/p/databases/(default)/documents/c/1\", \"fields\": {\"a\": \(field)}}".utf8)
        let message = try #require(failure { try FirestoreParser(options: .init()).parse(payload(document), context: context) })
        #expect(message.hasPrefix("the Firestore response from api.example (line 1, column "), "\(message)")
        #expect(message.contains("deeper than 512 levels"), "\(message)")
    }

    @Test func deeplyNestedFeedMarkupIsRefused() throws {
        let feed =
            Data(("<rss><channel><item><title>" + String(repeating: "<b>", count: 1000)).utf8)
            + Data((String(repeating: "</b>", count: 1000) + "</title></item></channel></rss>").utf8)
        let message = try #require(failure { try FeedParser().parse(payload(feed), context: context) })
        #expect(message.hasPrefix("the feed from api.example (line 1, column "), "\(message)")
        #expect(message.contains("deeper than 512 levels"), "\(message)")
    }

    // MARK: - Size

    @Test func aFeedOfAMillionEmptyItemsIsRefusedWithTheLimitAndItsFix() throws {
        let feed =
            Data("<rss><channel>".utf8)
            + Data(String(repeating: "<item/>", count: 1_000_000).utf8) + Data("</channel></rss>".utf8)
        let message = try #require(failure { try FeedParser().parse(payload(feed), context: context) })
        #expect(
            message
                == "the feed from api.example holds more than 1310720 values (items, members and scalars), the limit for a source "
                + "whose body cap is 10485760 bytes (one value per 8 bytes); raise the source's \"maxBytes\" (now 10485760) to "
                + "allow more, or ask the source for less")
    }

    @Test func aJSONFeedOfThreeMillionEmptyItemsIsRefused() throws {
        var text = #"{"version": "https://jsonfeed.org/version/1.1", "items": ["#
        text += String(repeating: "{},", count: 2_999_999) + "{}]}"
        let message = try #require(failure { try FeedParser().parse(payload(Data(text.utf8)), context: context) })
        #expect(message.hasPrefix("the feed from api.example holds more than 1310720 values"), "\(message)")
        // Fewer items than the JSON's limit, but more than the feed's: each item is 12 values.
        var fewer = #"{"version": "https://jsonfeed.org/version/1.1", "items": ["#
        fewer += String(repeating: "{},", count: 199_999) + "{}]}"
        let second = try #require(failure { try FeedParser().parse(payload(Data(fewer.utf8)), context: context) })
        #expect(second.hasPrefix("the feed from api.example holds more than 1310720 values"), "\(second)")
    }

    @Test func theValueLimitScalesWithTheSourcesBodyCap() throws {
        let parser = try JSONParser(options: .decoded())
        let numbers = Data(("[" + String(repeating: "0,", count: 99_999) + "0]").utf8)
        // 100,001 values: within the default cap's limit, past that of a 512 KiB cap (65,536, the floor).
        #expect(try parser.parse(payload(numbers), context: context).array?.count == 100_000)
        let message = try #require(failure { try parser.parse(payload(numbers, maxBytes: 512 * 1024), context: context) })
        #expect(message.contains("holds more than 65536 values"), "\(message)")
        #expect(message.contains("raise the source's \"maxBytes\" (now 524288)"), "\(message)")
        let xml = Data(("<r>" + String(repeating: "<i/>", count: 70_000) + "</r>").utf8)
        let xmlMessage = try #require(
            failure { try XMLValueParser(options: .init(forceList: [])).parse(payload(xml, maxBytes: 512 * 1024), context: context) })
        #expect(xmlMessage.contains("the XML from api.example holds more than 65536 values"), "\(xmlMessage)")
    }

    /// A fan-out's answers together are one value: they hold no more values than one answer may.
    @Test func theAnswersOfAFetchTogetherKeepToOneAnswersLimit() async throws {
        let server = try TestHTTPServer()
        // Each answer: 3,000 items of 7 values, about 21,000 values in 220 KB; four pass 65,536.
        let fetch = try FetchTransform(
            options: OptionsDecoder().decode(
                FetchTransform.Options.self,
                from: [
                    "url": .string("http://127.0.0.1:\(server.port)/json?size=3000&n={{ item }}"), "maxBytes": 524_288,
                    "concurrency": 1,
                ]))
        var resources = StageResources()
        resources.insert(HTTPClient())
        let context = StageContext(widgetID: "x", now: Date(), resources: resources)
        let three = try await fetch.transform([1, 2, 3], context: context)
        #expect(three.array?.count == 3)
        do {
            _ = try await fetch.transform([1, 2, 3, 4], context: context)
            Issue.record("four answers were kept")
        } catch let error as StageError {
            #expect(
                error.message.hasPrefix("the value the answers of the fetch make together holds more than 65536 values"), "\(error.message)"
            )
        }
    }

    @Test func countingStopsPastItsLimit() {
        let value: WidgetValue = ["a": [1, 2, [3, 4]], "b": "c"]
        #expect(ValueLimits.count(of: value) == 8)
        #expect(ValueLimits.count(of: value, upTo: 3) == 4)
        #expect(ValueLimits.count(of: .null) == 1)
    }

    // MARK: - HTTP

    #if canImport(FoundationNetworking)
    @Test func endlessTrailersFailAtTheHeaderLimit() async throws {
        let server = try TestHTTPServer(routes: [.endlessTrailers])
        do {
            _ = try await HTTPClient().send(HTTPRequest(url: server.url("/trailers"), timeout: 60))
            Issue.record("endless trailers were accepted")
        } catch {
            #expect(
                error.message
                    == "the response from 127.0.0.1:\(server.port) sent more than 262144 bytes of header and trailer fields, the limit (fixed)"
            )
        }
    }
    #endif
}
