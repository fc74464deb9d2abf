import Foundation
import Testing
import WidgetJSON

struct JSONReaderTests {
    // MARK: - Errors

    private func message(_ text: String) -> String? {
        do {
            _ = try JSONReader.read(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func truncatedObjectNamesTheEndOfTheDocument() {
        #expect(message(#"{"a": 1"#) == "line 1, column 8: unexpected end of the document; expected ',' or '}' in an object")
        #expect(message(#"{"a": "#) == "line 1, column 7: unexpected end of the document; expected a value")
        #expect(message(#"["abc"#) == "line 1, column 6: unexpected end of the document inside a string")
    }

    @Test func trailingCommaPointsAtTheClosingBracket() {
        #expect(message("{\n  \"a\": 1,\n}") == "line 3, column 1: unexpected '}'; expected a member name in quotes")
        #expect(message("[1, 2,]") == "line 1, column 7: unexpected ']'; expected a value")
    }

    @Test func leadingZeroIsRejectedWhereTheNumberStarts() {
        #expect(message("{\n  \"n\": 012\n}") == "line 2, column 8: numbers cannot have leading zeros")
        #expect(message("[-01]") == "line 1, column 2: numbers cannot have leading zeros")
    }

    @Test func otherSyntaxErrorsReadAsSentences() {
        #expect(message("") == "line 1, column 1: unexpected end of the document; expected a value")
        #expect(message("[1] x") == "line 1, column 5: unexpected text after the end of the document")
        #expect(message("[tru]") == "line 1, column 2: invalid literal; expected 'true'")
        #expect(message(#"{"a" 1}"#) == "line 1, column 6: unexpected '1'; expected ':' after a member name")
        #expect(message("[1 2]") == "line 1, column 4: unexpected '2'; expected ',' or ']' in an array")
        #expect(message(#"["\x"]"#) == #"line 1, column 3: invalid escape '\x' in a string"#)
        #expect(message(#"["\u12G4"]"#) == #"line 1, column 7: a \u escape needs four hex digits"#)
        #expect(message("[\"a\nb\"]") == #"line 1, column 4: control character byte 0xA in a string; escape it, e.g. \n"#)
        #expect(message("[1.]") == "line 1, column 4: a number needs a digit after '.'")
    }

    @Test func columnsCountCharactersNotBytes() {
        #expect(message(#"["é€😀" x]"#) == "line 1, column 8: unexpected 'x'; expected ',' or ']' in an array")
    }

    @Test func errorCarriesTheByteOffset() throws {
        let error = #expect(throws: JSONSyntaxError.self) { try JSONReader.read("[1,\n 2,,]") }
        #expect(error?.offset == 7)
        #expect(error?.location == SourceLocation(line: 2, column: 4))
    }

    // MARK: - Depth

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(message(deep) == "line 1, column 513: arrays and objects are nested deeper than 512 levels")
        let objects = String(repeating: #"{"a":"#, count: 100_000)
        #expect(message(objects)?.hasSuffix("arrays and objects are nested deeper than 512 levels") == true)
    }

    @Test func nestingUpToTheLimitIsRead() throws {
        let depth = JSONReader.maximumDepth
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        var value = try JSONReader.read(text)
        var levels = 0
        while let inner = value.array {
            levels += 1
            guard let first = inner.first else { break }
            value = first
        }
        #expect(levels == depth)
    }

    // MARK: - Strings

    @Test func escapesAreDecoded() throws {
        let value = try JSONReader.read(#"["a\"b\\c\/d\b\f\n\r\t", "\u00e9\u20AC", "caf\u00e9 ok"]"#)
        #expect(value[0]?.string == "a\"b\\c/d\u{8}\u{C}\n\r\t")
        #expect(value[1]?.string == "é€")
        #expect(value[2]?.string == "café ok")
    }

    @Test func surrogatePairsBecomeOneScalar() throws {
        let value = try JSONReader.read(#"["\ud83d\ude00", "x\uD834\uDD1Ey"]"#)
        #expect(value[0]?.string == "😀")
        #expect(value[1]?.string == "x𝄞y")
    }

    @Test func loneSurrogatesAndInvalidUTF8BecomeReplacementCharacters() throws {
        #expect(try JSONReader.read(#"["\ud800", "\udc00x"]"#) == ["\u{FFFD}", "\u{FFFD}x"])
        let invalid = Data([0x5B, 0x22, 0x61, 0xFF, 0x62, 0x22, 0x5D])  // ["a\xFFb"]
        #expect(try JSONReader.read(invalid) == ["a\u{FFFD}b"])
    }

    @Test func rawNonASCIITextIsKept() throws {
        #expect(try JSONReader.read(#"{"名前": "Ünïcødé 東京 😀"}"#) == ["名前": "Ünïcødé 東京 😀"])
    }

    @Test func byteOrderMarkIsSkipped() throws {
        let data = Data([0xEF, 0xBB, 0xBF] + Array(#"{"a": [1]}"#.utf8))
        #expect(try JSONReader.read(data) == ["a": [1]])
        #expect(try JSONReader.read("\u{FEFF}true") == true)
    }

    // MARK: - Objects

    @Test func repeatedKeyKeepsFirstPositionAndLastValue() throws {
        let value = try JSONReader.read(#"{"a": 1, "b": 2, "a": 3, "\u0062": 4}"#)
        #expect(value.object?.keys == ["a", "b"])
        #expect(value["a"] == 3)
        #expect(value["b"] == 4)
    }

    @Test func largeObjectsFindRepeatedKeys() throws {
        let members = (0..<40).map { #""key\#($0)": \#($0)"# }.joined(separator: ", ")
        let value = try JSONReader.read(#"{\#(members), "key7": "again", "k\u0065y30": null}"#)
        let object = try #require(value.object)
        #expect(object.count == 40)
        #expect(object["key7"] == "again")
        #expect(object["key30"] == .null)
        #expect(object["key39"] == 39)
        #expect(object.keys.last == "key39")
    }

    @Test func repeatedLongKeysReadEqual() throws {
        let key = String(repeating: "long_key_", count: 10)
        let value = try JSONReader.read("[" + Array(repeating: #"{"\#(key)": 1}"#, count: 3).joined(separator: ",") + "]")
        #expect(value[2]?[key] == 1)
        #expect(value[0] == value[2])
    }

    // MARK: - Strings

    @Test func repeatedLongStringsReadAsWritten() throws {
        // Repeated long strings come from a cache found by a hash of their length and a few of their
        // bytes: strings that differ only elsewhere (the eleventh byte), or only in length, are different.
        var strings: [String] = []
        for index in 0..<300 {
            let letter = String(UnicodeScalar(UInt8(65 + index % 26)))
            strings.append("0123456789" + letter + "abcdefghij" + String(repeating: "x", count: index % 7) + "KLMNOPQRSTUVWXYZ")
            strings.append("東京 \(index % 5) Étude Café Crème Señora")
        }
        let read = try JSONReader.read(JSONWriter.data(.array(strings.map { .string($0) })))
        let texts = try #require(read.array).map { Array(($0.string ?? "").utf8) }
        #expect(texts == strings.map { Array($0.utf8) })

        // Invalid UTF-8 repeated: U+FFFD each time, as `String(decoding:as:)` repairs it.
        let broken: [UInt8] = Array("long text, then ".utf8) + [0xFF, 0xE0, 0x80] + Array(" and more".utf8)
        var document: [UInt8] = [UInt8(ascii: "[")]
        for index in 0..<4 {
            if index > 0 { document.append(UInt8(ascii: ",")) }
            document += [UInt8(ascii: "\"")] + broken + [UInt8(ascii: "\"")]
        }
        document.append(UInt8(ascii: "]"))
        let repaired = try #require(try JSONReader.read(Data(document)).array)
        #expect(repaired == Array(repeating: .string(String(decoding: broken, as: UTF8.self)), count: 4))
    }

    // MARK: - Numbers

    @Test func numbersKeepTheirExactText() throws {
        let value = try JSONReader.read(#"{"price": 0.10, "big": 12345678901234567890, "e": -1.5E+3, "zero": -0}"#)
        #expect(value["price"]?.number?.text == "0.10")
        #expect(value["big"]?.number?.text == "12345678901234567890")
        #expect(value["e"]?.number?.text == "-1.5E+3")
        #expect(value["zero"]?.number?.text == "-0")
        #expect(JSONWriter.string(value) == #"{"price":0.10,"big":12345678901234567890,"e":-1.5E+3,"zero":-0}"#)
    }

    @Test func numbersOfEveryLengthEndAtTheFirstByteThatIsNotADigit() throws {
        // Digits are skipped eight bytes at a time: numbers of every length end where they end, in the
        // middle of a document or at its end, and the bytes beside the digits (':' and '/') or that
        // carry when a word check adds to them (0xFA and above) are not taken for digits.
        for length in 1...30 {
            let digits = String((0..<length).map { Character(String(($0 * 7 + 1) % 10)) })
            for text in [digits, "-" + digits, "0." + digits, digits + ".5e" + digits, digits + "E-1"] {
                #expect(try JSONReader.read("[\(text)]")[0]?.number?.text == text)
                #expect(try JSONReader.read(text).number?.text == text)
                #expect(try JSONReader.read(#"{"a":\#(text),"b":1}"#)["a"]?.number?.text == text)
            }
            for after: [UInt8] in [[0x3A], [0x2F], [0xFF], [0xFA, 0x31], [0x31, 0xFF]] {
                let data = Data(Array("[\(digits)".utf8) + after + Array(" ]".utf8))
                let offset = 1 + length + (after[0] == 0x31 ? 1 : 0)
                do {
                    _ = try JSONReader.read(data)
                    Issue.record("read \(digits) followed by \(after)")
                } catch {
                    #expect(error.offset == offset, "\(digits) followed by \(after)")
                }
            }
        }
    }

    // MARK: - Locations

    @Test func locatedReadRecordsKeysAndValuesOfNestedPaths() throws {
        let text = """
            {
              "a": {
                "b": [10, "x"]
              },
              "c": true
            }
            """
        let (value, map) = try JSONReader.readWithLocations(Data(text.utf8))
        #expect(value["a"]?["b"]?[1] == "x")
        let b = ValuePath.root.appending("a").appending("b")
        #expect(map.keyLocation(of: b) == SourceLocation(line: 3, column: 5))
        #expect(map.valueLocation(of: b) == SourceLocation(line: 3, column: 10))
        #expect(map.valueLocation(of: b.appending(index: 1)) == SourceLocation(line: 3, column: 15))
        // An element has no key, so its key location is its value's.
        #expect(map.keyLocation(of: b.appending(index: 1)) == SourceLocation(line: 3, column: 15))
        #expect(map.keyLocation(of: .root.appending("a")) == SourceLocation(line: 2, column: 3))
        #expect(map.valueLocation(of: .root.appending("c")) == SourceLocation(line: 5, column: 8))
        // A path that is not in the document falls back to its nearest ancestor.
        #expect(map.valueLocation(of: b.appending(index: 5)) == SourceLocation(line: 3, column: 10))
        #expect(map.valueLocation(of: .root) == SourceLocation(line: 1, column: 1))
    }

    @Test func locatedReadCountsColumnsOnOneLongLine() throws {
        let text = #"[{"k": "é"}, {"k": 2}]"#
        let (_, map) = try JSONReader.readWithLocations(Data(text.utf8))
        #expect(map.keyLocation(of: ValuePath.root.appending(index: 1).appending("k")) == SourceLocation(line: 1, column: 15))
        #expect(map.valueLocation(of: ValuePath.root.appending(index: 1).appending("k")) == SourceLocation(line: 1, column: 20))
    }
}
