import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages

struct EachTimelineTests {
    let newYork = TimeZone(identifier: "America/New_York")!

    private func context(now text: String) throws -> StageContext {
        StageContext(widgetID: "test", now: try date(text), timeZone: newYork)
    }

    private func date(_ text: String) throws -> Date {
        try Date(text, strategy: .iso8601)
    }

    private func each(_ options: WidgetValue) throws -> EachTimeline {
        let stage = try StageRegistry.builtIn.makeStage(.timeline, typeName: "each", options: options, decoder: OptionsDecoder())
        return try #require(stage as? EachTimeline)
    }

    private func optionsError(_ options: WidgetValue) -> OptionsError? {
        do {
            _ = try StageRegistry.builtIn.makeStage(.timeline, typeName: "each", options: options, decoder: OptionsDecoder())
            return nil
        } catch {
            return error
        }
    }

    /// The entries' dates as UTC ISO 8601 text.
    private func dates(_ entries: [TimelineEntry]) -> [String] {
        entries.map { $0.date.formatted(.iso8601) }
    }

    // MARK: - at

    @Test func atDatesItemIAtTheIthTimeOfTheRefreshDay() throws {
        // 14:00 EDT: the 08:00 and 12:00 slots have begun and keep their past dates.
        let context = try context(now: "2026-06-15T18:00:00Z")
        let entries = try each(["at": ["08:00", "12:00", "16:00", "20:00"]]).entries(for: ["a", "b", "c", "d"], context: context)
        #expect(dates(entries) == ["2026-06-15T12:00:00Z", "2026-06-15T16:00:00Z", "2026-06-15T20:00:00Z", "2026-06-16T00:00:00Z"])
        #expect(entries.map(\.content) == ["a", "b", "c", "d"])
    }

    @Test func atUsesTheDayOfTheRefreshInTheWidgetsZone() throws {
        // 02:00 UTC on June 16 is still June 15 in New York.
        let context = try context(now: "2026-06-16T02:00:00Z")
        let entries = try each(["at": ["08:00", "20:00"]]).entries(for: ["a", "b"], context: context)
        #expect(dates(entries) == ["2026-06-15T12:00:00Z", "2026-06-16T00:00:00Z"])
    }

    @Test func moreItemsThanTimesRollToTheNextDays() throws {
        let context = try context(now: "2026-06-15T18:00:00Z")
        let entries = try each(["at": ["08:00", "20:00:30"]]).entries(for: ["a", "b", "c", "d", "e"], context: context)
        #expect(
            dates(entries) == [
                "2026-06-15T12:00:00Z", "2026-06-16T00:00:30Z",
                "2026-06-16T12:00:00Z", "2026-06-17T00:00:30Z",
                "2026-06-17T12:00:00Z",
            ])
    }

    @Test func aSlotInTheSpringForwardGapMovesToTheSameMinuteAnHourLater() throws {
        // 2026-03-08: 02:00 EST jumps to 03:00 EDT; 02:30 does not exist and becomes 03:30 EDT.
        let context = try context(now: "2026-03-08T16:00:00Z")
        let entries = try each(["at": ["00:00", "01:30", "02:30", "03:30", "12:00"]]).entries(
            for: ["a", "b", "c", "d", "e"], context: context)
        #expect(
            dates(entries) == [
                "2026-03-08T05:00:00Z", "2026-03-08T06:30:00Z", "2026-03-08T07:30:00Z", "2026-03-08T07:30:00Z",
                "2026-03-08T16:00:00Z",
            ])
    }

    @Test func aSlotRollingIntoTheSpringForwardDayAlsoMoves() throws {
        let context = try context(now: "2026-03-07T15:00:00Z")
        let entries = try each(["at": ["02:30"]]).entries(for: ["a", "b", "c"], context: context)
        #expect(dates(entries) == ["2026-03-07T07:30:00Z", "2026-03-08T07:30:00Z", "2026-03-09T06:30:00Z"])
    }

    @Test func aRepeatedSlotInTheFallBackHourTakesTheFirst() throws {
        // 2026-11-01: 02:00 EDT falls back to 01:00 EST; 01:30 happens twice, the first time in EDT.
        let context = try context(now: "2026-11-01T17:00:00Z")
        let entries = try each(["at": ["00:30", "01:30", "02:30", "12:00"]]).entries(for: ["a", "b", "c", "d"], context: context)
        #expect(dates(entries) == ["2026-11-01T04:30:00Z", "2026-11-01T05:30:00Z", "2026-11-01T07:30:00Z", "2026-11-01T17:00:00Z"])
    }

    @Test func aValueThatIsNotAListIsOneItem() throws {
        let context = try context(now: "2026-06-15T18:00:00Z")
        let entries = try each(["at": ["08:00", "20:00"]]).entries(for: ["title": "solo"], context: context)
        #expect(entries == [TimelineEntry(date: try date("2026-06-15T12:00:00Z"), content: ["title": "solo"])])
        #expect(try each(["at": ["08:00"]]).entries(for: [], context: context).isEmpty)
    }

    // MARK: - every

    @Test func everyDatesItemIAtNowPlusIIntervals() throws {
        let context = try context(now: "2026-06-15T18:00:00Z")
        let entries = try each(["every": "1h30m"]).entries(for: ["a", "b", "c"], context: context)
        #expect(dates(entries) == ["2026-06-15T18:00:00Z", "2026-06-15T19:30:00Z", "2026-06-15T21:00:00Z"])
        #expect(entries.map(\.content) == ["a", "b", "c"])
    }

    @Test func everyMustBeADurationAboveZero() throws {
        let zero = try #require(optionsError(["every": "0s"]))
        #expect(zero.path.description == "$.every")
        let words = try #require(optionsError(["every": "an hour"]))
        #expect(words.description == #"$.every: "an hour" is not a duration; write e.g. "15m", "24h" or "1h30m""#)
    }

    // MARK: - date

    @Test func dateReadsISOStringsAndUnixSecondsAndSortsByThem() throws {
        let context = try context(now: "2026-06-15T18:00:00Z")
        let items = try JSONReader.read(
            """
            [{"id": "a", "published": "2026-06-15T10:00:00+02:00"},
             {"id": "b", "published": 1781510400},
             {"id": "c", "published": "2026-06-15T03:30:00-04:00"},
             {"id": "d", "published": "2026-06-15T07:00:00.250Z"},
             {"id": "e", "published": 1781510400.5}]
            """)
        let entries = try each(["date": "$.published"]).entries(for: items, context: context)
        #expect(
            dates(entries) == [
                "2026-06-15T07:00:00Z", "2026-06-15T07:30:00Z", "2026-06-15T08:00:00Z", "2026-06-15T08:00:00Z",
                "2026-06-15T08:00:00Z",
            ])
        #expect(entries.map { $0.content["id"] } == ["d", "c", "a", "b", "e"])
        #expect(entries[0].date == (try date("2026-06-15T07:00:00Z")).addingTimeInterval(0.25))
        #expect(entries[4].date == (try date("2026-06-15T08:00:00Z")).addingTimeInterval(0.5))
    }

    @Test func datesWithoutAZoneAreReadInTheWidgetsZone() throws {
        let context = try context(now: "2026-06-15T18:00:00Z")
        // Weather APIs send local hours without seconds or offset; RFC 3339 allows a space for the T.
        let items = try JSONReader.read(
            """
            [{"id": "a", "d": "2026-06-15T10:00"}, {"id": "b", "d": "2026-06-15"}, {"id": "c", "d": "2026-06-15 09:30:00"},
             {"id": "d", "d": "2026-06-15T11:00:00.5"}, {"id": "e", "d": "2026-06-15T10:00Z"}, {"id": "f", "d": "2026-03-08T02:30:00"},
             {"id": "g", "d": "2026-06-15T10:00:00+02"}, {"id": "h", "d": "2026-06-15x"}, {"id": "i", "d": "2026-6-15"}]
            """)
        let entries = try each(["date": "$.d"]).entries(for: items, context: context)
        #expect(entries.map { $0.content["id"] } == ["f", "b", "g", "e", "c", "a", "d"])
        #expect(
            dates(entries) == [
                "2026-03-08T07:30:00Z", "2026-06-15T04:00:00Z", "2026-06-15T08:00:00Z", "2026-06-15T10:00:00Z",
                "2026-06-15T13:30:00Z", "2026-06-15T14:00:00Z", "2026-06-15T15:00:00Z",
            ])
        #expect(entries[6].date == (try date("2026-06-15T15:00:00Z")).addingTimeInterval(0.5))
    }

    @Test func itemsWithoutAReadableDateAreDropped() throws {
        let context = try context(now: "2026-06-15T18:00:00Z")
        let items = try JSONReader.read(
            """
            [{"id": "a", "published": "yesterday"}, {"id": "b"}, {"id": "c", "published": "2026-06-15T10:00:00Z"},
             {"id": "d", "published": true}, {"id": "e", "published": null}, "text", {"id": "f", "published": "2026-06-14T10:00:00Z"}]
            """)
        let entries = try each(["date": "$.published"]).entries(for: items, context: context)
        #expect(entries.map { $0.content["id"] } == ["f", "c"])
    }

    @Test func noReadableDateAtAllIsAnError() throws {
        let context = try context(now: "2026-06-15T18:00:00Z")
        let items: WidgetValue = [["published": "soon"], ["title": "x"]]
        let error = #expect(throws: StageError.self) {
            _ = try each(["date": "$.published"]).entries(for: items, context: context)
        }
        #expect(error?.message == "no item has a readable date at $.published; dates must be ISO 8601 strings or Unix times in seconds")
        #expect(try each(["date": "$.published"]).entries(for: [], context: context).isEmpty)
    }

    // MARK: - Options

    @Test func exactlyOneRuleIsRequired() throws {
        let expected =
            #"$: an "each" timeline needs exactly one of "at" (times of day), "every" (an interval) or "date" (a JSONPath into each item)"#
        #expect(optionsError([:])?.description == expected)
        #expect(optionsError(["at": ["08:00"], "every": "1h"])?.description == expected)
    }

    @Test func atNeedsValidTimesOfDay() throws {
        #expect(optionsError(["at": ["8am"]])?.description == #"$.at: "8am" in "at" is not a time of day; write e.g. "08:00""#)
        #expect(optionsError(["at": ["24:00"]])?.description == #"$.at: "24:00" in "at" is not a time of day; write e.g. "08:00""#)
        #expect(optionsError(["at": []])?.description == #"$.at: "at" needs at least one time of day, e.g. ["08:00"]"#)
    }

    @Test func relevanceUrlAndLimitBelongToThePipelineNotTheStage() throws {
        // The definition reader takes these keys off the timeline before the stage sees its options.
        #expect(DefinitionReader.timelineCommonKeys == ["relevance", "url", "limit"])
        for key in DefinitionReader.timelineCommonKeys {
            var options: WidgetObject = ["at": ["08:00"]]
            options[key] = "x"
            let error = try #require(optionsError(.object(options)))
            #expect(error.path.description == "$.\(key)")
            #expect(error.message.hasPrefix("unknown key '\(key)'"))
        }
        let context = try context(now: "2026-06-15T18:00:00Z")
        let entries = try each(["every": "1h"]).entries(for: ["a"], context: context)
        #expect(entries.allSatisfy { $0.relevance == nil && $0.url == nil })
    }
}
