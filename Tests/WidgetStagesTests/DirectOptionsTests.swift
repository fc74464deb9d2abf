import Foundation
import Testing
import WidgetJSON
import WidgetLiquid
import WidgetStages

@testable import WidgetCore

/// The options the registry reads directly (``DirectOptions``) are the options the decoder makes, and
/// anything the decoder has a problem to report about is left to it.
struct DirectOptionsTests {
    /// `json` read directly and decoded.
    private func read<Options: DirectOptions & Decodable>(
        _ type: Options.Type, _ json: String
    ) throws -> (direct: Options?, decoded: Options?) {
        let value = try JSONReader.read(Data(json.utf8))
        let decoder = OptionsDecoder(userInfo: [TemplateCache.userInfoKey: TemplateCache(filters: .standard)])
        let object = try #require(value.object)
        return (try? Options.direct(decoder.directMembers(object)), try? decoder.decode(Options.self, from: value))
    }

    /// `json` read directly and decoded, both written out in full.
    private func both<Options: DirectOptions & Decodable>(
        _ type: Options.Type, _ json: String
    ) throws -> (direct: String?, decoded: String?) {
        let (direct, decoded) = try read(type, json)
        return (direct.map { String(reflecting: $0) }, decoded.map { String(reflecting: $0) })
    }

    @Test(arguments: [
        #"{"url": "https://example.com/{{ params.id }}"}"#,
        #"{"url": "https://example.com/", "method": "post", "headers": {"Accept": "application/json", "X-Key": "{{ env.KEY }}"}}"#,
        #"{"url": "https://example.com/", "body": {"q": "{{ params.q }}", "n": [1, null, true]}, "timeout": "10s"}"#,
        #"{"url": "https://example.com/", "connectTimeout": "2s", "maxBytes": 1000, "maxRedirects": 2}"#,
    ])
    func httpOptionsAreTheDecodersOnes(json: String) throws {
        var (direct, decoded) = try read(HTTPFetcher.Options.self, json)
        #expect(direct != nil)
        // The headers are a dictionary, written out in an order of its own: compared as one.
        #expect(direct?.headers == decoded?.headers)
        direct?.headers = nil
        decoded?.headers = nil
        #expect(direct.map { String(reflecting: $0) } == decoded.map { String(reflecting: $0) })
    }

    @Test func otherStagesOptionsAreTheDecodersOnes() throws {
        let cases: [(String?, String?)] = [
            try both(JSONParser.Options.self, #"{}"#),
            try both(JSONParser.Options.self, #"{"empty": "null"}"#),
            try both(SelectTransform.Options.self, #"{"path": "$.items[?@.price > 10]", "one": false}"#),
            try both(SortTransform.Options.self, #"{"by": "$.published", "order": "descending"}"#),
            try both(LimitTransform.Options.self, #"{"count": 4, "offset": 1}"#),
            try both(MapTransform.Options.self, #"{"fields": {"title": "{{ title | upcase }}", "n": 2}, "merge": true}"#),
            try both(EachTimeline.Options.self, #"{"at": ["08:00", "20:00"]}"#),
            try both(EachTimeline.Options.self, #"{"every": "1h"}"#),
            try both(EachTimeline.Options.self, #"{"date": "$.published"}"#),
        ]
        for (direct, decoded) in cases {
            #expect(direct != nil)
            #expect(direct == decoded)
        }
    }

    /// Whatever the decoder would report is not read directly: an unknown, missing, null or mistyped
    /// member, a bad template, path or duration, or an option left to the decoder (a handshake).
    @Test(arguments: [
        #"{"url": "https://example.com/", "ur": 1}"#,
        #"{"method": "GET"}"#,
        #"{"url": null}"#,
        #"{"url": "https://example.com/", "method": null}"#,
        #"{"url": 3}"#,
        #"{"url": "https://example.com/{{ x | nofilter }}"}"#,
        #"{"url": "https://example.com/", "headers": {"A": null}}"#,
        #"{"url": "https://example.com/", "headers": {"A": 1}}"#,
        #"{"url": "https://example.com/", "timeout": "10 seconds"}"#,
        #"{"url": "https://example.com/", "maxBytes": 1.5}"#,
        #"{"url": "https://example.com/", "body": {"a": "{{ unclosed"}}"#,
        #"{"url": "https://example.com/", "handshake": {"status": 409, "header": "X-Id"}}"#,
    ])
    func problemsAreLeftToTheDecoder(json: String) throws {
        #expect(try both(HTTPFetcher.Options.self, json).direct == nil)
    }

    @Test func otherStagesProblemsAreLeftToTheDecoder() throws {
        #expect(try both(SelectTransform.Options.self, #"{"path": "$.items["}"#).direct == nil)
        #expect(try both(SortTransform.Options.self, #"{"by": "$.a", "order": 1}"#).direct == nil)
        #expect(try both(LimitTransform.Options.self, #"{}"#).direct == nil)
        #expect(try both(MapTransform.Options.self, #"{"fields": {"a": "{{ a | nofilter }}"}}"#).direct == nil)
        #expect(try both(EachTimeline.Options.self, #"{"at": ["08:00", 8]}"#).direct == nil)
        #expect(try both(JSONParser.Options.self, #"{"empty": "null", "x": 1}"#).direct == nil)
    }
}
