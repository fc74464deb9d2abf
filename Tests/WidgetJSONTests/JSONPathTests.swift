import Foundation
import Testing
import WidgetJSON
import WidgetTestSupport

struct JSONPathTests {
    static let store: WidgetValue = [
        "store": [
            "book": [
                ["title": "Sayings", "price": 8.95, "tags": ["quotes"]],
                ["title": "Sword", "price": 12.99, "tags": [], "image": "sword.png"],
                ["title": "Moby Dick", "price": 8.99, "image": nil],
            ]
        ]
    ]

    /// The error `text` throws, as its full description.
    static func message(_ text: String) -> String? {
        do {
            _ = try JSONPath(text)
            return nil
        } catch {
            return error.description
        }
    }

    // MARK: - Errors

    @Test func missingClosingBracketNamesItsColumn() {
        #expect(Self.message("$.book[0x]") == "expected ']' after a bracketed selector at column 9")
    }

    @Test func unknownFunctionSuggestsTheClosestName() throws {
        let error = #expect(throws: ExpressionError.self) { try JSONPath("$[?lenght(@.a) > 1]") }
        #expect(error?.reason == "unknown function 'lenght'")
        #expect(error?.column == 4)
        #expect(error?.description == "unknown function 'lenght' at column 4; did you mean 'length'?")
    }

    @Test func integersFollowTheRFCGrammar() {
        #expect(Self.message("$[01]") == "the integer '01' has a leading zero at column 3; write it without leading zeros")
        #expect(Self.message("$[-0]") == "'-0' is not a valid index at column 3; write '0'")
        #expect(
            Self.message("$[9007199254740992]")
                == "the integer '9007199254740992' is outside ±9007199254740991 (2^53 − 1) at column 3")
        #expect(Self.message("$[-9007199254740991]") == nil)
    }

    @Test func queriesMustStartWithTheRootAndHaveNoSurroundingWhitespace() {
        #expect(Self.message("") == "a JSONPath must start with '$' but the text is empty at column 1")
        #expect(Self.message("a.b") == "a JSONPath must start with '$', not 'a' at column 1")
        #expect(Self.message("$.a ") == "unexpected ' ' after the end of the expression at column 4")
        #expect(Self.message("$. a") == "expected a member name or '*' after '.' at column 3")
    }

    @Test func illTypedFunctionUseIsRejectedAtParseTime() {
        #expect(
            Self.message("$[?length(@.*) > 1]")
                == "argument 1 of 'length' must be a single value, but '@.*' can select several nodes at column 11")
        #expect(Self.message("$[?count(1) > 1]") == "argument 1 of 'count' must be a query such as '@.items[*]' at column 10")
        #expect(
            Self.message("$[?length(@.a)]")
                == "'length' returns a value, not a logical result at column 4; compare it, e.g. 'length(…) > 0'")
        #expect(
            Self.message("$[?match(@.a, 'x') == true]")
                == "'match' returns a logical result and cannot be compared at column 4; use it on its own, e.g. '?match(…)'")
        #expect(Self.message("$[?length(@.a, @.b) > 1]") == "function 'length' takes 1 argument at column 16; remove this argument")
        #expect(Self.message("$[?match(@.a) > 1]") == "function 'match' takes 2 arguments, not 1 at column 13")
    }

    @Test func comparisonsNeedSingularQueries() {
        #expect(
            Self.message("$[?@.* == 1]")
                == "a comparison needs a single value on each side, but '@.*' can select several nodes at column 4")
    }

    @Test func stringLiteralErrorsPointAtTheProblem() {
        #expect(Self.message("$['abc") == "the string has no closing ' at column 3")
        #expect(
            Self.message(#"$['a\qb']"#)
                == #"'\q' is not a valid escape at column 5; use \b \f \n \r \t \/ \\ \' or \uXXXX"#)
        #expect(
            Self.message(#"$['\uD800']"#)
                == #"'\uD800' must be followed by a low surrogate '\uDC00'…'\uDFFF' at column 4"#)
    }

    @Test func deepNestingIsBoundedInsteadOfOverflowingTheStack() {
        let parentheses = "$[?" + String(repeating: "(", count: 200) + "@.a" + String(repeating: ")", count: 200) + "]"
        #expect(Self.message(parentheses)?.hasPrefix("the expression nests deeper than 64 levels") == true)
        let filters = "$" + String(repeating: "[?@", count: 200) + String(repeating: "]", count: 200)
        #expect(Self.message(filters)?.hasPrefix("the expression nests deeper than 64 levels") == true)
        let functions = "$[?" + String(repeating: "length(", count: 200) + "@" + String(repeating: ")", count: 200) + "]"
        #expect(Self.message(functions) != nil)
    }

    // MARK: - Selection

    @Test func filtersSelectInDocumentOrderWithNormalizedPaths() throws {
        let path = try JSONPath("$.store.book[?@.price < 10].title")
        #expect(path.select(Self.store) == ["Sayings", "Moby Dick"])
        #expect(
            path.locate(Self.store).map(\.path.normalizedPath)
                == ["$['store']['book'][0]['title']", "$['store']['book'][2]['title']"])
    }

    @Test func descendantFilterFindsEveryMatchingNode() throws {
        let titles = try JSONPath("$..[?@.price > 10].title").select(Self.store)
        #expect(titles == ["Sword"])
    }

    @Test func slicesWithNegativeStepsRunBackwards() throws {
        let list: WidgetValue = [0, 1, 2, 3, 4, 5]
        #expect(try JSONPath("$[::-2]").select(list) == [5, 3, 1])
        #expect(try JSONPath("$[4:1:-1]").select(list) == [4, 3, 2])
        #expect(try JSONPath("$[-2:]").select(list) == [4, 5])
        #expect(try JSONPath("$[::0]").select(list) == [])
    }

    @Test func singularQueriesAreRecognized() throws {
        #expect(try JSONPath("$.store.book[0]['title']").isSingular)
        #expect(try !JSONPath("$.store.book[*]").isSingular)
        #expect(try !JSONPath("$..title").isSingular)
        #expect(try !JSONPath("$['a','b']").isSingular)
    }

    @Test func normalizedPathsEscapeLikeRFC9535() {
        let path = ValuePath(components: [.key("it's"), .key("a\\b\n\u{1}"), .index(3)])
        #expect(path.normalizedPath == #"$['it\'s']['a\\b\n\u0001'][3]"#)
    }

    @Test func nameSelectorsDecodeEscapesAndSurrogatePairs() throws {
        let document: WidgetValue = ["😀": 1, "a'b": 2]
        #expect(try JSONPath(#"$["\uD83D\uDE00"]"#).select(document) == [1])
        #expect(try JSONPath(#"$['a\'b']"#).select(document) == [2])
    }

    // MARK: - Filters

    @Test func standaloneFilterTestsOneItem() throws {
        let filter = try JSONPathFilter("@.image != null && @.price > 10")
        let books = Self.store["store"]?["book"]?.array ?? []
        #expect(books.map { filter.matches($0, root: Self.store) } == [false, true, false])
    }

    @Test func standaloneFilterAcceptsALeadingQuestionMarkAndFunctions() throws {
        let filter = try JSONPathFilter("?length(@.tags) > 0")
        #expect(filter.matches(["tags": ["x"]], root: .null))
        #expect(!filter.matches(["tags": []], root: .null))
        #expect(!filter.matches(["tags": 3], root: .null))
    }

    @Test func filterCanReferToTheRoot() throws {
        let filter = try JSONPathFilter("@.price < $.limit")
        #expect(filter.matches(["price": 5], root: ["limit": 10]))
        #expect(!filter.matches(["price": 15], root: ["limit": 10]))
    }

    @Test func numbersCompareExactly() throws {
        #expect(try JSONPathFilter("@.a == 1.0").matches(["a": 1], root: .null))
        #expect(try JSONPathFilter("@.a == 1e0").matches(["a": 1], root: .null))
        #expect(try JSONPathFilter("@.a == 0.3").matches(["a": .number(WidgetNumber("0.30")!)], root: .null))
        let big = try JSONReader.read(#"{"a": 12345678901234567891}"#)
        #expect(try JSONPathFilter("@.a > 12345678901234567890").matches(big, root: .null))
        #expect(try !JSONPathFilter("@.a == 12345678901234567890").matches(big, root: .null))
    }

    @Test func stringsCompareByUnicodeScalars() throws {
        #expect(try JSONPathFilter("@.a < 'b'").matches(["a": "a"], root: .null))
        // "é" precomposed and decomposed are canonically equivalent but not equal in JSONPath.
        #expect(try !JSONPathFilter("@.a == 'e\\u0301'").matches(["a": "\u{E9}"], root: .null))
    }

    @Test func matchIsAnchoredAndSearchIsNot() throws {
        let item: WidgetValue = ["id": "abc-123"]
        #expect(try JSONPathFilter("match(@.id, '[a-z]+-\\\\d+')").matches(item, root: .null) == false)
        #expect(try JSONPathFilter("match(@.id, '[a-z]+-[0-9]+')").matches(item, root: .null))
        #expect(try !JSONPathFilter("match(@.id, '[a-z]+')").matches(item, root: .null))
        #expect(try JSONPathFilter("search(@.id, '[0-9]')").matches(item, root: .null))
        #expect(try JSONPathFilter("match(@.id, '\\\\p{Ll}+-\\\\p{Nd}+')").matches(item, root: .null))
    }

    @Test func dotDoesNotMatchLineBreaks() throws {
        let filter = try JSONPathFilter("match(@, 'a.b')")
        #expect(filter.matches("a-b", root: .null))
        #expect(!filter.matches("a\nb", root: .null))
        #expect(!filter.matches("a\rb", root: .null))
        #expect(filter.matches("a\u{2028}b", root: .null))
    }

    @Test func patternsMayComeFromTheDocument() throws {
        let filter = try JSONPathFilter("match(@.id, $.pattern)")
        let root: WidgetValue = ["pattern": "[a-z]+\\.[0-9]+"]
        #expect(filter.matches(["id": "abc.12"], root: root))
        #expect(!filter.matches(["id": "abcx12"], root: root))
        #expect(!filter.matches(["id": "abc.12"], root: ["pattern": 3]))
    }

    @Test func invalidRegularExpressionMatchesNothing() throws {
        #expect(try !JSONPathFilter("search(@, '(a')").matches("(a", root: .null))
        #expect(try !JSONPathFilter("search(@, 'a{,2}')").matches("a", root: .null))
        #expect(try JSONPathFilter("!search(@, '[')").matches("[", root: .null))
    }

    // MARK: - Decoding

    struct Options: Decodable {
        var items: JSONPath
    }

    @Test func decodingAnInvalidPathKeepsTheColumn() throws {
        let data = Data(#"{"items": "$.book[0x]"}"#.utf8)
        #expect(try JSONDecoder().decode(Options.self, from: Data(#"{"items": "$.book[*]"}"#.utf8)).items.text == "$.book[*]")
        do {
            _ = try JSONDecoder().decode(Options.self, from: data)
            Issue.record("An invalid path was decoded.")
        } catch DecodingError.dataCorrupted(let context) {
            let underlying = context.underlyingError as? ExpressionError
            #expect(underlying?.column == 9)
            #expect(underlying?.reason == "expected ']' after a bracketed selector")
            #expect(context.codingPath.map(\.stringValue) == ["items"])
        }
    }

    // MARK: - Fuzz corpus

    @Test func seedCorpusInputsAreValid() throws {
        let folder = Oracles.packageRoot.appendingPathComponent("Tests/Fixtures/fuzz-corpus")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        #expect(!files.isEmpty)
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: file))
            let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
            switch bytes.first {
            case 0: _ = try JSONReader.read(text)
            case 1: _ = try JSONPath(text)
            case 2: _ = try JSONPathFilter(text)
            case 3: break  // templates: TemplateTests replays them
            case 4, 5: break  // feeds and dates, some broken on purpose; the feed tests replay them
            case 6, 7: break  // headers and timeline dates, extreme on purpose; EdgeValueTests replays them
            default: Issue.record("\(file.lastPathComponent) starts with an unknown selector byte.")
            }
        }
    }
}
