import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

    @Test func theProgramSeesOnlyTheBasicEnvironmentAndWhatIsPassed() async throws {
        setenv("WIDGETD_TEST_CANARY", "s3cr3t-canary", 1)
        defer { unsetenv("WIDGETD_TEST_CANARY") }
        let run: WidgetValue = [
            "sh", "-c", #"cat > /dev/null; printf '{"canary": "%s", "path": "%s"}' "$WIDGETD_TEST_CANARY" "${PATH:+set}""#,
        ]
        let printing: WidgetValue = ["run": run]
        #expect(try await command(printing).transform([:], context: context()) == ["canary": "", "path": "set"])
        let passing: WidgetValue = ["run": run, "passEnvironment": ["WIDGETD_TEST_CANARY"]]
        #expect(try await command(passing).transform([:], context: context()) == ["canary": "s3cr3t-canary", "path": "set"])
        let stage = try command(passing)
        #expect(
            stage.programEnvironment(from: ["WIDGETD_TEST_CANARY": "x", "API_KEY": "k", "PATH": "/bin"]) == [
                "PATH=/bin", "WIDGETD_TEST_CANARY=x",
            ])
    }

    /// Whether `pid` is gone (or a zombie waiting for its new parent to reap it), waiting up to 10 s for
    /// a kill to land.
    private func ended(_ pid: pid_t) async -> Bool {
        for _ in 0..<1000 {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
            if let close = stat.lastIndex(of: ")"), stat[stat.index(close, offsetBy: 2)] == "Z" { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    private func folderWithPIDs() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("command-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    #if os(Linux)
    @Test func aProgramsChildrenDieWithItAtTheTimeout() async throws {
        let folder = try folderWithPIDs()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The program starts a child that would outlive it, then waits past its timeout (long enough for a
        // busy machine to start the shell and write the file first).
        let stage = try command(["run": ["sh", "-c", "sleep 60 & echo $! > child.pid; wait"], "timeout": "5s"])
        await #expect(throws: StageError.self) { _ = try await stage.transform([:], context: context(folder)) }
        let child = try #require(
            pid_t(
                String(contentsOf: folder.appendingPathComponent("child.pid"), encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(await ended(child), "the program's child \(child) outlived the timeout")
    }

    @Test func aStoppedRefreshKillsTheProgramAndItsChildren() async throws {
        let folder = try folderWithPIDs()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stage = try command(["run": ["sh", "-c", "sleep 60 & echo $! > child.pid; wait"], "timeout": "60s"])
        let context = context(folder)
        let task = Task { try await stage.transform([:], context: context) }
        let file = folder.appendingPathComponent("child.pid")
        var child: pid_t?
        for _ in 0..<1000 where child == nil {
            child = (try? String(contentsOf: file, encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if child == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        let started = try #require(child)
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(await ended(started), "the program's child \(started) outlived the stop")
    }
    #endif

    @Test func optionsAreChecked() {
        #expect(throws: OptionsError.self) { _ = try command(["run": []]) }
        #expect(throws: OptionsError.self) { _ = try command(["run": ["cat"], "timeout": "0s"]) }
        #expect(throws: OptionsError.self) { _ = try command(["run": ["cat"], "passEnvironment": ["A=B"]]) }
    }
}
