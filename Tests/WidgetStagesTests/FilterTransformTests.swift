import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages

struct FilterTransformTests {
    let context = StageContext(
        widgetID: "test",
        now: Date(timeIntervalSince1970: 1_795_340_203),
        timeZone: TimeZone(identifier: "America/New_York")!,
        params: ["minimum": 10]
    )

    let products: WidgetValue = [
        ["name": "a", "price": 5, "image": "a.jpg", "tags": ["x"]],
        ["name": "b", "price": 15, "image": "b.jpg", "tags": ["x", "y"]],
        ["name": "c", "price": 20, "image": nil, "tags": []],
        ["name": "d", "price": 30, "tags": ["x", "y", "z"]],
        ["name": "e", "price": "40"],
    ]

    private func filter(_ options: WidgetValue) throws -> FilterTransform {
        let stage = try StageRegistry.builtIn.makeStage(.transformer, typeName: "filter", options: options, decoder: OptionsDecoder())
        return try #require(stage as? FilterTransform)
    }

    private func optionsError(_ options: WidgetValue) -> OptionsError? {
        do {
            _ = try StageRegistry.builtIn.makeStage(.transformer, typeName: "filter", options: options, decoder: OptionsDecoder())
            return nil
        } catch {
            return error
        }
    }

    private func names(_ value: WidgetValue) -> [String] {
        (value.array ?? []).compactMap { $0["name"]?.string }
    }

    // MARK: - where

    @Test func whereKeepsItemsThatPassAComparison() async throws {
        let kept = try await filter(["where": "@.price > 10"]).transform(products, context: context)
        // "40" is a string: a comparison of a string with a number is false.
        #expect(names(kept) == ["b", "c", "d"])
        let exact = try await filter(["where": "@.price == 15"]).transform(products, context: context)
        #expect(names(exact) == ["b"])
        let text = try await filter(["where": "@.name <= 'b'"]).transform(products, context: context)
        #expect(names(text) == ["a", "b"])
    }

    @Test func whereCombinesTestsWithAnd() async throws {
        let kept = try await filter(["where": "@.price > 10 && @.image != null"]).transform(products, context: context)
        // RFC 9535: a missing member is not equal to null, so "d" (no image) passes `!= null`.
        #expect(names(kept) == ["b", "d"])
        let either = try await filter(["where": "@.price < 10 || @.price >= 30"]).transform(products, context: context)
        #expect(names(either) == ["a", "d"])
    }

    @Test func whereTestsExistence() async throws {
        let withImage = try await filter(["where": "@.image"]).transform(products, context: context)
        // Existence: a member holding null exists.
        #expect(names(withImage) == ["a", "b", "c"])
        let withoutTags = try await filter(["where": "!@.tags"]).transform(products, context: context)
        #expect(names(withoutTags) == ["e"])
    }

    @Test func whereCallsLengthOnTheItem() async throws {
        let kept = try await filter(["where": "length(@.tags) >= 2"]).transform(products, context: context)
        #expect(names(kept) == ["b", "d"])
    }

    @Test func whereSeesTheWholeListAsRoot() async throws {
        let kept = try await filter(["where": "@.price > $[0].price"]).transform(products, context: context)
        #expect(names(kept) == ["b", "c", "d"])
    }

    // MARK: - if

    @Test func ifDropsNilFalseAndEmptyStringResults() async throws {
        let items: WidgetValue = [
            ["name": "a", "flag": true],
            ["name": "b", "flag": false],
            ["name": "c"],
            ["name": "d", "flag": ""],
            ["name": "e", "flag": 0],
            ["name": "f", "flag": "no"],
            ["name": "g", "flag": nil],
            ["name": "h", "flag": []],
        ]
        let kept = try await filter(["if": "{{ flag }}"]).transform(items, context: context)
        // Liquid truthiness: 0, "no" and [] are true.
        #expect(names(kept) == ["a", "e", "f", "h"])
    }

    @Test func ifRendersTemplatesWithFiltersAndTheContext() async throws {
        let kept = try await filter(["if": "{{ image | default: '' }}"]).transform(products, context: context)
        #expect(names(kept) == ["a", "b"])
        let withParams = try await filter(["if": "{{ params.minimum }}{{ name | remove: 'a' }}"]).transform(products, context: context)
        #expect(names(withParams) == ["a", "b", "c", "d", "e"])
        let mixed = try await filter(["if": "{{ name | remove: 'a' | remove: 'b' }}"]).transform(products, context: context)
        #expect(names(mixed) == ["c", "d", "e"])
    }

    @Test func aFailingIfTemplateNamesTheItem() async throws {
        let items: WidgetValue = [["n": 1, "d": 1], ["n": 2, "d": 0]]
        let error = await #expect(throws: StageError.self) {
            _ = try await filter(["if": "{{ n | divided_by: d }}"]).transform(items, context: context)
        }
        #expect(error?.message == #"the "if" template failed on item 1: divided_by: cannot divide by zero at column 8"#)
    }

    // MARK: - Errors

    @Test func aValueThatIsNotAListIsAnError() async throws {
        let error = await #expect(throws: StageError.self) {
            _ = try await filter(["where": "@.price > 10"]).transform(["price": 20], context: context)
        }
        #expect(error?.message == "filter needs a list, but the value is object; select a list first")
    }

    @Test func bothOrNeitherOptionIsAnError() throws {
        let expected = "a filter needs exactly one of \"where\" (a JSONPath filter such as \"@.price > 10\") or \"if\" (a template)"
        let both = try #require(optionsError(["where": "@.a", "if": "{{ a }}"]))
        #expect(both.description == "$: \(expected)")
        let neither = try #require(optionsError([:]))
        #expect(neither.description == "$: \(expected)")
    }

    @Test func anInvalidWhereExpressionIsAnOptionsErrorAtTheOption() throws {
        let error = try #require(optionsError(["where": "@.price >"]))
        #expect(error.path.description == "$.where")
        #expect(error.expressionColumn != nil)
    }
}
