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

/// With `--log-format json`, every line a command writes to standard error is one JSON object: the
/// daemon's records, `run --once`'s definition problems and summary, and the command line's errors.
@Suite(.timeLimit(.minutes(2)))
struct JSONLogLinesTests {
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_795_334_400))
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
        try folder.write("widgets.d/data/quote.json", #"{"text": "Hello"}"#)
        try folder.write("widgets.d/quote.json", #"{"source": {"path": "data/quote.json"}, "schedule": {"every": "1h"}}"#)
        try folder.write("widgets.d/broken.json", #"{"source": {"path": "data/quote.json"}, "schedule": {"every": "soon"}}"#)
    }

    /// Runs `widgetd ARGUMENTS` in this process; returns the exit status and the lines of standard error.
    func widgetd(_ arguments: [String]) async -> (status: Int32, stderr: [String]) {
        let errors = Mutex<[String]>([])
        let environment = CommandEnvironment(
            registry: .builtIn, clock: clock, secrets: SecretStore(environment: [:]), variables: [:], print: { _ in },
            printError: { text in errors.withLock { $0 += text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) } }
        )
        let status = await WidgetCommandLine.main(arguments, environment: environment)
        return (status, errors.withLock { $0 })
    }

    /// Each line read as a JSON object; a line that is not one fails the test.
    func objects(_ lines: [String]) throws -> [WidgetValue] {
        try lines.map { line in
            let value = try JSONReader.read(Data(line.utf8))
            #expect(value.object != nil, "not an object: \(line)")
            return value
        }
    }

    @Test func runOnceWritesItsProblemsAndSummaryAsJSONLines() async throws {
        let result = await widgetd([
            "run", "--once", "--config", folder.file("widgets.d").path, "--out", folder.file("out").path, "--log-format", "json",
        ])
        #expect(result.status == 1)
        #expect(!result.stderr.isEmpty)
        let lines = try objects(result.stderr)
        let problem = try #require(lines.first { $0["event"] == "definition-invalid" })
        #expect(problem["level"] == "error")
        #expect(problem["file"]?.string?.hasSuffix("broken.json") == true)
        #expect(problem["path"] == "$.schedule.every")
        #expect(problem["line"] == 1)
        let summary = try #require(lines.last)
        #expect(summary["event"] == "once-done")
        #expect(summary["widgets"] == 1)
        #expect(summary["fresh"] == 1)
        #expect(summary["notFresh"] == 0)
        #expect(summary["problems"] == 1)
        #expect(summary["message"]?.string?.hasPrefix("1 widget refreshed into ") == true)
    }

    @Test func textLogsKeepThePlainSummary() async throws {
        let result = await widgetd(["run", "--once", "--config", folder.file("widgets.d").path, "--out", folder.file("out").path])
        #expect(result.status == 1)
        #expect(result.stderr.last == "1 widget refreshed into \(folder.file("out").path): 1 fresh, 0 not fresh; 1 definition problem")
        #expect(result.stderr.contains { $0.contains("broken.json:1:") && $0.contains("$.schedule.every: ") })
    }

    @Test func errorsBeforeAndOutsideTheDaemonAreJSONLinesToo() async throws {
        // A definitions folder that does not exist.
        let missing = await widgetd(["run", "--once", "--config", folder.file("nowhere").path, "--log-format", "json"])
        #expect(missing.status == 2)
        let missingLines = try objects(missing.stderr)
        #expect(missingLines.count == 1)
        #expect(missingLines.first?["level"] == "error")
        #expect(missingLines.first?["message"]?.string?.contains("does not exist") == true)
        // An option the command does not know: a usage error, one line.
        let usage = await widgetd(["run", "--once", "--log-format", "json", "--bogus"])
        #expect(usage.status == 2)
        let usageLines = try objects(usage.stderr)
        #expect(usageLines.count == 1)
        #expect(usageLines.first?["message"]?.string?.contains("--bogus") == true)
        // A secrets folder that cannot be read.
        let secrets = await widgetd([
            "run", "--once", "--config", folder.file("widgets.d").path, "--secrets", folder.file("none").path, "--log-format=json",
        ])
        #expect(secrets.status == 2)
        #expect(try objects(secrets.stderr).count == 1)
    }
}
