import Foundation
import Synchronization
import Testing
import WidgetCommands
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages
import WidgetTestSupport
import WidgetTesting

/// A definition's problem has one JSON form: `status --format json` gives the same objects as
/// `list --format json` and `validate --format json` (file, line, column, path, message).
@Suite(.timeLimit(.minutes(2)))
struct ProblemFormatTests {
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_795_334_400))

    /// Runs `widgetd ARGUMENTS` in this process; returns the exit status and standard output.
    func widgetd(_ arguments: [String]) async -> (status: Int32, stdout: String) {
        let output = Mutex<[String]>([])
        let environment = CommandEnvironment(
            registry: .builtIn, clock: clock, secrets: SecretStore(environment: [:]), variables: [:],
            print: { line in output.withLock { $0.append(line) } }, printError: { _ in }
        )
        let status = await WidgetCommandLine.main(arguments, environment: environment)
        return (status, output.withLock { $0.joined(separator: "\n") })
    }

    @Test func statusListAndValidateGiveTheSameProblemObjects() async throws {
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/data/quote.json", #"{"text": "Hello"}"#)
        try folder.write("widgets.d/quote.json", #"{"source": {"path": "data/quote.json"}}"#)
        try folder.write(
            "widgets.d/broken.json", "{\n  \"source\": {\"path\": \"data/quote.json\"},\n  \"schedule\": {\"every\": \"soon\"}\n}")
        let config = folder.file("widgets.d").path
        let out = folder.file("out").path
        _ = await widgetd(["run", "--once", "--config", config, "--out", out])

        let status = await widgetd(["status", "--out", out, "--format", "json"])
        #expect(status.status == 1)
        let list = await widgetd(["list", "--config", config, "--out", out, "--format", "json"])
        let validate = await widgetd(["validate", "--config", config, "--format", "json"])
        let fromStatus = try #require(try JSONReader.read(status.stdout)["problems"])
        let fromList = try #require(try JSONReader.read(list.stdout)["problems"])
        let fromValidate = try JSONReader.read(validate.stdout)
        #expect(fromStatus == fromList)
        #expect(fromStatus == fromValidate)
        let problem = try #require(fromStatus[0])
        #expect(problem["file"]?.string?.hasSuffix("broken.json") == true)
        #expect(problem["line"] == 3)
        #expect(problem["column"] != nil)
        #expect(problem["path"] == "$.schedule.every")
        #expect(problem["message"]?.string?.contains("\"soon\"") == true)
    }
}
