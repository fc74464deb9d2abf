import Foundation
import Synchronization
import Testing
import WidgetCore
import WidgetRuntime
import WidgetStages
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
}
