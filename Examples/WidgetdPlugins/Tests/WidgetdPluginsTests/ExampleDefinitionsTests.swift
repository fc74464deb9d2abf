import Foundation
import Synchronization
import Testing
import WidgetCommands
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages
import WidgetTesting

@testable import WidgetdPlugins

struct ExampleDefinitionsTests {
    /// `Examples/seeds`, next to this package.
    static let seeds = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // WidgetdPluginsTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // WidgetdPlugins
        .deletingLastPathComponent()  // Examples
        .appendingPathComponent("seeds")

    /// The seeds that need this package's stages.
    static let folders = ["001-bitdream", "002-sf50-runways"].map { seeds.appendingPathComponent($0).path }

    /// The registry of the `widgetd-plugins` executable.
    static func registry() throws -> StageRegistry {
        var builder = StageRegistry.Builder.builtIn()
        builder.register(TransmissionFetcher.self)
        builder.register(RunwayPerformanceTransform.self)
        return try builder.build()
    }

    static func run(_ arguments: [String], secrets: [String: String]) async throws -> (code: Int32, output: String, errors: String) {
        let output = Mutex<[String]>([])
        let errors = Mutex<[String]>([])
        let environment = CommandEnvironment(
            registry: try registry(),
            secrets: SecretStore(environment: secrets),
            print: { line in output.withLock { $0.append(line) } },
            printError: { line in errors.withLock { $0.append(line) } }
        )
        let code = await WidgetCommandLine.main(arguments, environment: environment)
        return (code, output.withLock { $0.joined(separator: "\n") }, errors.withLock { $0.joined(separator: "\n") })
    }

    static let credentials = [
        "BITDREAM_HOME_USER": "alice", "BITDREAM_HOME_PASSWORD": "s3cret-pa55",
        "BITDREAM_SEEDBOX_USER": "bob", "BITDREAM_SEEDBOX_PASSWORD": "an0ther-pa55",
    ]

    @Test func theSeedsNeedingPluginsValidateWithThePluginStages() async throws {
        var summaries: [String] = []
        for folder in Self.folders {
            let result = try await Self.run(["validate", "--config", folder], secrets: Self.credentials)
            #expect(result.code == 0, "\(result.output)")
            #expect(result.output.isEmpty)
            summaries.append(result.errors)
        }
        #expect(summaries == ["1 file checked, 2 widgets valid, 0 problems", "1 file checked, 1 widget valid, 0 problems"])
    }

    @Test func theBuiltInStagesAloneDoNotKnowThePluginStages() async throws {
        let output = Mutex<[String]>([])
        let environment = CommandEnvironment(
            registry: .builtIn, secrets: SecretStore(environment: Self.credentials),
            print: { line in output.withLock { $0.append(line) } }, printError: { _ in }
        )
        for folder in Self.folders {
            let code = await WidgetCommandLine.main(["validate", "--config", folder], environment: environment)
            #expect(code == 1)
        }
        let text = output.withLock { $0.joined(separator: "\n") }
        #expect(text.contains("transmission"))
        #expect(text.contains("runwayPerformance"))
    }

    @Test func listShowsBothBitDreamInstancesAndTheRunwayWidget() async throws {
        var output = ""
        for folder in Self.folders {
            let result = try await Self.run(["list", "--config", folder], secrets: Self.credentials)
            #expect(result.code == 0, "\(result.errors)")
            output += result.output
        }
        for id in ["bitdream.home", "bitdream.seedbox", "sf50-runways"] {
            #expect(output.contains(id), "\(output)")
        }
        for secret in Self.credentials.values { #expect(!output.contains(secret)) }
    }

    // MARK: - The schema

    @Test func theSchemaDescribesRunwayPerformanceAndLeavesTransmissionOpen() throws {
        let schema = DefinitionSchema.make(registry: try Self.registry())
        let runway = try #require(schema["$defs"]?["transform.runwayPerformance"])
        #expect(runway["additionalProperties"] == false)
        #expect(runway["properties"]?["baseDistance"]?["default"] == 3200)
        let transmission = try #require(schema["$defs"]?["source.transmission"])
        #expect(transmission["additionalProperties"] == nil)
    }

    /// Python's `jsonschema` over `files` with the `widgetd-plugins schema`: one line per file, `ok` or the
    /// first problem.
    static func checkWithJSONSchema(_ files: [URL]) throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("widgetd-plugins-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let schemaFile = folder.appendingPathComponent("schema.json")
        try Data(JSONWriter.string(DefinitionSchema.make(registry: try registry())).utf8).write(to: schemaFile)
        let script = """
            import json, sys
            from jsonschema import Draft202012Validator
            validator = Draft202012Validator(json.load(open(sys.argv[1])))
            for path in sys.argv[2:]:
                errors = list(validator.iter_errors(json.load(open(path))))
                print("ok" if not errors else min(errors, key=lambda e: len(e.absolute_path)).message)
            """
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, schemaFile.path] + files.map(\.path)
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test(.enabled(if: PythonModule.shouldRun("jsonschema"), "needs python3 with jsonschema"))
    func theSeedsNeedingPluginsMatchThePluginsSchema() throws {
        let files = [
            Self.seeds.appendingPathComponent("001-bitdream/bitdream.json"),
            Self.seeds.appendingPathComponent("002-sf50-runways/sf50-runways.json"),
        ]
        #expect(try Self.checkWithJSONSchema(files) == ["ok", "ok"])
    }

    @Test(.enabled(if: PythonModule.shouldRun("jsonschema"), "needs python3 with jsonschema"))
    func aMisspeltPluginOptionIsFlaggedByTheSchemaAsByValidate() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("widgetd-plugins-typo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("runways.json")
        try Data(#"{"source": {"path": "x.json"}, "transforms": [{"type": "runwayPerformance", "maxTailwnd": 5}]}"#.utf8).write(to: file)
        let result = try await Self.run(["validate", "--config", folder.path], secrets: [:])
        #expect(result.output.hasSuffix("$.transforms[0].maxTailwnd: unknown key 'maxTailwnd'; did you mean 'maxTailwind'?"))
        #expect(try Self.checkWithJSONSchema([file]) == ["Additional properties are not allowed ('maxTailwnd' was unexpected)"])
    }
}
