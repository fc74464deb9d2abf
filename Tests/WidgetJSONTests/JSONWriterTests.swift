import Foundation
import Testing
import WidgetJSON

struct JSONWriterTests {
    @Test func escapesQuotesBackslashesAndControlCharacters() {
        let value: WidgetValue = .string("q\"b\\s/\n\r\t\u{8}\u{C}\u{1}\u{1F}\u{7F}")
        #expect(JSONWriter.string(value) == #""q\"b\\s/\n\r\t\b\f\u0001\u001f\#u{7F}""#)
    }

    @Test func writesNonASCIITextAsUTF8() {
        let value: WidgetValue = ["名前": "café 😀"]
        #expect(JSONWriter.string(value) == #"{"名前":"café 😀"}"#)
        #expect(JSONWriter.data(value) == Data(#"{"名前":"café 😀"}"#.utf8))
    }

    @Test func compactStyleHasNoWhitespace() {
        let value: WidgetValue = ["a": 1, "b": [true, nil], "c": [:], "d": []]
        #expect(JSONWriter.string(value) == #"{"a":1,"b":[true,null],"c":{},"d":[]}"#)
        #expect(value.description == #"{"a":1,"b":[true,null],"c":{},"d":[]}"#)
    }

    @Test func prettyStyleIndentsTwoSpacesAMemberALine() {
        let value: WidgetValue = ["a": 1, "b": [true, nil, ["x": "y"]], "c": [:], "d": []]
        let expected = """
            {
              "a": 1,
              "b": [
                true,
                null,
                {
                  "x": "y"
                }
              ],
              "c": {},
              "d": []
            }
            """
        #expect(JSONWriter.string(value, style: .pretty) == expected)
        #expect(JSONWriter.string([], style: .pretty) == "[]")
        #expect(JSONWriter.string("s", style: .pretty) == #""s""#)
    }

    @Test func keepsMemberOrderAndNumberText() throws {
        let text = #"{"z":1.50,"a":-0.0,"m":1E+400,"big":123456789012345678901234567890}"#
        #expect(JSONWriter.string(try JSONReader.read(text)) == text)
    }

    @Test func readingWhatWasWrittenGivesTheSameValue() throws {
        let value: WidgetValue = [
            "title": "Line\nbreak \"quoted\" \\ tab\t \u{0} é 😀",
            "price": .number(WidgetNumber("12.50")!),
            "tags": ["a", [], [:], nil, false, true],
            "nested": ["deep": [["x": -1e-7]]],
        ]
        for style in [JSONWriter.Style.compact, .pretty] {
            let again = try JSONReader.read(JSONWriter.data(value, style: style))
            #expect(again == value)
            #expect(JSONWriter.string(again) == JSONWriter.string(value))
        }
    }

    @Test func appendStringQuotesIntoAnExistingBuffer() {
        var output = Array("x=".utf8)
        JSONWriter.appendString("a\"b", into: &output)
        #expect(String(decoding: output, as: UTF8.self) == #"x="a\"b""#)
    }
}
