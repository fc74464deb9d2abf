import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetTestSupport
import WidgetTesting

/// The catalogue of invalid definitions (`Tests/Fixtures/invalid-definitions`, one mistake a file) and the
/// repository's valid definitions, each judged alike by `widgetd validate` and by Python's `jsonschema`
/// with the schema `widgetd schema` prints: an editor flags what `validate` flags.
struct DefinitionCatalogueTests {
    static let catalogue = "Tests/Fixtures/invalid-definitions"

    /// The catalogue's files, with the line `validate` prints for each (its `description`).
    static func cases() throws -> [(file: String, expected: String)] {
        let folder = Widgetd.packageRoot.appendingPathComponent(catalogue)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { name in
            let value = try JSONReader.read(try Data(contentsOf: folder.appendingPathComponent(name)))
            return ("\(catalogue)/\(name)", try #require(value["description"]?.string, "\(name) has no description"))
        }
    }

    /// The definitions that run with a plugin package's stages (the seeds with `widgetd-plugins`, the
    /// stage article's example with `widgetd-round`), and the stage each needs:
    /// widgetd alone rejects them, in `validate` and in the schema alike.
    static let pluginSeeds = [
        "Examples/seeds/001-bitdream/bitdream.json": "transmission",
        "Examples/seeds/002-sf50-runways/sf50-runways.json": "runwayPerformance",
        "Examples/WritingAStage/widgets.d/prices.json": "round",
    ]

    /// What the seeds' `env` templates read.
    static let credentials = [
        "BITDREAM_HOME_USER": "alice", "BITDREAM_HOME_PASSWORD": "pw1",
        "BITDREAM_SEEDBOX_USER": "bob", "BITDREAM_SEEDBOX_PASSWORD": "pw2",
    ]

    @Test func theCatalogueHasAtLeastThirtyCases() throws {
        #expect(try Self.cases().count >= 30)
    }

    @Test func validateRejectsEveryCatalogueCaseWithTheLineItDocuments() async throws {
        let cases = try Self.cases()
        let output = try await Widgetd.run(["validate", "--config", Self.catalogue])
        #expect(output.status == 1)
        #expect(output.stderrLines == ["\(cases.count) files checked, 0 widgets valid, \(cases.count) problems"])
        #expect(output.stdoutLines == cases.map { "\($0.file):\($0.expected)" })
    }

    @Test(.enabled(if: PythonJSONSchema.oracle.shouldRun, "needs python3 with the jsonschema module (pip install jsonschema)"))
    func theSchemaRejectsEveryCatalogueCase() async throws {
        let files = try Self.cases().map(\.file)
        let folder = try TemporaryFolder()
        let lines = try await PythonJSONSchema.validate(files, schema: try await Self.printedSchema(in: folder))
        let accepted = lines.filter { $0.hasSuffix(": ok") }
        #expect(accepted.isEmpty, "the schema accepts what validate rejects: \(accepted)")
        #expect(Set(lines.map { String($0.prefix { $0 != ":" }) }) == Set(files))
    }

    @Test func validateAcceptsEveryShippedDefinition() async throws {
        for file in DefinitionSchemaTests.shippedDefinitions() {
            let folder = (file as NSString).deletingLastPathComponent
            let output = try await Widgetd.run(["validate", "--config", folder], variables: Self.credentials)
            let problems = output.stdoutLines.filter { $0.hasPrefix(file + ":") }
            if let stage = Self.pluginSeeds[file] {
                #expect(problems.count == 1 && problems[0].contains("unknown") && problems[0].contains("type '\(stage)'"), "\(problems)")
            } else {
                #expect(problems.isEmpty, "\(problems)")
            }
        }
    }

    @Test(.enabled(if: PythonJSONSchema.oracle.shouldRun, "needs python3 with the jsonschema module (pip install jsonschema)"))
    func theSchemaAcceptsEveryShippedDefinition() async throws {
        let files = DefinitionSchemaTests.shippedDefinitions()
        #expect(files.count >= 8)
        let folder = try TemporaryFolder()
        let lines = try await PythonJSONSchema.validate(files, schema: try await Self.printedSchema(in: folder))
        for file in files {
            let mine = lines.filter { $0.hasPrefix(file + ":") }
            if let stage = Self.pluginSeeds[file] {
                #expect(mine.count == 1 && mine[0].contains("'\(stage)' is not one of"), "\(mine)")
            } else {
                #expect(mine == ["\(file): ok"])
            }
        }
    }

    /// Valid definitions that use every built-in stage and most of its options: neither validate nor the
    /// schema may reject them (a schema stricter than validate would flag good files).
    static let everyStage: [(String, String)] = [
        (
            "http",
            #"{"source": {"url": "https://example.com/a", "method": "post", "headers": {"Accept": "application/json"}, "body": {"q": "{{ params.q }}"}, "timeout": "20s", "connectTimeout": "5s", "maxBytes": 1000, "maxRedirects": 0, "handshake": {"status": 409, "header": "X-Session-Id"}, "when": "{{ params.q }}"}, "instances": [{"id": "a", "params": {"q": "x"}}]}"#
        ),
        ("file", #"{"source": {"type": "file", "path": "data/data.json", "maxBytes": 1000}, "parser": {"type": "json", "empty": "null"}}"#),
        ("text", #"{"source": {"path": "data/a.txt"}, "parser": {"type": "text", "lines": true, "trim": true, "skipEmpty": false}}"#),
        ("xml", #"{"source": {"path": "data/a.xml"}, "parser": {"type": "xml", "forceList": ["item"]}}"#),
        (
            "feed",
            #"{"source": {"path": "data/a.xml"}, "parser": "feed", "timeline": {"type": "each", "date": "$.published", "relevance": "{{ 1 }}", "url": "app://{{ id }}", "limit": 5}}"#
        ),
        (
            "firestore",
            #"{"inputs": {"day": {"url": "https://example.com/d", "parser": "firestore"}}, "source": {"path": "data/a.json"}, "parser": {"type": "firestore"}}"#
        ),
        (
            "transforms",
            #"{"source": {"path": "data/a.json"}, "transforms": [{"type": "select", "path": "$.items[*]", "one": false}, {"type": "filter", "if": "{{ title }}"}, {"type": "filter", "where": "@.price > 1"}, {"type": "sort", "by": "$.date", "order": "desc"}, {"type": "limit", "count": 3, "offset": 1}, {"type": "map", "fields": {"t": "{{ title }}", "n": 1}, "merge": true}, {"type": "choose", "each": "$[*]", "cases": [{"where": "@.a > 0", "fields": {"b": 1}}, {"fields": {"b": 0}}]}, {"type": "assets", "path": "$[*].image", "maxBytes": 100, "concurrency": 2}, {"type": "command", "run": ["cat"], "timeout": "5s", "maxBytes": 100, "passEnvironment": ["LANG"]}]}"#
        ),
        (
            "timelines",
            #"{"source": {"path": "data/a.json"}, "timeline": {"type": "each", "at": ["08:00", "20:30:15"]}, "schedule": {"cron": "@daily", "jitter": "5m", "maxPerDay": 10}}"#
        ),
        (
            "every",
            #"{"source": {"path": "data/a.json"}, "timeline": {"type": "each", "every": "1h"}, "schedule": {"every": "2m", "allowFrequent": true, "maxPerDay": 720}, "staleAfter": "1d2h", "deadline": "30s", "fallback": {"keep": 3, "pick": "random"}}"#
        ),
        (
            "words",
            #"{"$schema": "https://widgetd.dev/schema/definition.json", "id": "words", "title": "W", "description": "d", "timeZone": "Europe/Paris", "source": {"path": "data/a.json"}, "timeline": "single", "schedule": "atEnd", "placeholder": [1, "x"], "instances": [{"id": "a", "title": "A {{ params.q }}", "timeZone": "Asia/Tokyo", "schedule": {"at": "09:00"}, "placeholder": {"q": "{{ params.q }}"}, "params": {"q": 1}}, {"id": "b"}]}"#
        ),
    ]

    @Test func definitionsUsingEveryBuiltInStageAreAcceptedByValidate() async throws {
        let folder = try TemporaryFolder()
        for (name, text) in Self.everyStage { try folder.write("widgets.d/\(name).json", text) }
        // validate looks for the files `path` sources read.
        for name in ["a.json", "a.xml", "a.txt", "data.json"] { try folder.write("widgets.d/data/\(name)", "") }
        let output = try await Widgetd.run(["validate", "--config", "widgets.d"], in: folder.url)
        #expect(output.stdoutLines == [])
        #expect(output.status == 0)
    }

    @Test(.enabled(if: PythonJSONSchema.oracle.shouldRun, "needs python3 with the jsonschema module (pip install jsonschema)"))
    func definitionsUsingEveryBuiltInStageAreAcceptedByTheSchema() async throws {
        let folder = try TemporaryFolder()
        let files = try Self.everyStage.map { try folder.write("\($0.0).json", $0.1).path }
        let lines = try await PythonJSONSchema.validate(files, schema: try await Self.printedSchema(in: folder))
        #expect(lines == files.map { "\($0): ok" })
    }

    /// `widgetd schema`, written into `folder`.
    static func printedSchema(in folder: TemporaryFolder) async throws -> URL {
        let schema = try await Widgetd.run(["schema"])
        #expect(schema.status == 0)
        return try folder.write("schema.json", schema.stdout)
    }
}
