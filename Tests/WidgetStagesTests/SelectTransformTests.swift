import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages

struct SelectTransformTests {
    let context = StageContext(
        widgetID: "test",
        now: Date(timeIntervalSince1970: 1_795_340_203),
        timeZone: TimeZone(identifier: "America/New_York")!
    )

    let document: WidgetValue = [
        "data": [
            "items": [
                ["id": 1, "price": 12.50, "offer": ["price": 9.99]],
                ["id": 2, "price": 8],
            ],
            "title": "Shop",
        ]
    ]

    private func select(_ options: WidgetValue) throws -> SelectTransform {
        let stage = try StageRegistry.builtIn.makeStage(.transformer, typeName: "select", options: options, decoder: OptionsDecoder())
        return try #require(stage as? SelectTransform)
    }

    private func optionsError(_ options: WidgetValue) -> OptionsError? {
        do {
            _ = try StageRegistry.builtIn.makeStage(.transformer, typeName: "select", options: options, decoder: OptionsDecoder())
            return nil
        } catch {
            return error
        }
    }

    @Test func aSingularPathGivesItsOneValue() async throws {
        let result = try await select(["path": "$.data.items"]).transform(document, context: context)
        #expect(result == document["data"]?["items"])
        let title = try await select(["path": "$.data.title"]).transform(document, context: context)
        #expect(title == "Shop")
        let first = try await select(["path": "$.data.items[0].id"]).transform(document, context: context)
        #expect(first == 1)
    }

    @Test func aSingularPathThatMatchesNothingGivesNull() async throws {
        let result = try await select(["path": "$.data.missing"]).transform(document, context: context)
        #expect(result == .null)
        let outOfRange = try await select(["path": "$.data.items[7]"]).transform(document, context: context)
        #expect(outOfRange == .null)
    }

    @Test func aWildcardGivesTheListOfMatches() async throws {
        let ids = try await select(["path": "$.data.items[*].id"]).transform(document, context: context)
        #expect(ids == [1, 2])
        let one = try await select(["path": "$.data.items[?@.id == 2].price"]).transform(document, context: context)
        #expect(one == [8])
        let none = try await select(["path": "$.data.items[?@.id == 3]"]).transform(document, context: context)
        #expect(none == [])
    }

    @Test func oneOverridesTheShapeOfThePath() async throws {
        let first = try await select(["path": "$.data.items[*].id", "one": true]).transform(document, context: context)
        #expect(first == 1)
        let nothing = try await select(["path": "$.data.items[?@.id > 5]", "one": true]).transform(document, context: context)
        #expect(nothing == .null)
        let wrapped = try await select(["path": "$.data.title", "one": false]).transform(document, context: context)
        #expect(wrapped == ["Shop"])
        let empty = try await select(["path": "$.data.missing", "one": false]).transform(document, context: context)
        #expect(empty == [])
    }

    @Test func descendantSegmentFindsEveryDepthInDocumentOrder() async throws {
        let prices = try await select(["path": "$..price"]).transform(document, context: context)
        let texts = prices.array?.compactMap { $0.number?.text }
        #expect(texts == ["12.5", "9.99", "8"])
    }

    @Test func aMissingOrInvalidPathIsAnOptionsError() throws {
        let missing = try #require(optionsError([:]))
        #expect(missing.description == "$: missing required key 'path'")
        let invalid = try #require(optionsError(["path": "$.items["]))
        #expect(invalid.description == "$.path: expected a selector (a quoted name, '*', an index, a slice or a '?' filter) at column 9")
        #expect(invalid.expressionColumn == 9)
        let unknown = try #require(optionsError(["path": "$.a", "onne": true]))
        #expect(unknown.description == "$.onne: unknown key 'onne'; did you mean 'one'?")
    }
}
