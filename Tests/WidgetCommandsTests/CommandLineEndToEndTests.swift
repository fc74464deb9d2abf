import Foundation
import Testing
import WidgetCommands
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetTestSupport
import WidgetTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The built `widgetd` executable, run as a process against the local test server.
@Suite(.timeLimit(.minutes(5)))
struct CommandLineEndToEndTests {
    /// A definition of the widget `items`: the server's `/json?size=N`, reduced to two fields.
    static func items(_ server: TestHTTPServer, size: Int, schedule: String = #"{"every": "1h"}"#) -> String {
        """
        {"title": "Items", "source": {"url": "\(server.url("/json?size=\(size)").absoluteString)"}, "parser": "json",
         "transforms": [{"type": "map", "fields": {"total": "{{ count }}", "first": "{{ items[0].title }}"}}],
         "timeline": "single", "schedule": \(schedule), "placeholder": {"text": "Loading…"}}
        """
    }

    /// One test server for the whole suite.
    private static let sharedServer = Result { try TestHTTPServer() }

    static func server() throws -> TestHTTPServer {
        try sharedServer.get()
    }

    static func read(_ file: URL) throws -> WidgetValue {
        try JSONReader.read(try Data(contentsOf: file))
    }

    // MARK: - run --once

    @Test func runOnceWritesASnapshotPerWidgetWithTheStatusAndTheFailedStage() async throws {
        let server = try Self.server()
        let host = "127.0.0.1:\(server.port)"
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/items.json", Self.items(server, size: 2))
        try folder.write(
            "widgets.d/down.json",
            """
            {"source": {"url": "\(server.url("/status/503").absoluteString)"}, "parser": "json", "placeholder": {"text": "Loading…"}}
            """)
        try folder.write(
            "widgets.d/portal.json",
            """
            {"source": {"url": "\(server.url("/html-error").absoluteString)"}, "parser": "json"}
            """)
        try folder.write(
            "widgets.d/slow.json",
            """
            {"source": {"url": "\(server.url("/slow?delay=5").absoluteString)", "timeout": "1s"}, "parser": "json"}
            """)

        let output = try await Widgetd.run(["run", "--config", "widgets.d", "--out", "out", "--once"], in: folder.url)
        #expect(output.status == 1)
        #expect(output.stdout == "")
        #expect(output.stderrLines.last == "4 widgets refreshed into out: 1 fresh, 3 not fresh")

        let items = try Self.read(folder.file("out/items.json"))
        #expect(items["status"] == "fresh")
        #expect(items["title"] == "Items")
        #expect(items["error"] == .null)
        #expect(items["entries"]?[0]?["content"] == ["total": 2, "first": "Item 1"])
        #expect(items["lastSuccessAt"] == items["generatedAt"])

        let down = try Self.read(folder.file("out/down.json"))
        #expect(down["status"] == "placeholder")
        #expect(down["entries"]?.array?.map { $0["content"] } == [["text": "Loading…"]])
        #expect(down["lastSuccessAt"] == .null)
        #expect(down["error"] == .string("source: \(host) answered 503 Service Unavailable: {\"status\": 503}"))

        let portal = try Self.read(folder.file("out/portal.json"))
        #expect(portal["status"] == "placeholder")
        #expect(portal["entries"] == [])
        #expect(
            portal["error"]
                == .string(
                    "parser: \(server.url("/html-error").absoluteString) sent an HTML page (text/html) where JSON was expected"
                ))

        let slow = try Self.read(folder.file("out/slow.json"))
        #expect(slow["status"] == "placeholder")
        #expect(slow["error"] == .string("source: \(host) did not answer within 1 s"))

        let index = try Self.read(folder.file("out/index.json"))
        let widgets = try #require(index["widgets"]?.array)
        #expect(widgets.map { $0["id"] } == ["down", "items", "portal", "slow"])
        #expect(widgets.map { $0["status"] } == ["placeholder", "fresh", "placeholder", "placeholder"])
        #expect(widgets.map { $0["file"] } == ["down.json", "items.json", "portal.json", "slow.json"])
        #expect(widgets[1]["nextRefreshAt"] == items["nextRefreshAt"])
        #expect(
            folder.names(in: "out") == [
                ".state", "down.html", "down.json", "index.html", "index.json", "items.html", "items.json", "portal.html", "portal.json",
                "slow.html", "slow.json", "widgetd.prom",
            ])

        let status = try await Widgetd.run(["status", "--out", "out"], in: folder.url)
        #expect(status.status == 1)
        // run --once is no daemon: it records nothing about itself, and holds the lock no longer.
        #expect(status.stdoutLines.prefix(2) == ["daemon: not running", ""])
        let rows = status.stdoutLines.dropFirst(2).map(Self.columns)
        #expect(rows.first == ["ID", "TITLE", "STATUS", "AGE", "NEXT REFRESH", "TODAY", "LAST ERROR"])
        #expect(
            rows.dropFirst().map { $0.count == 7 ? [$0[0], $0[2], $0[5], $0[6]] : $0 } == [
                ["down", "placeholder", "1", "source: \(host) answered 503 Service Unavailable: {\"status\": 503}"],
                ["items", "fresh", "1", "-"],
                [
                    "portal", "placeholder", "1",
                    "parser: \(server.url("/html-error").absoluteString) sent an HTML page (text/html) where JSON was expected",
                ],
                ["slow", "placeholder", "1", "source: \(host) did not answer within 1 s"],
            ])

        let list = try await Widgetd.run(["list", "--config", "widgets.d", "--out", "out"], in: folder.url)
        #expect(list.status == 0)
        #expect(
            list.stdoutLines.map(Self.columns) == [
                ["ID", "TITLE", "SOURCE", "PARSER", "SCHEDULE", "NEXT REFRESH"],
                ["down", "-", "http 127.0.0.1", "json", "every 1h", down["nextRefreshAt"]?.string ?? "?"],
                ["items", "Items", "http 127.0.0.1", "json", "every 1h", items["nextRefreshAt"]?.string ?? "?"],
                ["portal", "-", "http 127.0.0.1", "json", "every 1h", portal["nextRefreshAt"]?.string ?? "?"],
                ["slow", "-", "http 127.0.0.1", "json", "every 1h", slow["nextRefreshAt"]?.string ?? "?"],
            ])

        // The same facts for tools.
        let statusJSON = try await Widgetd.run(["status", "--out", "out", "--format", "json"], in: folder.url)
        #expect(statusJSON.status == 1)
        let report = try JSONReader.read(Data(statusJSON.stdout.utf8))
        #expect(report["daemon"] == ["running": false])
        #expect(report["widgets"]?.array?.map { $0["id"] } == ["down", "items", "portal", "slow"])
        #expect(report["widgets"]?[1]?["status"] == "fresh")
        #expect(report["widgets"]?[1]?["entries"] == 1)
        #expect(report["widgets"]?[1]?["nextRefreshAt"] == items["nextRefreshAt"])
        #expect(report["widgets"]?[0]?["error"] == .string("source: \(host) answered 503 Service Unavailable: {\"status\": 503}"))
        #expect(report["problems"] == [])
        let listJSON = try await Widgetd.run(["list", "--out", "out", "--format", "json"], in: folder.url)
        #expect(listJSON.status == 0)
        let listed = try JSONReader.read(Data(listJSON.stdout.utf8))
        #expect(listed["widgets"]?.array?.map { $0["id"] } == ["down", "items", "portal", "slow"])
        #expect(listed["widgets"]?[1]?["source"] == "http 127.0.0.1")
        #expect(listed["widgets"]?[1]?["schedule"] == "every 1h")
        #expect(listed["widgets"]?[1]?["nextRefreshAt"] == items["nextRefreshAt"])
        #expect(listed["problems"] == [])
        let badFormat = try await Widgetd.run(["status", "--out", "out", "--format", "yaml"], in: folder.url)
        #expect(badFormat.status == 2)
        #expect(badFormat.stderr.contains("--format takes 'text' or 'json', not 'yaml'"))
    }

    /// The cells of a table line: columns are separated by two spaces or more.
    static func columns(_ line: String) -> [String] {
        line.split(separator: #/ {2,}/#).map(String.init)
    }

    @Test func runOnceSucceedsWhenEveryWidgetIsFresh() async throws {
        let server = try Self.server()
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/items.json", Self.items(server, size: 3))
        let output = try await Widgetd.run(["run", "--config", "widgets.d", "--out", "out", "--once"], in: folder.url)
        #expect(output.status == 0)
        #expect(output.stderrLines.last == "1 widget refreshed into out: 1 fresh, 0 not fresh")
        #expect(try Self.read(folder.file("out/items.json"))["entries"]?[0]?["content"] == ["total": 3, "first": "Item 1"])
    }

    // MARK: - validate

    static let brokenDefinitions = [
        #"Tests/Fixtures/broken-definitions/bad-duration.json:4:26: $.schedule.every: "15 minutes" is not a duration; write e.g. "15m", "24h" or "1h30m""#,
        #"Tests/Fixtures/broken-definitions/bad-id.json:2:9: $.id: "Weather Now" is not a valid id; an id is 1 to 64 characters: lowercase letters, digits, '.', '_' or '-', starting with a letter or digit"#,
        "Tests/Fixtures/broken-definitions/truncated.json:4:28: the file is not valid JSON: unexpected end of the document inside a string; fix the syntax at this place",
        "Tests/Fixtures/broken-definitions/unknown-key.json:4:3: $.staleAftr: unknown key 'staleAftr'; did you mean 'staleAfter'?",
        "Tests/Fixtures/broken-definitions/unknown-parser.json:3:13: $.parser: unknown parser type 'jsn'; did you mean 'json'? known: 'feed', 'firestore', 'json', 'text', 'xml'",
    ]

    @Test func validateReportsEveryProblemOfEveryFileWithItsPlace() async throws {
        let output = try await Widgetd.run(["validate", "--config", "Tests/Fixtures/broken-definitions"])
        #expect(output.status == 1)
        #expect(output.stdoutLines == Self.brokenDefinitions)
        #expect(output.stderr == "6 files checked, 1 widget valid, 5 problems\n")
    }

    @Test func validateAsJSONListsTheSameProblems() async throws {
        let output = try await Widgetd.run(["validate", "--config", "Tests/Fixtures/broken-definitions", "--format", "json"])
        #expect(output.status == 1)
        let problems = try #require(try JSONReader.read(output.stdout).array)
        #expect(problems.count == Self.brokenDefinitions.count)
        #expect(
            problems.first == [
                "file": "Tests/Fixtures/broken-definitions/bad-duration.json", "line": 4, "column": 26,
                "path": "$.schedule.every", "message": #""15 minutes" is not a duration; write e.g. "15m", "24h" or "1h30m""#,
            ])
        #expect(problems[2]["path"] == .null)
    }

    @Test func validateAcceptsTheShippedWidgets() async throws {
        let output = try await Widgetd.run(["validate", "--config", "widgets.d"])
        #expect(output.status == 0)
        #expect(output.stdout == "")
    }

    // MARK: - Usage

    @Test func helpListsTheCommands() async throws {
        let output = try await Widgetd.run(["--help"])
        #expect(output.status == 0)
        #expect(
            output.stdoutLines.first
                == "widgetd keeps widget snapshots fresh: it runs the pipelines defined in a folder of JSON files and writes one snapshot file per widget."
        )
        for command in ["run", "validate", "list", "preview", "next", "schema", "status", "reload", "version"] {
            #expect(output.stdoutLines.contains { $0.hasPrefix("  \(command) ") }, "\(command) is missing from --help")
        }
    }

    @Test func everyCommandHasHelpStartingWithItsUsage() async throws {
        let run = try await Widgetd.run(["run", "--help"])
        #expect(run.status == 0)
        #expect(
            run.stdoutLines.prefix(2) == [
                "Usage: widgetd run [--config DIR] [--out DIR] [--once] [--shard K/N] [--log-format text|json]",
                "                   [--log-level LEVEL] [--allow-path DIR]… [--rewrite-origin FROM=TO]…",
            ])
        for command in WidgetCommandLine.commands {
            let output = try await Widgetd.run([command.name, "--help"])
            #expect(output.status == 0)
            #expect(output.stdoutLines.first?.hasPrefix("Usage: widgetd \(command.name)") == true)
        }
    }

    @Test func versionNamesTheReleaseTheCommitAndSwift() async throws {
        let flag = try await Widgetd.run(["--version"])
        let command = try await Widgetd.run(["version"])
        #expect(flag.status == 0)
        #expect(command.status == 0)
        #expect(flag.stdout == command.stdout)
        #expect(flag.stdoutLines.count == 3)
        #expect(flag.stdoutLines.first == "widgetd \(BuildInfo.release)")
        // Built from a git checkout, the program knows its commit (12 hexadecimal digits); from an
        // unpacked archive it says so.
        let commit = try #require(flag.stdoutLines.dropFirst().first)
        if FileManager.default.fileExists(atPath: Widgetd.packageRoot.appendingPathComponent(".git").path) {
            #expect(commit.wholeMatch(of: /commit: [0-9a-f]{12}/) != nil, "\(commit)")
        } else {
            #expect(commit == "commit: unknown")
        }
        #expect(flag.stdoutLines.last?.hasPrefix("swift: 6.") == true)
    }

    @Test func unknownCommandIsAUsageErrorWithASuggestion() async throws {
        let output = try await Widgetd.run(["rnu"])
        #expect(output.status == 2)
        #expect(output.stdout == "")
        #expect(
            output.stderrLines == ["Error: unknown command 'rnu'; did you mean 'run'?", "Run 'widgetd --help' for the list of commands."])
    }

    @Test func unknownOptionIsAUsageErrorWithASuggestion() async throws {
        let output = try await Widgetd.run(["run", "--onse"])
        #expect(output.status == 2)
        #expect(
            output.stderrLines == ["Error: unknown option '--onse'; did you mean '--once'?", "Run 'widgetd run --help' for its options."])
    }

    @Test func badOptionValueIsAUsageError() async throws {
        let output = try await Widgetd.run(["next", "quotes", "--count", "0"])
        #expect(output.status == 2)
        #expect(
            output.stderrLines == [
                "Error: --count takes a whole number from 1 to 1000, not '0'", "Run 'widgetd next --help' for its options.",
            ])
    }

    // MARK: - preview, schema, next

    @Test func previewPrintsTheSnapshotAndWritesNothing() async throws {
        let server = try Self.server()
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/items.json", Self.items(server, size: 2))
        let output = try await Widgetd.run(["preview", "items", "--config", "widgets.d"], in: folder.url)
        #expect(output.status == 0)
        let snapshot = try JSONReader.read(output.stdout)
        #expect(snapshot["id"] == "items")
        #expect(snapshot["status"] == "fresh")
        #expect(snapshot["entries"]?[0]?["content"] == ["total": 2, "first": "Item 1"])
        #expect(folder.names() == ["widgets.d"])
        #expect(folder.names(in: "widgets.d") == ["items.json"])
    }

    @Test func previewOfAFailingWidgetShowsThePlaceholderAndTheError() async throws {
        let server = try Self.server()
        let folder = try TemporaryFolder()
        try folder.write(
            "widgets.d/down.json",
            """
            {"source": {"url": "\(server.url("/status/503").absoluteString)"}, "parser": "json", "placeholder": {"text": "Loading…"}}
            """)
        let output = try await Widgetd.run(["preview", "down", "--config", "widgets.d"], in: folder.url)
        #expect(output.status == 1)
        #expect(try JSONReader.read(output.stdout)["status"] == "placeholder")
        #expect(output.stderrLines == ["Error: down: source: 127.0.0.1:\(server.port) answered 503 Service Unavailable: {\"status\": 503}"])
        #expect(folder.names() == ["widgets.d"])
    }

    @Test func previewOfAnUnknownWidgetNamesTheKnownOnes() async throws {
        let output = try await Widgetd.run(["preview", "quote", "--config", "widgets.d"])
        #expect(output.status == 1)
        #expect(output.stderrLines == ["Error: no widget 'quote' in widgets.d; did you mean 'quotes'?"])
    }

    @Test func schemaIsAJSONSchemaDocument() async throws {
        let output = try await Widgetd.run(["schema"])
        #expect(output.status == 0)
        let schema = try JSONReader.read(output.stdout)
        #expect(schema["$schema"] == "https://json-schema.org/draft/2020-12/schema")
        #expect(schema["type"] == "object")
        #expect(schema["required"] == ["source"])
        #expect(schema["properties"]?.object?.keys.sorted() == DefinitionReader.topLevelKeys.sorted())
    }

    @Test func nextPrintsTheComingRefreshTimesInTheWidgetsZoneAndUTC() async throws {
        let folder = try TemporaryFolder()
        try folder.write(
            "widgets.d/jotd.json",
            """
            {"timeZone": "America/New_York", "source": {"url": "http://127.0.0.1:9/jokes"}, "parser": "json",
             "schedule": {"at": ["08:00", "20:00"]}}
            """)
        let output = try await Widgetd.run(
            ["next", "jotd", "--config", "widgets.d", "--count", "3", "--from", "2026-03-07T12:00:00Z"], in: folder.url
        )
        #expect(output.status == 0)
        #expect(
            output.stdoutLines == [
                "jotd: at 08:00,20:00 (America/New_York)",
                "  Sat 2026-03-07 08:00:00 EST  2026-03-07T13:00:00Z",
                "  Sat 2026-03-07 20:00:00 EST  2026-03-08T01:00:00Z",
                "  Sun 2026-03-08 08:00:00 EDT  2026-03-08T12:00:00Z",
            ])
    }

    // MARK: - The daemon

    @Test func daemonRefreshesAtStartAndStopsCleanlyOnSIGTERM() async throws {
        let server = try Self.server()
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/items.json", Self.items(server, size: 2))
        let daemon = try RunningWidgetd(["run", "--config", "widgets.d", "--out", "out"], in: folder.url)

        let started = await daemon.line(containing: "widgetd running")
        #expect(started?.hasSuffix("widgetd running: definitions in widgets.d, snapshots in out (pid \(daemon.pid))") == true)
        let fresh = try #require(await daemon.line(containing: "items: fresh"), "\(daemon.log)")
        #expect(fresh.contains("items: fresh, 1 entry in "))
        #expect(try Self.read(folder.file("out/items.json"))["status"] == "fresh")
        #expect(try folder.read("out/.state/daemon.pid") == "\(daemon.pid)\n")

        let second = try await Widgetd.run(["run", "--config", "widgets.d", "--out", "out"], in: folder.url)
        #expect(second.status == 1)
        #expect(second.stderrLines.count == 1)
        #expect(second.stderrLines.first?.hasPrefix("Error: another widgetd (pid \(daemon.pid)) is already writing to ") == true)
        #expect(second.stderrLines.first?.hasSuffix("/out; stop it first or use another --out") == true)

        daemon.send(SIGTERM)
        #expect(await daemon.line(containing: "stopping") != nil)
        #expect(await daemon.waitForExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: folder.file("out/.state/daemon.pid").path))
        #expect(try Self.read(folder.file("out/items.json"))["status"] == "fresh")
    }

    @Test func daemonReloadsAnEditedDefinitionOnSIGHUPAndRefreshesOnRequest() async throws {
        let server = try Self.server()
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/items.json", Self.items(server, size: 2))
        let daemon = try RunningWidgetd(["run", "--config", "widgets.d", "--out", "out"], in: folder.url)
        _ = try #require(await daemon.line(containing: "items: fresh"), "\(daemon.log)")

        // Saving also wakes the folder watcher; either way the daemon reloads and refreshes once.
        try folder.write("widgets.d/items.json", Self.items(server, size: 5))
        daemon.send(SIGHUP)
        _ = try #require(await daemon.line(containing: "items: definition changed"), "\(daemon.log)")
        _ = try #require(await daemon.line(containing: "items: fresh"), "\(daemon.log)")
        #expect(try Self.read(folder.file("out/items.json"))["entries"]?[0]?["content"] == ["total": 5, "first": "Item 1"])

        let reload = try await Widgetd.run(["reload", "items", "--out", "out"], in: folder.url)
        #expect(reload.status == 0)
        #expect(reload.stdout == "asked widgetd (pid \(daemon.pid)) to refresh items\n")
        _ = try #require(await daemon.line(containing: "items: reload requested"), "\(daemon.log)")
        _ = try #require(await daemon.line(containing: "items: fresh"), "\(daemon.log)")

        daemon.send(SIGINT)
        #expect(await daemon.waitForExit() == 0)
    }

    @Test func reloadWithoutARunningDaemonFails() async throws {
        let folder = try TemporaryFolder()
        let output = try await Widgetd.run(["reload", "items", "--out", "out"], in: folder.url)
        #expect(output.status == 1)
        #expect(output.stderrLines == ["Error: no widgetd is running for out; start one with 'widgetd run --out out'"])
    }
}
