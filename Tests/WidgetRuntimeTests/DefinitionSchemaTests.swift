import Foundation
import Testing
import WidgetCore

/// `widgetd schema` checked against the shipped definitions by an independent validator: Python's
/// `jsonschema` (installed by CI with `pip install jsonschema`). Skipped, with the reason, without it.
@Suite(.enabled(if: PythonJSONSchema.isAvailable, "needs python3 with the jsonschema module (pip install jsonschema)"))
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
        #expect(lines == files.map { "\($0): ok" })
    }

    @Test func schemaRejectsAnUnknownKey() async throws {
        let schema = try await Widgetd.run(["schema"])
        let folder = try TemporaryFolder()
        let schemaFile = try folder.write("schema.json", schema.stdout)
        let lines = try await PythonJSONSchema.validate(["Tests/Fixtures/broken-definitions/unknown-key.json"], schema: schemaFile)
        #expect(lines == [
            "Tests/Fixtures/broken-definitions/unknown-key.json: $: Additional properties are not allowed ('staleAftr' was unexpected)"
        ])
    }
}

/// Runs Python's `jsonschema` (draft 2020-12) over files.
enum PythonJSONSchema {
    static let script = """
        import json, sys
        from jsonschema import Draft202012Validator
        schema = json.load(open(sys.argv[1], encoding="utf-8"))
        Draft202012Validator.check_schema(schema)
        validator = Draft202012Validator(schema)
        for path in sys.argv[2:]:
            document = json.load(open(path, encoding="utf-8"))
            errors = sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
            for error in errors:
                where = "$" + "".join("." + str(part) for part in error.absolute_path)
                print(f"{path}: {where}: {error.message}")
            if not errors:
                print(f"{path}: ok")
        """

    /// Whether `python3 -c "import jsonschema"` works here.
    static let isAvailable: Bool = (try? python(["-c", "import jsonschema"]).status) == 0

    /// One line per problem (`FILE: PATH: MESSAGE`), or `FILE: ok`; paths are relative to the package root.
    static func validate(_ files: [String], schema: URL) async throws -> [String] {
        let result = try await Widgetd.run(program: URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, schema.path] + files)
        guard result.status == 0 else {
            throw ToolError(description: "python3 jsonschema failed with status \(result.status): \(result.stderr)")
        }
        return result.stdoutLines
    }

    /// Runs python3 once, at start, to decide whether the suite runs.
    private static func python(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        process.currentDirectoryURL = Widgetd.packageRoot
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
