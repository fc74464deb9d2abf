import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTesting

/// The warnings a refresh gives when a stage empties the value, and the trace of every stage.
struct PipelineTraceTests {
    private static let registry: StageRegistry = {
        var builder = StageRegistry.Builder.builtIn()
        builder.register(InMemoryFetcher.self)
        return try! builder.build()
    }()

    private static let now = Date(timeIntervalSince1970: 1_795_334_400)  // 2026-11-22T08:00:00Z

    private func pipeline(_ json: String) throws -> WidgetPipeline {
        let reader = DefinitionReader(registry: Self.registry, defaultTimeZone: TimeZone(identifier: "UTC")!)
        let result = reader.read(Data(json.utf8), file: "widgets.d/news.json")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        return try #require(result.widgets.first)
    }

    private func context(_ source: InMemorySource) -> StageContext {
        var resources = StageResources()
        resources.insert(source)
        return StageContext(widgetID: "news", now: Self.now, timeZone: TimeZone(identifier: "UTC")!, resources: resources)
    }

    private func source(_ json: String) -> InMemorySource {
        let source = InMemorySource()
        source.set("news", json: json)
        return source
    }

    // MARK: - Warnings

    @Test func aFilterThatKeepsNothingIsWarnedAboutByItsStage() async throws {
        let widget = try pipeline(
            #"""
            {"source": {"type": "memory", "key": "news"},
             "transforms": [{"type": "select", "path": "$.items[*]"}, {"type": "filter", "where": "@.score > 100"}],
             "timeline": {"type": "each", "every": "1h"}}
            """#)
        let result = try await widget.run(context: context(source(#"{"items": [{"score": 1}, {"score": 2}, {"score": 3}]}"#)), cache: [:])
        #expect(result.entries.isEmpty)
        #expect(
            result.warnings.map(\.description) == [
                "transforms[1] (filter): gave an empty list from a list of 3 items; see each stage's value with 'widgetd preview news --trace'"
            ])
    }

    @Test func aPathThatMatchesNothingIsWarnedAboutWhetherItGivesNullOrAnEmptyList() async throws {
        let one = try pipeline(
            #"{"source": {"type": "memory", "key": "news"}, "transforms": [{"type": "select", "path": "$.data.itmes"}]}"#)
        let oneResult = try await one.run(context: context(source(#"{"data": {"items": [1, 2]}}"#)), cache: [:])
        #expect(oneResult.warnings.map(\.message) == ["gave null from an object of 1 member"])
        #expect(oneResult.entries.map(\.content) == [.null])

        let many = try pipeline(#"{"source": {"type": "memory", "key": "news"}, "transforms": [{"type": "select", "path": "$.itmes[*]"}]}"#)
        let manyResult = try await many.run(context: context(source(#"{"items": [1, 2], "count": 2}"#)), cache: [:])
        #expect(manyResult.warnings.map(\.message) == ["gave an empty list from an object of 2 members"])
        #expect(manyResult.warnings.map(\.stage) == [.transform(index: 0, type: "select")])
    }

    @Test func onlyTheStageThatEmptiedTheValueIsWarnedAbout() async throws {
        let widget = try pipeline(
            #"""
            {"source": {"type": "memory", "key": "news"},
             "transforms": [{"type": "filter", "if": "{{ wanted }}"}, {"type": "limit", "count": 2}, {"type": "map", "fields": {"t": "{{ title }}"}}],
             "timeline": {"type": "each", "every": "1h"}}
            """#)
        let result = try await widget.run(context: context(source(#"[{"title": "a"}, {"title": "b"}]"#)), cache: [:])
        #expect(result.warnings.map(\.stage) == [.transform(index: 0, type: "filter")])
    }

    @Test func aSourceThatGivesAnEmptyListIsWarnedAboutAtTheTimeline() async throws {
        let widget = try pipeline(#"{"source": {"type": "memory", "key": "news"}, "timeline": {"type": "each", "every": "1h"}}"#)
        let result = try await widget.run(context: context(source("[]")), cache: [:])
        #expect(
            result.warnings.map(\.description) == [
                "timeline: gave no entries: parser gave an empty list; see each stage's value with 'widgetd preview news --trace'"
            ])
    }

    @Test func aRefreshWithEntriesAndNoEmptiedStageHasNoWarning() async throws {
        let widget = try pipeline(
            #"{"source": {"type": "memory", "key": "news"}, "transforms": [{"type": "filter", "where": "@ > 1"}], "timeline": {"type": "each", "every": "1h"}}"#
        )
        let result = try await widget.run(context: context(source("[1, 2, 3]")), cache: [:])
        #expect(result.warnings.isEmpty)
        #expect(result.entries.count == 2)
    }

    // MARK: - Trace

    @Test func theTraceHasEveryStageInOrderWithWhatEachGave() async throws {
        let widget = try pipeline(
            #"""
            {"inputs": {"config": {"type": "memory", "key": "config"}},
             "source": {"type": "memory", "key": "news"},
             "transforms": [{"type": "select", "path": "$.items[*]"}, {"type": "filter", "where": "@.score > 100"}],
             "timeline": {"type": "each", "every": "1h"}}
            """#)
        let source = source(#"{"items": [{"score": 1}, {"score": 2}]}"#)
        source.set("config", json: #"{"site": "Example"}"#)
        let clock = ManualClock(now: Self.now)
        let trace = PipelineTrace(clock: clock)
        _ = try await widget.run(context: context(source), cache: [:], trace: trace)
        let steps = trace.steps
        #expect(
            steps.map(\.stage.description) == [
                "inputs.config", "inputs.config.parser", "source", "parser", "transforms[0] (select)", "transforms[1] (filter)", "timeline",
            ])
        #expect(steps.map(\.type) == ["memory", "json", "memory", "json", "select", "filter", "each"])
        #expect(steps.allSatisfy { $0.outcome == .done && $0.seconds == 0 })
        #expect(steps[2].fetch?.origin == "memory:news")
        #expect(steps[2].fetch?.bytes == 39)
        #expect(steps[2].fetch?.contentType == "application/json")
        #expect(steps[4].value == [["score": 1], ["score": 2]])
        #expect(steps[5].value == [])
        #expect(steps[5].warning?.message == "gave an empty list from a list of 2 items")
        #expect(steps[6].entries == [])
        #expect(steps[6].warning == nil)
        #expect(trace.warnings.map(\.stage) == [.transform(index: 1, type: "filter")])
    }

    @Test func aFailedStageEndsTheTraceMarkedFailed() async throws {
        let widget = try pipeline(
            #"{"source": {"type": "memory", "key": "news"}, "transforms": [{"type": "limit", "count": 1}, {"type": "filter", "where": "@ > 1"}]}"#
        )
        let trace = PipelineTrace(clock: ManualClock(now: Self.now))
        await #expect(throws: PipelineError.self) {
            _ = try await widget.run(context: context(source(#"{"not": "a list"}"#)), cache: [:], trace: trace)
        }
        #expect(trace.steps.map(\.stage.description) == ["source", "parser", "transforms[0] (limit)"])
        #expect(trace.steps.map(\.outcome) == [.done, .done, .failed])
    }

    @Test func aSourceSkippedByItsTestIsTracedAsSkipped() async throws {
        let widget = try pipeline(
            #"{"source": {"type": "memory", "key": "news", "when": "{{ false }}"}, "timeline": "single"}"#)
        let trace = PipelineTrace(clock: ManualClock(now: Self.now))
        _ = try await widget.run(context: context(source("[1]")), cache: [:], trace: trace)
        #expect(trace.steps.map(\.outcome) == [.skipped, .done])
        #expect(trace.steps.first?.value == .null)
    }

    @Test func aNotModifiedAnswerIsTracedWithTheReusedValue() async throws {
        let server = try TestHTTPServer()
        let widget = try pipeline(#"{"source": {"url": "\#(server.url("/etag").absoluteString)"}, "timeline": "single"}"#)
        let context = StageContext(widgetID: "news", now: Self.now, timeZone: TimeZone(identifier: "UTC")!)
        let first = try await widget.run(context: context, cache: [:])
        let trace = PipelineTrace(clock: ManualClock(now: Self.now))
        _ = try await widget.run(context: context, cache: first.cache, trace: trace)
        let steps = trace.steps
        #expect(steps.map(\.stage.description) == ["source", "parser", "timeline"])
        #expect(steps[0].fetch?.status == 304)
        #expect(steps[0].fetch?.notModified == true)
        #expect(steps[0].fetch?.request == "GET \(server.url("/etag").absoluteString)")
        #expect(steps[1].outcome == .reused)
        #expect(steps[1].value == first.entries.first?.content)
    }
}
