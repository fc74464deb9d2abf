import Foundation
import Testing
import WidgetJSON

/// `JSONWriter.size` counts exactly what a write would take, in both styles, and stops past its limit.
struct JSONWriterSizeTests {
    static let samples: [WidgetValue] = [
        .null, true, false, 0, -12.5, "", "plain", "quote \" backslash \\ newline \n tab \t bell \u{07} é 😀",
        [], [:], [1, [2, [3, []]], ["a": [:]]],
        ["title": "Sunflowers", "tags": ["art", "oil"], "price": 12.5, "nested": ["deep": [["x": nil]]], "": "empty key"],
    ]

    @Test func theSizeIsWhatTheWriterWrites() {
        for value in Self.samples {
            #expect(JSONWriter.size(of: value) == JSONWriter.data(value).count, "\(value)")
            #expect(JSONWriter.size(of: value, style: .pretty) == JSONWriter.data(value, style: .pretty).count, "\(value)")
        }
    }

    @Test func aValueInsideADocumentCountsItsIndentation() {
        let inner: WidgetValue = ["a": [1, 2], "b": "c"]
        let outer: WidgetValue = ["x": inner]
        let wrapper = JSONWriter.data(["x": [:]], style: .pretty).count
        #expect(wrapper + JSONWriter.size(of: inner, style: .pretty, indent: 1) - 2 == JSONWriter.data(outer, style: .pretty).count)
    }

    @Test func countingStopsPastTheLimit() {
        let big = WidgetValue.array(Array(repeating: .string(String(repeating: "x", count: 1_000)), count: 10_000))
        let counted = JSONWriter.size(of: big, upTo: 50_000)
        #expect(counted > 50_000 && counted < 52_100)
        #expect(JSONWriter.size(of: big) == JSONWriter.data(big).count)
    }
}
