import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages

struct TextParserTests {
    let context = StageContext(
        widgetID: "test",
        now: Date(timeIntervalSince1970: 1_795_340_203),
        timeZone: TimeZone(identifier: "America/New_York")!
    )

    private func parser(_ options: WidgetValue = [:]) throws -> TextParser {
        let stage = try StageRegistry.builtIn.makeStage(.parser, typeName: "text", options: options, decoder: OptionsDecoder())
        return try #require(stage as? TextParser)
    }

    private func payload(_ text: String) -> Payload {
        Payload(data: Data(text.utf8), contentType: "text/plain", origin: "notes.txt")
    }

    @Test func theWholeTextIsOneString() throws {
        #expect(try parser().parse(payload("  hello\nworld \n"), context: context) == "  hello\nworld \n")
        #expect(try parser(["trim": true]).parse(payload("  hello\nworld \n"), context: context) == "hello\nworld")
        #expect(try parser().parse(payload(""), context: context) == "")
    }

    @Test func linesPastTheValueLimitAreRefused() throws {
        // A 64 KiB cap allows its minimum of 65,536 values: the list and 65,535 lines.
        let limits = ValueLimits(bodyCap: 65_536)
        let within = Payload(
            data: Data(String(repeating: "a\n", count: limits.maximumValues - 1).utf8), contentType: "text/plain",
            origin: "notes.txt", maxBytes: 65_536)
        let value = try parser(["lines": true]).parse(within, context: context)
        #expect(value.array?.count == limits.maximumValues - 1)
        let past = Payload(
            data: Data(String(repeating: "a\n", count: limits.maximumValues).utf8), contentType: "text/plain", origin: "notes.txt",
            maxBytes: 65_536)
        #expect(throws: StageError.self) { try parser(["lines": true]).parse(past, context: context) }
        do {
            _ = try parser(["lines": true]).parse(past, context: context)
        } catch {
            #expect("\(error)".contains("holds more than \(limits.maximumValues) values"), "\(error)")
        }
    }

    @Test func linesSplitsOnEveryLineEnding() throws {
        let value = try parser(["lines": true]).parse(payload("a\r\nb\n\nc\rd\n"), context: context)
        #expect(value == ["a", "b", "", "c", "d"])
        let noFinalNewline = try parser(["lines": true]).parse(payload("a\nb"), context: context)
        #expect(noFinalNewline == ["a", "b"])
        #expect(try parser(["lines": true]).parse(payload(""), context: context) == [])
    }

    @Test func trimAppliesToEachLine() throws {
        let value = try parser(["lines": true, "trim": true]).parse(payload("  a \n \t \n\tb\n"), context: context)
        #expect(value == ["a", "", "b"])
    }

    @Test func skipEmptyDropsEmptyLines() throws {
        let value = try parser(["lines": true, "trim": true, "skipEmpty": true]).parse(payload("  a \n \t \n\n\tb\n\n"), context: context)
        #expect(value == ["a", "b"])
        let untrimmed = try parser(["lines": true, "skipEmpty": true]).parse(payload("a\n\nb\n"), context: context)
        #expect(untrimmed == ["a", "b"])
    }

    @Test func aLatin1CharsetIsDecoded() throws {
        let data = Data([0x63, 0x61, 0x66, 0xE9, 0x0A, 0xA3, 0x35])
        for charset in ["iso-8859-1", "ISO-8859-1", "latin1"] {
            let latin1 = Payload(data: data, contentType: "text/plain", charset: charset, origin: "menu.txt")
            #expect(try parser(["lines": true]).parse(latin1, context: context) == ["café", "£5"])
        }
    }

    @Test func aByteOrderMarkIsNotPartOfTheText() throws {
        let data = Data([0xEF, 0xBB, 0xBF]) + Data("first\nsecond".utf8)
        let value = try parser(["lines": true]).parse(Payload(data: data, origin: "notes.txt"), context: context)
        #expect(value == ["first", "second"])
    }

    @Test func invalidUTF8IsReplacedNotFatal() throws {
        let data = Data([0x63, 0x61, 0x66, 0xE9])
        let value = try parser().parse(Payload(data: data, origin: "menu.txt"), context: context)
        #expect(value == "caf\u{FFFD}")
    }

    @Test func unknownOptionsAreRejectedWithAHint() throws {
        do {
            _ = try parser(["line": true])
            Issue.record("an unknown option was accepted")
        } catch let error as OptionsError {
            #expect(error.description == "$.line: unknown key 'line'; did you mean 'lines'?")
        }
    }
}
