import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTesting

struct WidgetPipelineTests {
    private static let registry: StageRegistry = {
        var builder = StageRegistry.Builder.builtIn()
        builder.register(InMemoryFetcher.self)
        return try! builder.build()
    }()

    private static let now = Date(timeIntervalSince1970: 1_795_334_400)  // 2026-11-22T08:00:00Z

    private func pipeline(_ json: String, file: String = "widgets.d/news.json") throws -> WidgetPipeline {
        let reader = DefinitionReader(registry: Self.registry, defaultTimeZone: TimeZone(identifier: "UTC")!)
        let result = reader.read(Data(json.utf8), file: file)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        return try #require(result.widgets.first)
    }

    private func context(_ source: InMemorySource, id: String = "news") -> StageContext {
        var resources = StageResources()
        resources.insert(source)
        return StageContext(widgetID: id, now: Self.now, timeZone: TimeZone(identifier: "UTC")!, resources: resources)
    }

    private func run(_ pipeline: WidgetPipeline, _ source: InMemorySource) async throws(PipelineError) -> [TimelineEntry] {
        try await pipeline.run(context: context(source, id: pipeline.id))
    }

    // MARK: - Running

    @Test func inputsReachTheMapTemplatesAndLimitKeepsTheFirstItems() async throws {
        let widget = try pipeline(
            #"""
            {
              "inputs": { "config": { "type": "memory", "key": "config" } },
              "source": { "type": "memory", "key": "news" },
              "transforms": [
                { "type": "map", "fields": {
                    "title": "{{ title | upcase }}",
                    "site": "{{ inputs.config.site }}",
                    "score": "{{ votes | times: inputs.config.weight }}" } },
                { "type": "limit", "count": 2 }
              ]
            }
            """#)
        let source = InMemorySource()
        source.set("config", json: #"{"site": "Example", "weight": 0.5}"#)
        source.set("news", json: #"[{"title": "one", "votes": 3}, {"title": "two", "votes": 10}, {"title": "three", "votes": 1}]"#)
        let entries = try await run(widget, source)
        #expect(
            entries == [
                TimelineEntry(
                    date: Self.now,
                    content: [
                        ["title": "ONE", "site": "Example", "score": 1.5],
                        ["title": "TWO", "site": "Example", "score": 5.0],
                    ])
            ])
        #expect(source.fetchCount("config") == 1)
        #expect(source.fetchCount("news") == 1)
    }

    @Test func decimalArithmeticInMapStaysExact() async throws {
        let widget = try pipeline(
            #"""
            {
              "source": { "type": "memory", "key": "prices" },
              "transforms": [ { "type": "map", "fields": { "total": "{{ price | plus: fee }}" } } ]
            }
            """#)
        let source = InMemorySource()
        source.set("prices", json: #"{"price": 0.1, "fee": 0.2}"#)
        let entries = try await run(widget, source)
        #expect(entries.map(\.content) == [["total": .number(WidgetNumber("0.3")!)]])
    }

    @Test func paramsAndWidgetAreVisibleToTemplates() async throws {
        let widget = try pipeline(
            #"""
            {
              "id": "servers",
              "title": "Servers",
              "source": { "type": "memory", "key": "stats" },
              "transforms": [ { "type": "map", "fields": { "label": "{{ widget.title }} {{ params.name }}: {{ up }}" } } ],
              "instances": [ { "id": "home", "params": { "name": "Home" } } ]
            }
            """#)
        #expect(widget.id == "servers.home")
        let source = InMemorySource()
        source.set("stats", json: #"{"up": true}"#)
        var context = context(source, id: widget.id)
        context.widgetTitle = widget.definition.title
        let entries = try await widget.run(context: context)
        #expect(entries.map(\.content) == [["label": "Servers Home: true"]])
    }

    @Test func timelineRelevanceURLAndLimitApplyToEachEntry() async throws {
        let widget = try pipeline(
            #"""
            {
              "source": { "type": "memory", "key": "news" },
              "transforms": [ { "type": "limit", "count": 2, "offset": 1 } ],
              "timeline": {
                "type": "single",
                "relevance": "{{ item | size | divided_by: 4.0 }}",
                "url": "app://news/{{ item.first.slug }}",
                "limit": 1
              }
            }
            """#)
        let source = InMemorySource()
        source.set("news", json: #"[{"slug": "a"}, {"slug": "b"}, {"slug": "c"}]"#)
        let entries = try await run(widget, source)
        #expect(entries.count == 1)
        #expect(entries.first?.content == [["slug": "b"], ["slug": "c"]])
        #expect(entries.first?.relevance == WidgetNumber("0.5"))
        #expect(entries.first?.url == "app://news/b")
        #expect(entries.first?.date == Self.now)
    }

    @Test func emptyURLTemplateLeavesNoURL() async throws {
        let widget = try pipeline(
            #"""
            {
              "source": { "type": "memory", "key": "news" },
              "timeline": { "type": "single", "url": "{{ link | default: '' }}", "relevance": "{{ missing | default: nil }}" }
            }
            """#)
        let source = InMemorySource()
        source.set("news", json: #"{"title": "x"}"#)
        let entries = try await run(widget, source)
        #expect(entries.first?.url == nil)
        #expect(entries.first?.relevance == nil)
    }

    // MARK: - Errors name the stage

    @Test func sourceFailureNamesTheSource() async throws {
        let widget = try pipeline(#"{"source": {"type": "memory", "key": "news"}}"#)
        let source = InMemorySource()
        source.fail("news", message: "the server answered 503 Service Unavailable", retryAfter: 120)
        await #expect {
            _ = try await run(widget, source)
        } throws: { error in
            guard let error = error as? PipelineError else { return false }
            return error.description == "source: the server answered 503 Service Unavailable"
                && error.kind == .fetcher && error.retryAfter == 120 && !error.isCancellation
        }
    }

    @Test func inputFailureNamesTheInput() async throws {
        let widget = try pipeline(
            #"""
            {
              "inputs": { "daily": { "type": "memory", "key": "daily" } },
              "source": { "type": "memory", "key": "news" }
            }
            """#)
        let source = InMemorySource()
        source.set("news", json: "[]")
        await #expect {
            _ = try await run(widget, source)
        } throws: { error in
            (error as? PipelineError)?.description == "inputs.daily: the in-memory source has no payload for 'daily'"
        }
        #expect(source.fetchCount("news") == 0, "the source must not be fetched when an input fails")
    }

    @Test func parserFailureNamesTheParser() async throws {
        let widget = try pipeline(#"{"source": {"type": "memory", "key": "news"}}"#)
        let source = InMemorySource()
        source.set("news", json: #"{"title": "#)
        await #expect {
            _ = try await run(widget, source)
        } throws: { error in
            guard let error = error as? PipelineError else { return false }
            return error.stage == .parser && error.stage.description == "parser" && error.kind == .parser
                && error.description.hasPrefix("parser: the payload from memory:news is not valid JSON: line 1, column 11: ")
        }
    }

    @Test func transformFailureNamesTheTransformAndItsIndex() async throws {
        let widget = try pipeline(
            #"""
            {
              "source": { "type": "memory", "key": "news" },
              "transforms": [
                { "type": "map", "fields": { "n": "{{ count }}" } },
                { "type": "limit", "count": 1 }
              ]
            }
            """#)
        let source = InMemorySource()
        source.set("news", json: #"{"count": 3}"#)
        await #expect {
            _ = try await run(widget, source)
        } throws: { error in
            (error as? PipelineError)?.description
                == "transforms[1] (limit): limit needs a list, but the value is object; select a list first"
        }
    }

    @Test func mapFailureNamesTheItem() async throws {
        let widget = try pipeline(
            #"""
            {
              "source": { "type": "memory", "key": "news" },
              "transforms": [ { "type": "map", "fields": { "ratio": "{{ a | divided_by: b }}" } } ]
            }
            """#)
        let source = InMemorySource()
        source.set("news", json: #"[{"a": 1, "b": 1}, {"a": 1, "b": 0}]"#)
        await #expect {
            _ = try await run(widget, source)
        } throws: { error in
            guard let error = error as? PipelineError else { return false }
            return error.stage == .transform(index: 0, type: "map") && error.stage.description == "transforms[0] (map)"
                && error.kind == .transformer
                && error.description.hasPrefix("transforms[0] (map): the \"ratio\" field failed on item 1: ")
        }
    }

    @Test func timelineTemplateFailureNamesTheTimeline() async throws {
        let widget = try pipeline(
            #"""
            {
              "source": { "type": "memory", "key": "news" },
              "timeline": { "type": "single", "relevance": "{{ a | divided_by: 0 }}" }
            }
            """#)
        let source = InMemorySource()
        source.set("news", json: #"{"a": 1}"#)
        await #expect {
            _ = try await run(widget, source)
        } throws: { error in
            guard let error = error as? PipelineError else { return false }
            return error.stage == .timeline && error.kind == .timeline
                && error.description.hasPrefix("timeline: \"relevance\" failed on entry 0: ")
                && error.template?.path == ValuePath.root.appending("timeline").appending("relevance")
        }
    }

    // MARK: - Building

    // MARK: - when

    /// The airport picked in an app decides whether there is weather to fetch (seed 002).
    static let airportWidget = #"""
        {
          "inputs": {
            "airport": { "type": "memory", "key": "airport" },
            "metar": { "type": "memory", "key": "metar", "when": "{{ inputs.airport.id }}" }
          },
          "source": { "type": "memory", "key": "notes" },
          "transforms": [ { "type": "map", "fields": { "metar": "{{ inputs.metar }}", "notes": "{{ item }}" } } ]
        }
        """#

    @Test func anInputWhoseWhenPassesIsFetched() async throws {
        let widget = try pipeline(Self.airportWidget)
        let source = InMemorySource()
        source.set("notes", json: #"{"runways": 6}"#)
        for airport in [#"{"id": "KAPA"}"#, #"{"id": 0}"#, #"{"id": []}"#, #"{"id": " "}"#] {
            source.set("airport", json: airport)
            source.set("metar", json: #"[{"wspd": 15}]"#)
            let entries = try await run(widget, source)
            #expect(entries.map(\.content) == [["metar": [["wspd": 15]], "notes": ["runways": 6]]], "\(airport)")
        }
        #expect(source.fetchCount("metar") == 4)
    }

    @Test func anInputWhoseWhenGivesNilFalseOrAnEmptyStringIsNotFetchedAndIsNull() async throws {
        let widget = try pipeline(Self.airportWidget)
        let source = InMemorySource()
        source.set("notes", json: #"{"runways": 6}"#)
        for airport in ["null", "{}", #"{"id": null}"#, #"{"id": false}"#, #"{"id": ""}"#] {
            source.set("airport", json: airport)
            let entries = try await run(widget, source)
            #expect(entries.map(\.content) == [["metar": nil, "notes": ["runways": 6]]], "\(airport)")
        }
        #expect(source.fetchCount("metar") == 0)
        #expect(source.fetchCount("notes") == 5)
    }

    @Test func aMainSourceWhoseWhenFailsItsTestIsNotFetchedAndTheTransformsSeeNull() async throws {
        let widget = try pipeline(
            #"""
            {
              "inputs": { "holdings": { "type": "memory", "key": "holdings" } },
              "source": { "type": "memory", "key": "prices", "when": "{{ inputs.holdings | map: 'id' | join: ',' }}" },
              "transforms": [ { "type": "map", "fields": { "prices": "{{ item }}", "count": "{{ inputs.holdings | size }}" } } ]
            }
            """#)
        let source = InMemorySource()
        source.set("holdings", json: "[]")
        #expect(try await run(widget, source).map(\.content) == [["prices": nil, "count": 0]])
        #expect(source.fetchCount("prices") == 0)
        source.set("holdings", json: #"[{"id": "bitcoin"}]"#)
        source.set("prices", json: #"{"bitcoin": {"usd": 97250.5}}"#)
        #expect(try await run(widget, source).map(\.content) == [["prices": ["bitcoin": ["usd": 97250.5]], "count": 1]])
        #expect(source.fetchCount("prices") == 1)
    }

    @Test func aWhenTemplateThatFailsNamesItsSource() async throws {
        let widget = try pipeline(
            #"""
            {
              "inputs": { "daily": { "type": "memory", "key": "daily", "when": "{{ 1 | divided_by: inputs.zero }}" } },
              "source": { "type": "memory", "key": "news" }
            }
            """#)
        let source = InMemorySource()
        await #expect {
            _ = try await run(widget, source)
        } throws: { error in
            (error as? PipelineError)?.description == "inputs.daily.when: divided_by: cannot divide by zero at column 8"
        }
        #expect(source.fetchCount("daily") == 0)
    }

    @Test func buildErrorListsEveryBadStage() throws {
        var definition = WidgetDefinition(
            id: "news",
            source: StageSpec(typeName: "memory", options: ["kee": "news"], path: ValuePath.root.appending("source"))
        )
        definition.transforms = [
            StageSpec(typeName: "limit", options: ["count": 2.5], path: ValuePath.root.appending("transforms").appending(index: 0))
        ]
        do {
            _ = try WidgetPipeline(definition, registry: Self.registry)
            Issue.record("a bad definition was built")
        } catch {
            #expect(
                error.description == "The widget news cannot be built: $.source.kee: unknown key 'kee'; did you mean 'key'?; "
                    + "$.transforms[0].count: 2.5 is not a whole number in range")
        }
    }
}
