import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages

struct SortTransformTests {
    let context = StageContext(
        widgetID: "test",
        now: Date(timeIntervalSince1970: 1_795_340_203),
        timeZone: TimeZone(identifier: "America/New_York")!
    )

    private func sort(_ options: WidgetValue) throws -> SortTransform {
        let stage = try StageRegistry.builtIn.makeStage(.transformer, typeName: "sort", options: options, decoder: OptionsDecoder())
        return try #require(stage as? SortTransform)
    }

    private func optionsError(_ options: WidgetValue) -> OptionsError? {
        do {
            _ = try StageRegistry.builtIn.makeStage(.transformer, typeName: "sort", options: options, decoder: OptionsDecoder())
            return nil
        } catch {
            return error
        }
    }

    /// Sorts `json` (a list) and returns the `id` of each item.
    private func sortedIDs(_ json: String, _ options: WidgetValue) async throws -> [String] {
        let value = try JSONReader.read(json)
        let sorted = try await sort(options).transform(value, context: context)
        return try #require(sorted.array).map { item in
            switch item["id"] {
            case .string(let text)?: text
            case .number(let number)?: number.text
            default: "?"
            }
        }
    }

    // MARK: - Kinds

    @Test func numbersCompareAsNumbersNotAsText() async throws {
        let json =
            #"[{"id": "a", "p": 10}, {"id": "b", "p": 9.5}, {"id": "c", "p": 100}, {"id": "d", "p": -2}, {"id": "e", "p": 1e1}, {"id": "f", "p": 0.25}]"#
        #expect(try await sortedIDs(json, ["by": "$.p"]) == ["d", "f", "b", "a", "e", "c"])
        #expect(try await sortedIDs(json, ["by": "$.p", "order": "descending"]) == ["c", "a", "e", "b", "f", "d"])
    }

    @Test func twentyDigitIntegersCompareExactly() async throws {
        let json = """
            [{"id": "a", "n": 12345678901234567891}, {"id": "b", "n": 12345678901234567889},
             {"id": "c", "n": 12345678901234567890}, {"id": "d", "n": 99999999999999999999}]
            """
        #expect(try await sortedIDs(json, ["by": "$.n"]) == ["b", "c", "a", "d"])
    }

    @Test func isoDatesCompareAsInstantsWhateverTheirOffsets() async throws {
        // 09:00Z, 09:30Z, 09:15Z, and 08:59:59.500Z: text order would be d, c, b, a.
        let json = """
            [{"id": "a", "at": "2026-03-01T10:00:00+01:00"}, {"id": "b", "at": "2026-03-01T09:30:00Z"},
             {"id": "c", "at": "2026-03-01T04:15:00-05:00"}, {"id": "d", "at": "2026-03-01T03:59:59.500-05:00"}]
            """
        #expect(try await sortedIDs(json, ["by": "$.at"]) == ["d", "a", "c", "b"])
        #expect(try await sortedIDs(json, ["by": "$.at", "order": "descending"]) == ["b", "c", "a", "d"])
    }

    @Test func datesWithoutAZoneCompareAsInstantsInTheWidgetsZone() async throws {
        // New York: "2026-03-01" starts at 05:00Z, "2026-03-01T04:30" is 09:30Z.
        let json = """
            [{"id": "a", "at": "2026-03-01T09:00:00Z"}, {"id": "b", "at": "2026-03-01"}, {"id": "c", "at": "2026-03-01T04:30"},
             {"id": "d", "at": "2026-03-01T04:59:00Z"}]
            """
        #expect(try await sortedIDs(json, ["by": "$.at"]) == ["d", "b", "a", "c"])
    }

    @Test func stringsCompareByCodePoints() async throws {
        let json =
            #"[{"id": "b"}, {"id": "B"}, {"id": "é"}, {"id": "a"}, {"id": "Z"}, {"id": "e"}, {"id": "😀"}, {"id": "｡"}, {"id": "ab"}]"#
        // U+FF61 (｡) before U+1F600 (😀), though UTF-16 code units would put the emoji first.
        #expect(try await sortedIDs(json, ["by": "$.id"]) == ["B", "Z", "a", "ab", "b", "e", "é", "｡", "😀"])
    }

    @Test func numericLookingStringsCompareAsText() async throws {
        let json = #"[{"id": "10"}, {"id": "9.5"}, {"id": "100"}]"#
        #expect(try await sortedIDs(json, ["by": "$.id"]) == ["10", "100", "9.5"])
    }

    @Test func booleansSortFalseFirst() async throws {
        let json = #"[{"id": "a", "on": true}, {"id": "b", "on": false}, {"id": "c", "on": true}]"#
        #expect(try await sortedIDs(json, ["by": "$.on"]) == ["b", "a", "c"])
    }

    // MARK: - Order

    @Test func descendingReversesTheOrder() async throws {
        let json = #"[{"id": "a", "p": 2}, {"id": "b", "p": 3}, {"id": "c", "p": 1}]"#
        #expect(try await sortedIDs(json, ["by": "$.p", "order": "descending"]) == ["b", "a", "c"])
        #expect(try await sortedIDs(json, ["by": "$.p", "order": "desc"]) == ["b", "a", "c"])
        #expect(try await sortedIDs(json, ["by": "$.p", "order": "ascending"]) == ["c", "a", "b"])
    }

    @Test func equalKeysKeepTheirOrderInBothDirections() async throws {
        let json = """
            [{"id": "a", "p": 1}, {"id": "b", "p": 2}, {"id": "c", "p": 1.0}, {"id": "d", "p": 2},
             {"id": "e", "p": 1}, {"id": "f", "at": "2026-03-01T10:00:00+01:00"}]
            """
        #expect(try await sortedIDs(json, ["by": "$.p"]) == ["a", "c", "e", "b", "d", "f"])
        #expect(try await sortedIDs(json, ["by": "$.p", "order": "descending"]) == ["b", "d", "a", "c", "e", "f"])
        let sameInstant = """
            [{"id": "a", "at": "2026-03-01T10:00:00+01:00"}, {"id": "b", "at": "2026-03-01T09:00:00Z"},
             {"id": "c", "at": "2026-03-01T04:00:00-05:00"}]
            """
        #expect(try await sortedIDs(sameInstant, ["by": "$.at", "order": "descending"]) == ["a", "b", "c"])
    }

    @Test func itemsWithoutTheValueGoLastInBothOrders() async throws {
        let json = """
            [{"id": "a"}, {"id": "b", "p": 2}, {"id": "c", "p": null}, {"id": "d", "p": 1},
             {"id": "e", "p": [3]}, {"id": "f", "p": 3}, "not an object"]
            """
        #expect(try await sortedIDs(json, ["by": "$.p"]) == ["d", "b", "f", "a", "c", "e", "?"])
        #expect(try await sortedIDs(json, ["by": "$.p", "order": "descending"]) == ["f", "b", "d", "a", "c", "e", "?"])
    }

    @Test func valuesOfAMinorityKindGoLastWithTheMissingOnes() async throws {
        let json = """
            [{"id": "a", "p": "n/a"}, {"id": "b", "p": 2}, {"id": "c", "p": true}, {"id": "d", "p": 1},
             {"id": "e"}, {"id": "f", "p": 3}]
            """
        #expect(try await sortedIDs(json, ["by": "$.p"]) == ["d", "b", "f", "a", "c", "e"])
        #expect(try await sortedIDs(json, ["by": "$.p", "order": "descending"]) == ["f", "b", "d", "a", "c", "e"])
    }

    @Test func sortsByANestedPath() async throws {
        let json = #"[{"id": "a", "offer": {"price": 3}}, {"id": "b", "offer": {"price": 1}}]"#
        #expect(try await sortedIDs(json, ["by": "$.offer.price"]) == ["b", "a"])
    }

    // MARK: - Errors

    @Test func anUnknownOrderIsAnOptionsErrorAtTheOption() throws {
        let error = try #require(optionsError(["by": "$.p", "order": "down"]))
        #expect(error.description == #"$.order: "order" is "down"; use "ascending" or "descending""#)
    }

    @Test func aMissingByIsAnOptionsError() throws {
        let error = try #require(optionsError(["order": "descending"]))
        #expect(error.description == "$: missing required key 'by'")
    }

    @Test func aValueThatIsNotAListIsAnError() async throws {
        let error = await #expect(throws: StageError.self) {
            _ = try await sort(["by": "$.p"]).transform("text", context: context)
        }
        #expect(error?.message == "sort needs a list, but the value is string; select a list first")
    }
}
