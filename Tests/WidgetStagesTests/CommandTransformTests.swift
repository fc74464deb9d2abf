import Foundation
import Testing
import WidgetCore
import WidgetStages

struct CommandTransformTests {
    private func command(_ options: WidgetValue) throws -> CommandTransform {
        let stage = try StageRegistry.builtIn.makeStage(.transformer, typeName: "command", options: options, decoder: OptionsDecoder())
        return try #require(stage as? CommandTransform)
    }

    private func context(_ folder: URL? = nil) -> StageContext {
        StageContext(widgetID: "test", now: Date(timeIntervalSince1970: 1_795_340_203), baseDirectory: folder)
    }

    @Test func theValueGoesInAsJSONAndTheOutputComesBackAsAValue() async throws {
        let stage = try command(["run": ["cat"]])
        let value: WidgetValue = ["price": 0.10, "tags": ["a", "b"], "big": .number(WidgetNumber("12345678901234567890")!)]
        #expect(try await stage.transform(value, context: context()) == value)
    }

    @Test func aScriptInTheDefinitionsFolderRunsThere() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("command-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = folder.appendingPathComponent("where.sh")
        try Data("#!/bin/sh\ncat > /dev/null\nprintf '{\"folder\": \"%s\"}' \"$(basename \"$(pwd)\")\"\n".utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let stage = try command(["run": ["./where.sh"]])
        #expect(try await stage.transform(["x": 1], context: context(folder)) == ["folder": .string(folder.lastPathComponent)])
    }

    @Test func failuresNameTheProgramAndTheCause() async throws {
        let cases: [(WidgetValue, String)] = [
            (["run": ["sh", "-c", "echo 'no such thing' >&2; exit 3"]], "sh exited with status 3: no such thing"),
            (["run": ["sh", "-c", "echo not json"]], "the output of sh is not JSON: line 1, column 1: invalid literal; expected 'null'"),
            (["run": ["sh", "-c", "sleep 5"], "timeout": "1s"], "sh did not finish within 1 s"),
            (["run": ["sh", "-c", "yes '[1]'"], "maxBytes": 1000], "sh printed more than the 1000-byte limit"),
        ]
        for (options, message) in cases {
            let stage = try command(options)
            await #expect {
                _ = try await stage.transform(["x": 1], context: context())
            } throws: { error in
                (error as? StageError)?.message == message
            }
        }
    }

    @Test func optionsAreChecked() {
        #expect(throws: OptionsError.self) { _ = try command(["run": []]) }
        #expect(throws: OptionsError.self) { _ = try command(["run": ["cat"], "timeout": "0s"]) }
    }
}
