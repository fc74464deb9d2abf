import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages

struct JSONParserTests {
    let context = StageContext(
        widgetID: "test",
        now: Date(timeIntervalSince1970: 1_795_340_203),
        timeZone: TimeZone(identifier: "America/New_York")!
    )

    private func parser(_ options: WidgetObject = [:]) throws -> JSONParser {
        let stage = try StageRegistry.builtIn.makeStage(.parser, typeName: "json", options: .object(options), decoder: OptionsDecoder())
        return try #require(stage as? JSONParser)
    }

    private func payload(_ text: String, contentType: String? = "application/json") -> Payload {
        Payload(data: Data(text.utf8), contentType: contentType, origin: "https://api.example.com/v1/items")
    }

    @Test func numbersKeepTheirExactDigits() throws {
        let text =
            #"{"price": 43210.12345678901234567890, "big": 123456789012345678901234567890, "e": 1.50e3, "neg": -0.0, "list": [0.1, 10]}"#
        let value = try parser().parse(payload(text), context: context)
        #expect(value["price"]?.number?.text == "43210.12345678901234567890")
        #expect(value["big"]?.number?.text == "123456789012345678901234567890")
        #expect(value["e"]?.number?.text == "1.50e3")
        #expect(value["neg"]?.number?.text == "-0.0")
        #expect(value["list"]?[0]?.number?.text == "0.1")
        #expect(JSONWriter.string(value) == text.replacingOccurrences(of: ", ", with: ",").replacingOccurrences(of: ": ", with: ":"))
    }

    @Test func objectsKeepTheirMemberOrder() throws {
        let value = try parser().parse(payload(#"{"z": 1, "a": 2, "m": 3}"#), context: context)
        #expect(value.object?.keys == ["z", "a", "m"])
    }

    @Test func anHTMLPageIsReportedAsSuch() throws {
        let page = "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body>Bad Gateway</body></html>\n"
        let declared = #expect(throws: StageError.self) {
            _ = try parser().parse(payload(page, contentType: "text/html"), context: context)
        }
        #expect(declared?.message == "https://api.example.com/v1/items sent an HTML page (text/html) where JSON was expected")
        let undeclared = #expect(throws: StageError.self) {
            _ = try parser().parse(payload("  \n" + page, contentType: "application/json"), context: context)
        }
        #expect(undeclared?.message == "https://api.example.com/v1/items sent an HTML page (application/json) where JSON was expected")
        let untyped = #expect(throws: StageError.self) {
            _ = try parser().parse(payload(page, contentType: nil), context: context)
        }
        #expect(untyped?.message == "https://api.example.com/v1/items sent an HTML page (no content type) where JSON was expected")
    }

    @Test func aSyntaxErrorNamesTheOriginLineAndColumn() throws {
        let error = #expect(throws: StageError.self) {
            _ = try parser().parse(payload("{\"a\": 1,\n  \"b\": }"), context: context)
        }
        #expect(error?.message.hasPrefix("the payload from https://api.example.com/v1/items is not valid JSON: line 2, column 8: ") == true)
    }

    @Test func aSyntaxErrorNearMarkupInAStringIsNotCalledAnHTMLPage() throws {
        let error = #expect(throws: StageError.self) {
            _ = try parser().parse(payload(#"{"title": "<b>bold</b>", "n": }"#), context: context)
        }
        #expect(
            error?.message.hasPrefix("the payload from https://api.example.com/v1/items is not valid JSON: line 1, column 31: ") == true)
    }

    @Test func anEmptyBodyFailsSayingSoAndNamingTheOption() throws {
        for body in ["", " \r\n\t", "\u{FEFF}\n"] {
            let error = #expect(throws: StageError.self) {
                _ = try parser().parse(payload(body), context: context)
            }
            #expect(
                error?.message
                    == #"https://api.example.com/v1/items sent an empty body where JSON was expected; if that means "no data", add "empty": "null" to the parser to read it as null"#
            )
        }
        var noContent = payload("")
        noContent.status = 204
        let error = #expect(throws: StageError.self) { _ = try parser().parse(noContent, context: context) }
        #expect(error?.message.hasPrefix("https://api.example.com/v1/items sent an empty body (HTTP 204) where JSON was expected") == true)
    }

    @Test func emptyNullReadsAnEmptyBodyAsNullAndEverythingElseAsUsual() throws {
        let parser = try parser(["empty": "null"])
        var noContent = payload("")
        noContent.status = 204
        #expect(try parser.parse(noContent, context: context) == .null)
        #expect(try parser.parse(payload("\n  \n"), context: context) == .null)
        #expect(try parser.parse(payload("[]"), context: context) == [])
        #expect(try parser.parse(payload("null"), context: context) == .null)
        #expect(throws: StageError.self) { _ = try parser.parse(payload("{"), context: context) }
    }

    @Test func emptyTakesNullOrError() throws {
        #expect(try parser(["empty": "error"]).empty == .error)
        let error = #expect(throws: OptionsError.self) { _ = try parser(["empty": "[]"]) }
        #expect(error?.description == #"$.empty: "empty" is "[]"; use "null" to read an empty body as null, or "error" (the default)"#)
    }

    @Test func aByteOrderMarkIsSkipped() throws {
        let data = Data([0xEF, 0xBB, 0xBF]) + Data(#"{"a": 1}"#.utf8)
        let value = try parser().parse(Payload(data: data, contentType: "application/json", origin: "feed.json"), context: context)
        #expect(value == ["a": 1])
    }

    @Test func jsonTakesOnlyTheEmptyOption() throws {
        let error = #expect(throws: OptionsError.self) {
            _ = try StageRegistry.builtIn.makeStage(.parser, typeName: "json", options: ["strict": true], decoder: OptionsDecoder())
        }
        #expect(error?.description == "$.strict: unknown key 'strict'; known keys: 'empty'")
    }
}
