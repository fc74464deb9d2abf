import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages

struct SingleTimelineTests {
    let context = StageContext(
        widgetID: "test",
        now: Date(timeIntervalSince1970: 1_795_340_203),
        timeZone: TimeZone(identifier: "America/New_York")!
    )

    private func single(_ options: WidgetValue = [:]) throws -> SingleTimeline {
        let stage = try StageRegistry.builtIn.makeStage(.timeline, typeName: "single", options: options, decoder: OptionsDecoder())
        return try #require(stage as? SingleTimeline)
    }

    @Test func oneEntryDatedNowShowsTheWholeValue() throws {
        let value: WidgetValue = [["title": "a"], ["title": "b"]]
        let entries = try single().entries(for: value, context: context)
        #expect(entries == [TimelineEntry(date: Date(timeIntervalSince1970: 1_795_340_203), content: value)])
    }

    @Test func everyKindOfValueGivesOneEntry() throws {
        for value: WidgetValue in [nil, "text", 12, [], [:]] {
            let entries = try single().entries(for: value, context: context)
            #expect(entries.count == 1)
            #expect(entries.first?.content == value)
            #expect(entries.first?.relevance == nil)
            #expect(entries.first?.url == nil)
        }
    }

    @Test func singleTakesNoOptions() throws {
        do {
            _ = try single(["at": ["08:00"]])
            Issue.record("an option was accepted")
        } catch let error as OptionsError {
            #expect(error.description == "$.at: unknown key 'at'; this object takes no keys")
        }
    }
}
