import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages

struct LimitTransformTests {
    let context = StageContext(
        widgetID: "test",
        now: Date(timeIntervalSince1970: 1_795_340_203),
        timeZone: TimeZone(identifier: "America/New_York")!
    )

    let items: WidgetValue = ["a", "b", "c", "d", "e"]

    private func limit(_ options: WidgetValue) throws -> LimitTransform {
        let stage = try StageRegistry.builtIn.makeStage(.transformer, typeName: "limit", options: options, decoder: OptionsDecoder())
        return try #require(stage as? LimitTransform)
    }

    private func optionsError(_ options: WidgetValue) -> OptionsError? {
        do {
            _ = try StageRegistry.builtIn.makeStage(.transformer, typeName: "limit", options: options, decoder: OptionsDecoder())
            return nil
        } catch {
            return error
        }
    }

    @Test func keepsTheFirstCountItems() async throws {
        #expect(try await limit(["count": 2]).transform(items, context: context) == ["a", "b"])
        #expect(try await limit(["count": 0]).transform(items, context: context) == [])
    }

    @Test func skipsOffsetItemsFirst() async throws {
        #expect(try await limit(["count": 2, "offset": 1]).transform(items, context: context) == ["b", "c"])
        #expect(try await limit(["count": 3, "offset": 0]).transform(items, context: context) == ["a", "b", "c"])
    }

    @Test func goingBeyondTheEndKeepsWhatThereIs() async throws {
        #expect(try await limit(["count": 10]).transform(items, context: context) == items)
        #expect(try await limit(["count": 3, "offset": 4]).transform(items, context: context) == ["e"])
        #expect(try await limit(["count": 3, "offset": 5]).transform(items, context: context) == [])
        #expect(try await limit(["count": 3, "offset": 50]).transform(items, context: context) == [])
        #expect(try await limit(["count": 3]).transform([], context: context) == [])
    }

    @Test func negativeCountOrOffsetIsRejectedAtTheOption() throws {
        let count = try #require(optionsError(["count": -1]))
        #expect(count.description == #"$.count: "count" must be 0 or more, not -1"#)
        let offset = try #require(optionsError(["count": 1, "offset": -3]))
        #expect(offset.description == #"$.offset: "offset" must be 0 or more, not -3"#)
    }

    @Test func aMissingOrFractionalCountIsRejected() throws {
        let missing = try #require(optionsError(["offset": 1]))
        #expect(missing.description == "$: missing required key 'count'")
        let fraction = try #require(optionsError(["count": 1.5]))
        #expect(fraction.path.description == "$.count")
        let text = try #require(optionsError(["count": "4"]))
        #expect(text.description == "$.count: expected a whole number, found string")
    }

    @Test func aValueThatIsNotAListIsAnError() async throws {
        let error = await #expect(throws: StageError.self) {
            _ = try await limit(["count": 1]).transform(["a": 1], context: context)
        }
        #expect(error?.message == "limit needs a list, but the value is object; select a list first")
    }
}
