import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetTestSupport
import WidgetTesting

/// `widgetd schema` checked against the shipped definitions by an independent validator: Python's
/// `jsonschema` (installed by CI with `pip install jsonschema`). Skipped, with the reason, without it; under
/// `CI=true` it fails instead.
@Suite(.enabled(if: PythonJSONSchema.oracle.shouldRun, "needs python3 with the jsonschema module (pip install jsonschema)"))
struct DefinitionSchemaTests {
    /// Every widget definition the repository ships: `widgets.d/*.json` and the definitions in `Examples/`.
    static func shippedDefinitions() -> [String] {
        let root = Widgetd.packageRoot
        var files: [String] = []
        let shipped = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("widgets.d").path)) ?? []
        files += shipped.filter { $0.hasSuffix(".json") }.map { "widgets.d/\($0)" }
        if let examples = FileManager.default.enumerator(atPath: root.appendingPathComponent("Examples").path) {
            for case let path as String in examples where path.hasSuffix(".json") {
                let parts = path.split(separator: "/")
                if parts.contains(where: { $0 == "data" || $0.hasPrefix(".") }) { continue }
                // Only widget definitions: JSON objects with a source (package files and data are not).
                let url = root.appendingPathComponent("Examples").appendingPathComponent(path)
                guard let data = try? Data(contentsOf: url), let value = try? JSONReader.read(data), value["source"] != nil else {
                    continue
                }
                files.append("Examples/\(path)")
            }
        }
        return files.sorted()
    }

    @Test func shippedDefinitionsMatchThePrintedSchema() async throws {
        let schema = try await Widgetd.run(["schema"])
        #expect(schema.status == 0)
        let folder = try TemporaryFolder()
        let schemaFile = try folder.write("schema.json", schema.stdout)
        let files = Self.shippedDefinitions()
        #expect(files.contains("widgets.d/quotes.json"))

        let lines = try await PythonJSONSchema.validate(files, schema: schemaFile)
        // The seeds that need the plugin example's stages are rejected for those alone (as by validate).
        #expect(
            lines
                == files.map { file in
                    switch DefinitionCatalogueTests.pluginSeeds[file] {
                    case "transmission"?: "\(file): $.source.type: 'transmission' is not one of ['file', 'http']"
                    case "runwayPerformance"?:
                        "\(file): $.transforms.2.type: 'runwayPerformance' is not one of ['assets', 'choose', 'command', 'compute', 'fetch', 'filter', 'limit', 'map', 'select', 'sort']"
                    case "round"?:
                        "\(file): $.transforms.0.type: 'round' is not one of ['assets', 'choose', 'command', 'compute', 'fetch', 'filter', 'limit', 'map', 'select', 'sort']"
                    default: "\(file): ok"
                    }
                })
    }

    @Test func schemaRejectsAnUnknownKey() async throws {
        let schema = try await Widgetd.run(["schema"])
        let folder = try TemporaryFolder()
        let schemaFile = try folder.write("schema.json", schema.stdout)
        let lines = try await PythonJSONSchema.validate(["Tests/Fixtures/broken-definitions/unknown-key.json"], schema: schemaFile)
        #expect(
            lines == [
                "Tests/Fixtures/broken-definitions/unknown-key.json: $: Additional properties are not allowed ('staleAftr' was unexpected)"
            ])
    }
}
