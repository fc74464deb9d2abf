import Testing
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTesting

struct BuiltInStagesTests {
    @Test
    func everyBuiltInStagePassesTheConformanceChecks() {
        let problems: [String: [String]] = [
            "http": StageConformance.check(HTTPFetcher.self, options: ["url": "https://example.com/feed.json"]),
            "file": StageConformance.check(FileFetcher.self, options: ["path": "data/items.json"]),
            "json": StageConformance.check(JSONParser.self),
            "text": StageConformance.check(TextParser.self, options: ["lines": true]),
            "select": StageConformance.check(SelectTransform.self, options: ["path": "$.items[*]"]),
            "filter": StageConformance.check(FilterTransform.self, options: ["where": "@.price > 10"]),
            "choose": StageConformance.check(
                ChooseTransform.self, options: ["cases": [["where": "@.price > 10", "fields": ["dear": true]]]]),
            "sort": StageConformance.check(SortTransform.self, options: ["by": "$.price"]),
            "limit": StageConformance.check(LimitTransform.self, options: ["count": 4]),
            "map": StageConformance.check(MapTransform.self, options: ["fields": ["title": "{{ title }}"]]),
            "single": StageConformance.check(SingleTimeline.self),
            "each": StageConformance.check(EachTimeline.self, options: ["at": ["08:00"]]),
            "feed": StageConformance.check(FeedParser.self),
            "xml": StageConformance.check(XMLValueParser.self, options: ["forceList": ["item"]]),
            "firestore": StageConformance.check(FirestoreParser.self),
            "assets": StageConformance.check(AssetsTransform.self, options: ["path": "$.items[*].image"]),
            "command": StageConformance.check(CommandTransform.self, options: ["run": ["cat"]]),
            "compute": StageConformance.check(ComputeTransform.self, options: ["as": "items", "fields": ["n": "{{ items | size }}"]]),
            "fetch": StageConformance.check(FetchTransform.self, options: ["url": "https://example.com/item/{{ item }}.json"]),
        ]
        for (name, found) in problems.sorted(by: { $0.key < $1.key }) {
            #expect(found.isEmpty, "\(name): \(found)")
        }
    }

    /// What the conformance checks ask of options, through the registry as definitions are loaded.
    @Test func everyBuiltInStageBuildsAndRejectsAnUnknownOptionByName() throws {
        let examples: [(StageKind, String, WidgetValue)] = [
            (.fetcher, "http", ["url": "https://example.com/feed.json"]),
            (.fetcher, "file", ["path": "data/items.json"]),
            (.parser, "json", [:]),
            (.parser, "text", ["lines": true]),
            (.transformer, "select", ["path": "$.items[*]"]),
            (.transformer, "filter", ["where": "@.price > 10"]),
            (.transformer, "choose", ["cases": [["where": "@.price > 10", "fields": ["dear": true]]]]),
            (.transformer, "sort", ["by": "$.price"]),
            (.transformer, "limit", ["count": 4]),
            (.transformer, "map", ["fields": ["title": "{{ title }}"]]),
            (.timeline, "single", [:]),
            (.timeline, "each", ["at": ["08:00"]]),
            (.parser, "feed", [:]),
            (.parser, "xml", ["forceList": ["item"]]),
            (.parser, "firestore", [:]),
            (.transformer, "assets", ["path": "$.items[*].image"]),
            (.transformer, "command", ["run": ["cat"]]),
            (.transformer, "compute", ["fields": ["n": "{{ items | size }}"]]),
            (.transformer, "fetch", ["url": "https://example.com/item/{{ item }}.json", "parser": "json"]),
        ]
        for (kind, name, options) in examples {
            _ = try StageRegistry.builtIn.makeStage(kind, typeName: name, options: options, decoder: OptionsDecoder())
            var object = try #require(options.object)
            object["zzUnknownOption"] = true
            let error = #expect(throws: OptionsError.self, "\(name)") {
                _ = try StageRegistry.builtIn.makeStage(kind, typeName: name, options: .object(object), decoder: OptionsDecoder())
            }
            #expect(error?.path.description == "$.zzUnknownOption", "\(name)")
            #expect(error?.message.hasPrefix("unknown key 'zzUnknownOption'") == true, "\(name)")
            let entry = try #require(StageRegistry.builtIn.entry(kind, named: name))
            #expect(entry.summary.hasSuffix("."), "\(name)")
        }
        #expect(examples.count == StageKind.allCases.map { StageRegistry.builtIn.typeNames(of: $0).count }.reduce(0, +))
    }
}
