import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTesting

struct StageRegistryTests {
    // MARK: - Stages for these tests

    /// A parser that clashes with the built-in `json`.
    private struct OtherJSONParser: Parser {
        struct Options: Decodable, Sendable {}
        static let typeName = "json"
        static let summary = "Another JSON parser."
        init(options: Options) {}
        func parse(_ payload: Payload, context: StageContext) throws -> WidgetValue { .null }
    }

    /// A stage that breaks the naming and summary rules.
    private struct BadlyNamedTransform: Transformer {
        struct Options: Decodable, Sendable {}
        static let typeName = "Bad Name"
        init(options: Options) {}
        func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue { value }
    }

    /// A stage whose options read every key they are given, so unknown keys slip through.
    private struct LenientTransform: Transformer {
        struct Options: Decodable, Sendable {
            var values: [String: WidgetValue] = [:]

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: AnyKey.self)
                for key in container.allKeys { values[key.stringValue] = try container.decode(WidgetValue.self, forKey: key) }
            }
        }

        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        static let typeName = "lenient"
        static let summary = "Accepts anything."
        init(options: Options) {}
        func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue { value }
    }

    /// A stage whose description of its options does not match what they decode.
    private struct MisdescribedTransform: Transformer {
        struct Options: Decodable, Sendable, DescribedOptions {
            var count: Int
            var label: String?

            enum CodingKeys: String, DescribedKey {
                case count, label

                var keyDescription: KeyDescription {
                    switch self {
                    // Wrong: `count` is required, and `label` is a string.
                    case .count: KeyDescription("How many.", .integer(minimum: 0))
                    case .label: KeyDescription("A label.", .integer())
                    }
                }
            }
        }

        static let typeName = "misdescribed"
        static let summary = "Describes its options wrongly."
        init(options: Options) {}
        func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue { value }
    }

    // MARK: - Building

    @Test func duplicateTypeNamesAreRejectedWhenBuilt() {
        var builder = StageRegistry.Builder.builtIn()
        builder.register(OtherJSONParser.self)
        #expect(throws: RegistryError.self) { try builder.build() }
        do {
            _ = try builder.build()
        } catch {
            #expect(
                error.description
                    == "The stage registry is invalid: two parser stages are named 'json'; give each stage a unique type name.")
        }
    }

    @Test func sameNameInDifferentKindsIsAllowed() throws {
        var builder = StageRegistry.Builder()
        builder.register(JSONParser.self)
        builder.register(InMemoryFetcher.self)
        let registry = try builder.build()
        #expect(registry.typeNames(of: .parser) == ["json"])
        #expect(registry.typeNames(of: .fetcher) == ["memory"])
    }

    @Test func builtInRegistryListsEveryBuiltInStage() {
        let registry = StageRegistry.builtIn
        #expect(registry.typeNames(of: .fetcher) == ["file", "http"])
        #expect(registry.typeNames(of: .parser) == ["feed", "firestore", "json", "text", "xml"])
        #expect(
            registry.typeNames(of: .transformer) == [
                "assets", "choose", "command", "compute", "fetch", "filter", "limit", "map", "select", "sort",
            ])
        #expect(registry.typeNames(of: .timeline) == ["each", "single"])
        #expect(
            registry.allEntries.map { "\($0.kind) \($0.typeName)" } == [
                "source file", "source http", "parser feed", "parser firestore", "parser json", "parser text", "parser xml",
                "transform assets", "transform choose", "transform command", "transform compute", "transform fetch", "transform filter",
                "transform limit", "transform map",
                "transform select",
                "transform sort", "timeline each", "timeline single",
            ])
    }

    // MARK: - Making stages

    @Test func unknownTypeNameListsTheKnownOnes() {
        do {
            _ = try StageRegistry.builtIn.makeStage(.parser, typeName: "yaml", options: [:])
            Issue.record("an unknown parser was made")
        } catch {
            #expect(error.description == "$.type: unknown parser type 'yaml'; known: 'feed', 'firestore', 'json', 'text', 'xml'")
        }
        do {
            _ = try StageRegistry.builtIn.makeStage(.transformer, typeName: "limt", options: [:])
            Issue.record("an unknown transform was made")
        } catch {
            #expect(
                error.description
                    == "$.type: unknown transform type 'limt'; did you mean 'limit'? known: 'assets', 'choose', 'command', 'compute', 'fetch', 'filter', 'limit', 'map', 'select', 'sort'"
            )
        }
        do {
            _ = try StageRegistry.empty.makeStage(.timeline, typeName: "single", options: [:])
            Issue.record("a stage was made from an empty registry")
        } catch {
            #expect(error.description == "$.type: unknown timeline type 'single'; no timeline types are registered")
        }
    }

    @Test func stageErrorsFromInitBecomeOptionsErrors() {
        do {
            _ = try StageRegistry.builtIn.makeStage(.transformer, typeName: "limit", options: ["count": -1])
            Issue.record("a negative count was accepted")
        } catch {
            #expect(error.description == "$.count: \"count\" must be 0 or more, not -1")
        }
    }

    @Test func stringAndObjectReferencesNameTheSameStage() throws {
        let reader = DefinitionReader(registry: .builtIn, defaultTimeZone: TimeZone(identifier: "UTC")!)
        let asString = reader.read(Data(#"{"source": {"path": "x.txt"}, "parser": "text"}"#.utf8), file: "a.json")
        let asObject = reader.read(
            Data(#"{"source": {"type": "file", "path": "x.txt"}, "parser": {"type": "text", "lines": true}}"#.utf8),
            file: "b.json"
        )
        #expect(asString.diagnostics.isEmpty && asObject.diagnostics.isEmpty, "\(asString.diagnostics) \(asObject.diagnostics)")
        let plain = try #require(asString.widgets.first)
        let lines = try #require(asObject.widgets.first)
        #expect(plain.definition.parser.typeName == "text")
        #expect(plain.definition.parser.options.isEmpty)
        #expect(lines.definition.parser.typeName == "text")
        #expect(lines.definition.parser.options == ["lines": true])
        #expect((plain.parser as? TextParser)?.lines == false)
        #expect((lines.parser as? TextParser)?.lines == true)
        #expect(plain.fetcher is FileFetcher && lines.fetcher is FileFetcher)
    }

    // MARK: - Conformance

    @Test func everyBuiltInStageConforms() {
        let checks: [(String, [String])] = [
            ("file", StageConformance.check(FileFetcher.self, options: ["path": "x.json"])),
            ("http", StageConformance.check(HTTPFetcher.self, options: ["url": "https://example.com"])),
            ("json", StageConformance.check(JSONParser.self)),
            ("text", StageConformance.check(TextParser.self)),
            ("single", StageConformance.check(SingleTimeline.self)),
            ("map", StageConformance.check(MapTransform.self, options: ["fields": ["a": "{{ b }}"]])),
            ("limit", StageConformance.check(LimitTransform.self, options: ["count": 1])),
            ("memory", StageConformance.check(InMemoryFetcher.self, options: ["key": "news"])),
        ]
        for (name, problems) in checks {
            #expect(problems.isEmpty, "\(name): \(problems)")
        }
    }

    @Test func badlyNamedStageFailsConformance() {
        #expect(
            StageConformance.check(BadlyNamedTransform.self) == [
                "typeName 'Bad Name' must start with a lowercase letter and use only letters, digits, '-', '.', '_'",
                "summary is empty; give one sentence for 'widgetd list' and the schema",
            ])
    }

    @Test func stageThatAcceptsUnknownOptionsFailsConformance() {
        #expect(
            StageConformance.check(LenientTransform.self) == [
                "an unknown option 'zzUnknownOption' was accepted; decode Options with the synthesized Decodable or read only known keys"
            ])
    }

    @Test func stageClashingWithABuiltInFailsConformance() {
        #expect(
            StageConformance.check(OtherJSONParser.self, alongside: .builtIn()) == [
                "registering it fails: The stage registry is invalid: two parser stages are named 'json'; give each stage a unique type name."
            ])
    }

    @Test func stageWhoseOptionsAreDescribedWronglyFailsConformance() {
        #expect(
            StageConformance.check(MisdescribedTransform.self, options: ["count": 1]) == [
                "an example of every described option does not decode ($.label: expected a string, found number); describe the keys and shapes Options reads",
                "'count' is described as optional, but Options need it: $: missing required key 'count'",
            ])
    }

    @Test func stageWhoseExampleOptionsDoNotBuildFailsConformance() {
        let problems = StageConformance.check(LimitTransform.self, options: ["count": "one"])
        #expect(problems.first == "the example options do not build the stage: $.count: expected a whole number, found string")
    }
}
