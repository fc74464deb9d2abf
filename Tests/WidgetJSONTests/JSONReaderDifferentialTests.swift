import Foundation
import Testing
import WidgetJSON
import WidgetTestSupport

/// Reads generated and real documents and compares the result with what the generator meant and with
/// `JSONSerialization`, so that the reader's shortcuts (predicted keys, shared shapes, eight-byte scans)
/// are checked on many more shapes than the hand-written cases cover.
struct JSONReaderDifferentialTests {
    // MARK: - Generated documents

    @Test func generatedDocumentsReadAsGenerated() throws {
        var generator = DocumentGenerator(seed: 0x4A53_4F4E)
        for round in 0..<400 {
            let (text, expected) = generator.document()
            let value = try JSONReader.read(Data(text.utf8))
            let same = value.sameTree(as: expected)
            #expect(same, "round \(round) reads differently: \(text.prefix(300))")
            let foundation = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
            let difference = value.difference(from: foundation)
            #expect(difference == nil, "round \(round) differs from JSONSerialization: \(text.prefix(300))")
            let located = try JSONReader.readWithLocations(Data(text.utf8)).0.sameTree(as: expected)
            #expect(located, "round \(round), located read")
        }
    }

    @Test func brokenDocumentsAreRejectedWhereJSONSerializationRejectsThem() throws {
        // Lone surrogates read as U+FFFD here and are errors to JSONSerialization: none are written.
        var generator = DocumentGenerator(seed: 0xB40C_E4, surrogates: false)
        var random = SeededGenerator(seed: 0x5EED_0B0C)
        var rejected = 0
        for round in 0..<400 {
            var bytes = Array(generator.document().text.utf8)
            // Replace, insert before or remove one ASCII byte, or cut the document short there (never
            // inside a UTF-8 sequence: invalid UTF-8 reads as U+FFFD here and is an error to JSONSerialization).
            let ascii = bytes.indices.filter { bytes[$0] < 0x80 }
            let offset = ascii.randomElement(using: &random)!
            let noise = Array(#"{}[],:"\ 0-1.eE+tfnx"#.utf8)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: bytes[offset] = noise.randomElement(using: &random)!
            case 1: bytes.insert(noise.randomElement(using: &random)!, at: offset)
            case 2: bytes.remove(at: offset)
            default: bytes.removeSubrange(offset...)
            }
            let data = Data(bytes)
            let ours = try? JSONReader.read(data)
            let foundation = try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
            // JSONSerialization also rejects numbers beyond `Double`'s range, which are JSON.
            let beyondDouble = ours?.hasNumberBeyondDouble ?? false
            #expect(
                (ours == nil) == (foundation == nil) || beyondDouble,
                "round \(round): JSONReader \(ours == nil ? "rejects" : "accepts"), JSONSerialization does not: \(String(decoding: bytes.prefix(300), as: UTF8.self))"
            )
            if let ours, let foundation {
                let difference = ours.difference(from: foundation)
                #expect(difference == nil, "round \(round) differs from JSONSerialization")
            }
            if ours == nil {
                rejected += 1
                // Both reads stop at the same byte with the same reason.
                var plain: JSONSyntaxError?
                var located: JSONSyntaxError?
                do { _ = try JSONReader.read(data) } catch { plain = error }
                do { _ = try JSONReader.readWithLocations(data) } catch { located = error }
                #expect(plain?.description == located?.description)
            }
        }
        #expect(rejected > 100)
    }

    @Test func stringsAndKeysOfAnyBytesReadAsStringDecodingReadsThem() throws {
        var random = SeededGenerator(seed: 0x0075_7466_38)
        // Lead bytes of every length, continuation bytes, bytes never in UTF-8, and the edges of the
        // overlong, surrogate and beyond-U+10FFFF ranges.
        let interesting: [UInt8] = [
            0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1,
            0xF3, 0xF4, 0xF5, 0xFF, 0x9F, 0xA0, 0x8F, 0x90,
        ]
        // Whole sequences too, valid and not, so that runs of them are read as runs: the edges of
        // every length (U+0080, U+07FF, U+0800, U+D7FF, U+E000, U+FFFF, U+10000, U+10FFFF), CJK text,
        // a surrogate (ED A0 80), overlong forms (E0 80 80, F0 80 80 80) and one above U+10FFFF.
        let sequences: [[UInt8]] = [
            [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80],
            [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], Array("東京タワー".utf8),
            [0xED, 0xA0, 0x80], [0xE0, 0x80, 0x80], [0xF0, 0x80, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80],
        ]
        // Each sequence after 0 to 3 valid three-byte ones and before 0 to 8 ASCII bytes: every position
        // within eight-byte steps.
        var cases: [[UInt8]] = []
        for sequence in sequences {
            for before in 0...3 {
                for after in 0...8 {
                    cases.append(
                        Array(repeating: [0xEE, 0x80, 0x80], count: before).flatMap { $0 } + sequence
                            + Array(repeating: UInt8(ascii: "a"), count: after))
                }
            }
        }
        for _ in 0..<6_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0..<24, using: &random) {
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes.append(UInt8.random(in: 0x20...0x7E, using: &random))
                case 1: bytes.append(interesting.randomElement(using: &random)!)
                default: bytes += sequences.randomElement(using: &random)!
                }
            }
            cases.append(bytes.filter { $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        }
        for bytes in cases {
            let expected = String(decoding: bytes, as: UTF8.self)
            // As a value, as a key, and as a key again (then from the reader's cache of keys).
            let document =
                [UInt8(ascii: "[")] + quoted(bytes) + Array(#",{"#.utf8) + quoted(bytes)
                + Array(#":1},{"#.utf8) + quoted(bytes) + Array(#":2}]"#.utf8)
            let value = try JSONReader.read(Data(document))
            #expect(value[0]?.string == expected)
            #expect(value[1]?.object?.keys == [expected])
            #expect(value[2]?.object?.keys == [expected])
        }

        func quoted(_ bytes: [UInt8]) -> [UInt8] { [UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")] }
    }

    @Test func indentedDocumentsWithUnevenLinesReadTheSame() throws {
        var generator = DocumentGenerator(seed: 0x1DE7)
        var random = SeededGenerator(seed: 0x1DE7_1DE7)
        for round in 0..<300 {
            let value = generator.document().value
            // Two-space indentation, deepened to four or eight spaces a level now and then (as in
            // citm_catalog.json), with some lines changed: a space more or less, a tab, a carriage return,
            // or a control character (which must be an error, as it is to JSONSerialization).
            var lines = String(decoding: JSONWriter.data(value, style: .pretty), as: UTF8.self)
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let scale = [1, 1, 2, 4].randomElement(using: &random)!
            var broken = false
            for index in lines.indices {
                let indentation = lines[index].prefix { $0 == " " }.count
                var line = String(repeating: " ", count: indentation * scale) + lines[index].dropFirst(indentation)
                if Int.random(in: 0..<10, using: &random) == 0 {
                    // Most often right after the indentation the previous line had.
                    let offset =
                        Bool.random(using: &random)
                        ? indentation * scale : Int.random(in: 0...indentation * scale, using: &random)
                    let at = line.index(line.startIndex, offsetBy: offset)
                    switch Int.random(in: 0..<5, using: &random) {
                    case 0: line.insert(" ", at: at)
                    case 1: if indentation > 0 { line.remove(at: line.startIndex) }
                    case 2: line.insert("\t", at: at)
                    case 3: line.insert("\r", at: at)
                    default:
                        line.insert("\u{1}", at: at)
                        broken = true
                    }
                }
                lines[index] = line
            }
            let data = Data(lines.joined(separator: "\n").utf8)
            if broken {
                #expect(throws: JSONSyntaxError.self, "round \(round)") { try JSONReader.read(data) }
                #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) }
            } else {
                let same = try JSONReader.read(data).sameTree(as: value)
                #expect(same, "round \(round): \(String(decoding: data.prefix(300), as: UTF8.self))")
            }
        }
    }

    @Test func deepChainsOfRepeatedObjectsReadAsWritten() throws {
        // Chains of objects that all begin with "id", nested 120 deep, in several variants each repeated:
        // objects at every sixteenth level share a set of four shapes, so the shapes of objects still being
        // read fill it while nested objects of other shapes look for room.
        var random = SeededGenerator(seed: 0xC4A1)
        let variants: [[String]] = (0..<4).map { _ in
            (0..<120).map { _ in ["a", "b", "c", "d", "e"].shuffled(using: &random).prefix(Int.random(in: 0...3, using: &random)).joined() }
        }
        var chains: [WidgetValue] = []
        for chain in 0..<12 {
            let variant = variants[chain % variants.count]
            var value: WidgetValue = ["id": .number(WidgetNumber(chain)), "leaf": true]
            for level in (0..<120).reversed() {
                var object: WidgetObject = ["id": .number(WidgetNumber(level))]
                for letter in variant[level] { object[String(letter)] = .string("\(letter)\(level)") }
                object["child"] = value
                value = .object(object)
            }
            chains.append(value)
        }
        let document = WidgetValue.array(chains)
        for style in [JSONWriter.Style.compact, .pretty] {
            let same = try JSONReader.read(JSONWriter.data(document, style: style)).sameTree(as: document)
            #expect(same)
        }
    }

    @Test func recordsWithOptionalKeysReadAsWritten() throws {
        // Records of one kind in variants (a key missing in the middle or at the end, a key added), in
        // random order: an object that leaves the shape its first key predicts goes on with another
        // shape that has the same keys so far. Variants with the same key at the same place after other
        // keys ("q" third after "a" or after "z"), or as many keys ending differently, must not be taken
        // for each other.
        let variants: [[String]] = [
            ["id", "name", "x", "tail"], ["id", "name", "tail"], ["id", "name", "x"], ["id", "name", "x", "tail", "extra"],
            ["id", "a", "b"], ["id", "z", "q"], ["id", "a", "q"], ["id", "a"], ["id", "z"],
        ]
        var random = SeededGenerator(seed: 0x0B7E_C7ED)
        for round in 0..<40 {
            var records: [WidgetValue] = []
            for index in 0..<60 {
                let keys = variants[Int.random(in: 0..<(round < 20 ? 4 : variants.count), using: &random)]
                var object = WidgetObject()
                for key in keys { object[key] = key == "id" ? .number(WidgetNumber(index)) : .string("\(key)\(index)") }
                // Nested records of the same kinds, one level down.
                if index % 3 == 0 { object["child"] = .object(["id": 1, "name": "n", "tail": true]) }
                records.append(.object(object))
            }
            let document = WidgetValue.array(records)
            for style in [JSONWriter.Style.compact, .pretty] {
                let same = try JSONReader.read(JSONWriter.data(document, style: style)).sameTree(as: document)
                #expect(same, "round \(round)")
            }
        }
    }

    // MARK: - The benchmark documents

    @Test(arguments: ["twitter", "canada", "citm_catalog"])
    func benchmarkDocumentReadsAsJSONSerializationReadsIt(name: String) throws {
        let url = Oracles.packageRoot.appendingPathComponent("Sources/WidgetBenchmarks/Documents/\(name).json")
        let data = try Data(contentsOf: url)
        let value = try JSONReader.read(data)
        let foundation = try JSONSerialization.jsonObject(with: data)
        let difference = value.difference(from: foundation)
        #expect(difference == nil)
        // Read again and from compact text (other offsets, other white space): the same tree.
        let again = try JSONReader.read(data).sameTree(as: value)
        #expect(again)
        let compact = try JSONReader.read(JSONWriter.data(value)).sameTree(as: value)
        #expect(compact)
    }
}

// MARK: - Comparisons

extension WidgetValue {
    /// Equal with keys in the same order and numbers spelled the same (`==` allows any order and spelling).
    fileprivate func sameTree(as other: WidgetValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a.text == b.text
        case (.string(let a), .string(let b)): return Array(a.utf8) == Array(b.utf8)
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.sameTree(as: $1) }
        case (.object(let a), .object(let b)):
            guard a.keys == b.keys else { return false }
            for key in a.keys where !(a[key]!.sameTree(as: b[key]!)) { return false }
            // Lookups by key agree with the member order (objects of many members keep an index).
            for (position, key) in a.keys.enumerated() where a.position(of: key) != position { return false }
            return true
        default: return false
        }
    }

    /// Whether a number inside is too large or too small (but not zero) for a `Double`.
    fileprivate var hasNumberBeyondDouble: Bool {
        switch self {
        case .number(let number):
            let mantissa = number.text.prefix { $0 != "e" && $0 != "E" }
            return !number.double.isFinite || (number.double == 0 && mantissa.contains { "123456789".contains($0) })
        case .array(let elements): return elements.contains { $0.hasNumberBeyondDouble }
        case .object(let object): return object.values.contains { $0.hasNumberBeyondDouble }
        default: return false
        }
    }

    /// Whether `foundation`, a `JSONSerialization` result, holds the same values (numbers as the nearest
    /// `Double`, which is what `JSONSerialization` keeps).
    fileprivate func matches(_ foundation: Any) -> Bool { difference(from: foundation) == nil }

    /// Where and how `foundation` differs, or `nil`.
    fileprivate func difference(from foundation: Any, at path: String = "$") -> String? {
        switch self {
        case .null:
            return foundation is NSNull ? nil : "\(path): null here, \(foundation) there"
        case .bool(let value):
            if let number = foundation as? NSNumber, number.boolValue == value,
                ["c", "B"].contains(String(cString: number.objCType))
            {
                return nil
            }
            return (foundation as? Bool) == value ? nil : "\(path): \(value) here, \(foundation) there"
        case .number(let value):
            if let int = value.int, let exact = foundation as? Int, int == exact { return nil }
            // JSONSerialization keeps large and long numbers as `Decimal`, others as `NSNumber`.
            // (`Decimal` converts to `Double` by steps, a few units in the last place off.)
            let theirs: Double
            let tolerance: Double
            if let decimal = foundation as? Decimal {
                theirs = NSDecimalNumber(decimal: decimal).doubleValue
                tolerance = 1e-12
            } else if let number = foundation as? NSNumber {
                theirs = number.doubleValue
                tolerance = 1e-15
            } else {
                return "\(path): \(value) here, \(foundation) there"
            }
            let ours = value.double
            return ours == theirs || abs(ours - theirs) <= abs(ours) * tolerance
                ? nil : "\(path): \(value) here, \(foundation) there"
        case .string(let value):
            return (foundation as? String) == value ? nil : "\(path): \(value.debugDescription) here, \(foundation) there"
        case .array(let elements):
            guard let array = foundation as? [Any], array.count == elements.count else {
                return "\(path): \(elements.count) elements here, \(foundation) there"
            }
            for (index, element) in elements.enumerated() {
                if let difference = element.difference(from: array[index], at: "\(path)[\(index)]") { return difference }
            }
            return nil
        case .object(let object):
            guard let dictionary = foundation as? [String: Any], dictionary.count == object.count else {
                return "\(path): keys \(object.keys) here, \(foundation) there"
            }
            for (key, value) in object {
                guard let other = dictionary[key] else { return "\(path): no \(key) there" }
                if let difference = value.difference(from: other, at: "\(path).\(key)") { return difference }
            }
            return nil
        }
    }
}

// MARK: - Generator

/// Writes random JSON documents together with the value each should read as: records that repeat,
/// vary and reorder their keys (as arrays of API objects do), repeated keys, strings with escapes,
/// surrogate pairs and raw non-ASCII text of every length around the eight-byte steps, numbers in every
/// spelling, and white space from none to indented lines.
private struct DocumentGenerator {
    private var random: SeededGenerator
    private let surrogates: Bool
    /// Values left to write in the current document; past it, containers are written empty.
    private var budget = 0

    init(seed: UInt64, surrogates: Bool = true) {
        random = SeededGenerator(seed: seed)
        self.surrogates = surrogates
    }

    private static let keys = [
        "id", "id_str", "name", "screen_name", "text", "user", "entities", "urls", "a", "b", "é", "東京",
        "profile_background_image_url_https", "x", "created_at", "retweet_count", "favorited", "lang",
    ]

    mutating func document() -> (text: String, value: WidgetValue) {
        budget = Int.random(in: 1...600, using: &random)
        var text = ""
        let value = self.value(depth: 0, into: &text)
        space(&text)
        return (text, value)
    }

    private mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    private mutating func space(_ text: inout String) {
        switch Int.random(in: 0..<8, using: &random) {
        case 0, 1, 2: break
        case 3: text += " "
        case 4: text += "\n" + String(repeating: " ", count: Int.random(in: 0..<20, using: &random))
        case 5: text += "\r\n\t\t"
        case 6: text += String(repeating: " ", count: Int.random(in: 1..<40, using: &random))
        default: text += " \n  \t"
        }
    }

    private mutating func value(depth: Int, into text: inout String) -> WidgetValue {
        space(&text)
        budget -= 1
        let kinds = depth > 5 || budget <= 0 ? 4 : 7
        switch Int.random(in: 0..<kinds, using: &random) {
        case 0:
            switch Int.random(in: 0..<3, using: &random) {
            case 0:
                text += "null"
                return .null
            case 1:
                text += "true"
                return .bool(true)
            default:
                text += "false"
                return .bool(false)
            }
        case 1, 2:
            let number = self.number()
            text += number
            return .number(WidgetNumber(number)!)
        case 3:
            let (written, meant) = string()
            text += written
            return .string(meant)
        case 4:
            return array(depth: depth, into: &text)
        case 5:
            return object(keys: Self.keys.shuffled(using: &random).prefix(Int.random(in: 0..<8, using: &random)), depth: depth, into: &text)
        default:
            return records(depth: depth, into: &text)
        }
    }

    private mutating func array(depth: Int, into text: inout String) -> WidgetValue {
        text += "["
        var elements: [WidgetValue] = []
        for index in 0..<Int.random(in: 0..<6, using: &random) where budget > 0 {
            if index > 0 {
                space(&text)
                text += ","
            }
            elements.append(value(depth: depth + 1, into: &text))
        }
        space(&text)
        text += "]"
        return .array(elements)
    }

    /// An array of objects that mostly share their keys, sometimes with one more, one fewer or two swapped,
    /// and objects of more members than small objects search linearly.
    private mutating func records(depth: Int, into text: inout String) -> WidgetValue {
        var shape = Array(Self.keys.shuffled(using: &random).prefix(Int.random(in: 1..<Self.keys.count, using: &random)))
        if chance(20) { shape += (0..<Int.random(in: 10..<80, using: &random)).map { "field\($0)" } }
        text += "["
        var elements: [WidgetValue] = []
        for index in 0..<Int.random(in: 1..<12, using: &random) where index == 0 || budget > 0 {
            if index > 0 { text += "," }
            var keys = shape
            switch Int.random(in: 0..<6, using: &random) {
            case 0: keys.append("extra")
            case 1: if keys.count > 1 { keys.remove(at: Int.random(in: 0..<keys.count, using: &random)) }
            case 2: if keys.count > 2 { keys.swapAt(0, keys.count - 1) }
            default: break
            }
            elements.append(object(keys: keys[...], depth: depth + 1, into: &text))
        }
        text += "]"
        return .array(elements)
    }

    /// An object with `keys`, now and then writing a key twice or with an escape.
    private mutating func object(keys: ArraySlice<String>, depth: Int, into text: inout String) -> WidgetValue {
        text += "{"
        var members: [(String, WidgetValue)] = []
        var written = Array(keys)
        if !written.isEmpty, chance(10) { written.append(written.randomElement(using: &random)!) }
        for (index, key) in written.enumerated() {
            if index > 0 {
                space(&text)
                text += ","
            }
            space(&text)
            text += chance(5) ? escapedKey(key) : "\"\(key)\""
            space(&text)
            text += ":"
            let member = depth > 4 || budget <= 0 ? scalar(into: &text) : value(depth: depth + 1, into: &text)
            if let existing = members.firstIndex(where: { $0.0 == key }) {
                members[existing].1 = member
            } else {
                members.append((key, member))
            }
        }
        space(&text)
        text += "}"
        var object = WidgetObject()
        for (key, value) in members { object[key] = value }
        return .object(object)
    }

    private mutating func scalar(into text: inout String) -> WidgetValue {
        space(&text)
        if chance(50) {
            let number = self.number()
            text += number
            return .number(WidgetNumber(number)!)
        }
        let (written, meant) = string()
        text += written
        return .string(meant)
    }

    private func escapedKey(_ key: String) -> String {
        "\"" + key.unicodeScalars.map { String(format: "\\u%04x", $0.value) }.joined() + "\""
    }

    private mutating func number() -> String {
        var text = chance(30) ? "-" : ""
        if chance(20) {
            text += "0"
        } else {
            text += String(Int.random(in: 1...9, using: &random))
            for _ in 0..<Int.random(in: 0..<22, using: &random) { text += String(Int.random(in: 0...9, using: &random)) }
        }
        if chance(35) {
            text += "."
            for _ in 0..<Int.random(in: 1..<12, using: &random) { text += String(Int.random(in: 0...9, using: &random)) }
        }
        if chance(15) {
            text += ["e", "E", "e+", "e-", "E-"].randomElement(using: &random)!
            text += String(Int.random(in: 0..<200, using: &random))
        }
        return text
    }

    /// A string as written in JSON and as it should read.
    private mutating func string() -> (written: String, meant: String) {
        var written = "\""
        var meant = ""
        let pieces = [0, 1, 3, 7, 8, 9, 15, 16, 17, 40].randomElement(using: &random)!
        for _ in 0..<pieces {
            switch Int.random(in: 0..<12, using: &random) {
            case 0:
                let (escape, character) = [
                    (#"\""#, "\""), (#"\\"#, "\\"), (#"\/"#, "/"), (#"\b"#, "\u{8}"), (#"\f"#, "\u{C}"),
                    (#"\n"#, "\n"), (#"\r"#, "\r"), (#"\t"#, "\t"), (#"\u00e9"#, "é"), (#"\u0000"#, "\u{0}"),
                    (#"\u6771"#, "東"), (#"\u001F"#, "\u{1F}"),
                ].randomElement(using: &random)!
                if surrogates, chance(30) {
                    written += #"\ud83d\ude00"#
                    meant += "😀"
                    continue
                }
                written += escape
                meant += character
            case 1:
                let raw = ["é", "東京", "😀", "Ünï", "ß", "\u{7F}"].randomElement(using: &random)!
                written += raw
                meant += raw
            default:
                let letter = String(UnicodeScalar(UInt8.random(in: 0x20...0x7E, using: &random)))
                if letter == "\"" || letter == "\\" {
                    written += "\\" + letter
                } else {
                    written += letter
                }
                meant += letter
            }
        }
        return (written + "\"", meant)
    }
}
