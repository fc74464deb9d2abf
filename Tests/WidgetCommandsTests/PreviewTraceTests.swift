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

/// `widgetd preview ID --trace`, and the warnings an emptied value leaves in snapshots and `status`, run
/// in this process with a manual clock: the server's answer moves the clock by 42 ms, so the fetch takes
/// 42 ms and every other stage 0 ms, every time.
@Suite(.timeLimit(.minutes(2)))
struct PreviewTraceTests {
    /// 2026-11-22T08:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_795_334_400)

    let clock = ManualClock(now: PreviewTraceTests.now)
    let server: TestHTTPServer
    let folder: TemporaryFolder

    init() throws {
        let clock = clock
        server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/news") { request in
                clock.advance(by: 0.042)
                guard request.query("key") == "k3y-s3cr3t" else { return .json(["error": "bad key"], status: 401) }
                return .json([
                    "status": "ok",
                    "articles": [
                        ["title": "Swift 6.3 released", "score": 9, "tags": ["swift", "release"]],
                        ["title": "A widget daemon that keeps every widget fresh, written without dependencies", "score": 2, "tags": []],
                        ["title": "Widgets on Linux", "score": 7, "tags": ["linux"]],
                        ["title": "Traces", "score": 6, "tags": []],
                        ["title": "Old news", "score": 1, "tags": []],
                    ],
                ])
            }
        ])
        folder = try TemporaryFolder()
    }

    /// A widget of three transforms over the server's `/news`, keeping articles whose score passes `where`.
    func writeNews(where test: String = "@.score > 5") throws {
        try folder.write(
            "widgets.d/news.json",
            """
            {"title": "News", "timeZone": "UTC",
             "source": {"url": "\(server.url("/news").absoluteString)?key={{ env.NEWS_KEY }}"},
             "transforms": [
               {"type": "select", "path": "$.articles[*]"},
               {"type": "filter", "where": "\(test)"},
               {"type": "map", "fields": {"headline": "{{ title | upcase }}", "score": "{{ score }}"}}
             ],
             "timeline": {"type": "each", "every": "1h"},
             "schedule": {"every": "1h"}}
            """)
    }

    /// Runs `widgetd ARGUMENTS` in this process; returns the exit status, standard output and error.
    func widgetd(_ arguments: [String]) async -> (status: Int32, stdout: String, stderr: String) {
        let output = Mutex<[String]>([])
        let errors = Mutex<[String]>([])
        let environment = CommandEnvironment(
            registry: .builtIn, clock: clock, secrets: SecretStore(environment: ["NEWS_KEY": "k3y-s3cr3t"]), variables: [:],
            print: { line in output.withLock { $0.append(line) } },
            printError: { line in errors.withLock { $0.append(line) } }
        )
        let status = await WidgetCommandLine.main(arguments, environment: environment)
        return (status, output.withLock { $0.joined(separator: "\n") }, errors.withLock { $0.joined(separator: "\n") })
    }

    // MARK: - Trace

    @Test func theTraceShowsEveryStageInOrderShortenedWithItsTime() async throws {
        // Five articles show as three and "2 more"; four show whole, as a "1 more" line would take the
        // place of the fourth.
        try writeNews(where: "@.score > 1")
        let result = await widgetd(["preview", "news", "--config", folder.file("widgets.d").path, "--trace"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        #expect(
            result.stdout == """
                trace of news at 2026-11-22T08:00:00Z

                source (http)  42 ms
                  GET http://127.0.0.1:\(server.port)/news?key=***
                  200 OK, 340 bytes, application/json

                parser (json)  0 ms
                  an object of 2 members
                    status: "ok"
                    articles: [{"title":"Swift 6.3 released","score":9,"tags":["swift","release"]},{"title":"A widget daemon that keeps…

                transforms[0] (select)  0 ms
                  a list of 5 items
                    [0] {"title":"Swift 6.3 released","score":9,"tags":["swift","release"]}
                    [1] {"title":"A widget daemon that keeps every widget fresh, written witho…","score":2,"tags":[]}
                    [2] {"title":"Widgets on Linux","score":7,"tags":["linux"]}
                    … 2 more items

                transforms[1] (filter)  0 ms
                  a list of 4 items
                    [0] {"title":"Swift 6.3 released","score":9,"tags":["swift","release"]}
                    [1] {"title":"A widget daemon that keeps every widget fresh, written witho…","score":2,"tags":[]}
                    [2] {"title":"Widgets on Linux","score":7,"tags":["linux"]}
                    [3] {"title":"Traces","score":6,"tags":[]}

                transforms[2] (map)  0 ms
                  a list of 4 items
                    [0] {"headline":"SWIFT 6.3 RELEASED","score":9}
                    [1] {"headline":"A WIDGET DAEMON THAT KEEPS EVERY WIDGET FRESH, WRITTEN WITHO…","score":2}
                    [2] {"headline":"WIDGETS ON LINUX","score":7}
                    [3] {"headline":"TRACES","score":6}

                timeline (each)  0 ms
                  4 entries
                    2026-11-22T08:00:00Z  {"headline":"SWIFT 6.3 RELEASED","score":9}
                    2026-11-22T09:00:00Z  {"headline":"A WIDGET DAEMON THAT KEEPS EVERY WIDGET FRESH, WRITTEN WITHO…","score":2}
                    2026-11-22T10:00:00Z  {"headline":"WIDGETS ON LINUX","score":7}
                    2026-11-22T11:00:00Z  {"headline":"TRACES","score":6}

                snapshot: fresh, 4 entries
                """)
        #expect(!result.stdout.contains("k3y-s3cr3t"))
        #expect(folder.names() == ["widgets.d"])
    }

    @Test func aLongItemShowsEveryKeyOnALineOfItsOwn() async throws {
        // The map adds fields after a long title: a line cut at 120 characters would hide them.
        try folder.write(
            "widgets.d/news.json",
            """
            {"title": "News", "timeZone": "UTC",
             "source": {"url": "\(server.url("/news").absoluteString)?key={{ env.NEWS_KEY }}"},
             "transforms": [
               {"type": "select", "path": "$.articles[*]"},
               {"type": "filter", "where": "@.score == 2"},
               {"type": "map", "fields": {"title": "{{ title }}", "summary": "{{ title | downcase }}", "score": "{{ score }}",
                                          "rank": "second"}}
             ],
             "timeline": {"type": "each", "every": "1h"},
             "schedule": {"every": "1h"}}
            """)
        let result = await widgetd(["preview", "news", "--config", folder.file("widgets.d").path, "--trace"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let map = try #require(lines.firstIndex(of: "transforms[2] (map)  0 ms"))
        #expect(
            Array(lines[(map + 1)...].prefix(6)) == [
                "  a list of 1 item",
                "    [0]",
                #"      title: "A widget daemon that keeps every widget fresh, written witho…""#,
                #"      summary: "a widget daemon that keeps every widget fresh, written witho…""#,
                "      score: 2",
                #"      rank: "second""#,
            ])
        let timeline = try #require(lines.firstIndex(of: "timeline (each)  0 ms"))
        #expect(
            Array(lines[(timeline + 1)...].prefix(6)) == [
                "  1 entry",
                "    2026-11-22T08:00:00Z",
                #"      title: "A widget daemon that keeps every widget fresh, written witho…""#,
                #"      summary: "a widget daemon that keeps every widget fresh, written witho…""#,
                "      score: 2",
                #"      rank: "second""#,
            ])
        #expect(lines.allSatisfy { $0.count <= 120 })
        #expect(!result.stdout.contains("k3y-s3cr3t"))
    }

    @Test func theJSONTraceMarksTheStageThatEmptiedTheList() async throws {
        try writeNews(where: "@.score > 100")
        let result = await widgetd(["preview", "news", "--config", folder.file("widgets.d").path, "--trace", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let trace = try JSONReader.read(result.stdout)
        let warning = "gave an empty list from a list of 5 items"
        let stages = try #require(trace["stages"]?.array)
        #expect(stages.count == 6)
        #expect(
            stages[0] == [
                "stage": "source", "kind": "source", "type": "http", "seconds": 0.042, "outcome": "done",
                "fetch": [
                    "request": .string("GET http://127.0.0.1:\(server.port)/news?key=***"),
                    "origin": .string("http://127.0.0.1:\(server.port)/news"),
                    "status": 200, "bytes": 340, "contentType": "application/json", "notModified": false,
                ],
            ])
        #expect(stages[1]["shape"] == "an object of 2 members")
        #expect(stages[1]["value"]?["articles"]?.array?.count == 5)
        #expect(
            stages[2]["value"]?[1]?["title"]
                == "A widget daemon that keeps every widget fresh, written without dependencies")
        #expect(
            stages[3] == [
                "stage": "transforms[1] (filter)", "kind": "transform", "type": "filter", "seconds": 0, "outcome": "done",
                "shape": "an empty list", "value": [], "warning": .string(warning),
            ])
        #expect(stages[4]["warning"] == nil)
        #expect(
            stages[5] == [
                "stage": "timeline", "kind": "timeline", "type": "each", "seconds": 0, "outcome": "done", "count": 0, "entries": [],
            ])
        #expect(trace["widget"] == "news")
        #expect(trace["at"] == "2026-11-22T08:00:00Z")
        #expect(trace["snapshot"]?["status"] == "fresh")
        #expect(
            trace["snapshot"]?["warnings"] == [
                .string("transforms[1] (filter): \(warning); see each stage's value with 'widgetd preview news --trace'")
            ])

        let text = await widgetd(["preview", "news", "--config", folder.file("widgets.d").path, "--trace"])
        #expect(text.stdout.contains("transforms[1] (filter)  0 ms\n  ! emptied: \(warning)\n  an empty list\n"))
        #expect(text.stdout.hasSuffix("snapshot: fresh, 0 entries, 1 warning"))
    }

    @Test func aFailedStageIsMarkedAndTheStagesBeforeItStay() async throws {
        try writeNews(where: "@.score > 5")
        try folder.write(
            "widgets.d/news.json",
            try folder.read("widgets.d/news.json").replacingOccurrences(of: #""$.articles[*]""#, with: #""$.status""#))
        let result = await widgetd(["preview", "news", "--config", folder.file("widgets.d").path, "--trace"])
        #expect(result.status == 1)
        let stages = result.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") && !$0.isEmpty }
        #expect(
            stages == [
                "trace of news at 2026-11-22T08:00:00Z", "source (http)  42 ms", "parser (json)  0 ms", "transforms[0] (select)  0 ms",
                "transforms[1] (filter)  0 ms",
                "snapshot: placeholder, 0 entries; error: transforms[1] (filter): filter needs a list, but the value is string; select a list first",
            ])
        #expect(result.stdout.contains("  ! failed: filter needs a list, but the value is string; select a list first\n"))
        #expect(result.stderr == "Error: news: transforms[1] (filter): filter needs a list, but the value is string; select a list first")
    }

    @Test func theReadmesTraceIsWhatPreviewPrints() async throws {
        // The README's first widget and its trace, against the answer it was made with, served here.
        let readme = try String(contentsOf: Widgetd.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## A first widget in five minutes").dropFirst().first)
        let blocks = section.components(separatedBy: "   ```")
        let definition = try #require(blocks.first { $0.hasPrefix("json\n") }).dropFirst(5)
        let shown = try #require(blocks.first { $0.hasPrefix("\n   trace of weather") })
        let expected = shown.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().dropLast()
            .map { $0.hasPrefix("   ") ? String($0.dropFirst(3)) : String($0) }.joined(separator: "\n")
        let body =
            #"{"latitude":52.52,"longitude":13.419998,"generationtime_ms":0.0262,"utc_offset_seconds":0,"timezone":"GMT","timezone_abbreviation":"GMT","elevation":38.0,"#
            + #""current_units":{"time":"iso8601","interval":"seconds","temperature_2m":"°C"},"current":{"time":"2026-11-26T21:45","interval":900,"temperature_2m":3.1}}"#
        let clock = ManualClock(now: try #require(Timestamp.date("2026-11-26T21:47:59Z")))
        let meteo = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/v1/forecast") { _ in
                clock.advance(by: 0.003)
                return .text(body, contentType: "application/json; charset=utf-8")
            }
        ])
        try folder.write("widgets.d/weather.json", String(definition))
        let output = Mutex<[String]>([])
        let environment = CommandEnvironment(
            registry: .builtIn, clock: clock, secrets: SecretStore(), variables: [:],
            print: { line in output.withLock { $0.append(line) } },
            printError: { _ in })
        let origin = "http://127.0.0.1:\(meteo.port)"
        let status = await WidgetCommandLine.main(
            [
                "preview", "weather", "--config", folder.file("widgets.d").path, "--trace", "--rewrite-origin",
                "https://api.open-meteo.com=\(origin)",
            ],
            environment: environment)
        #expect(status == 0)
        #expect(output.withLock { $0.joined(separator: "\n") } == expected.replacingOccurrences(of: "http://127.0.0.1:8080", with: origin))
    }

    @Test func formatWithoutTraceIsAUsageError() async throws {
        try writeNews()
        let result = await widgetd(["preview", "news", "--config", folder.file("widgets.d").path, "--format", "json"])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "Error: --format applies to --trace; the snapshot is always JSON (add --trace to see each stage)\nRun 'widgetd preview --help' for its options."
        )
        let wrong = await widgetd(["preview", "news", "--config", folder.file("widgets.d").path, "--trace", "--format", "yaml"])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.hasPrefix("Error: --format takes 'text' or 'json', not 'yaml'"))
    }

    // MARK: - Warnings in snapshots and status

    @Test func anEmptiedListIsAWarningInTheSnapshotAndInStatus() async throws {
        try writeNews(where: "@.score > 100")
        let out = folder.file("out").path
        let run = await widgetd(["run", "--config", folder.file("widgets.d").path, "--out", out, "--once"])
        #expect(run.status == 0, "\(run.stderr)")
        let warning =
            "transforms[1] (filter): gave an empty list from a list of 5 items; see each stage's value with 'widgetd preview news --trace'"
        let logged = run.stderr.split(separator: "\n").filter { $0.contains("news: fresh, 0 entries in ") }
        #expect(logged.count == 1 && logged[0].hasSuffix(" ms; next at 2026-11-22T09:00:00Z — warning: \(warning)"), "\(run.stderr)")
        let snapshot = try JSONReader.read(Data(contentsOf: folder.file("out/news.json")))
        #expect(snapshot["schemaVersion"] == 2)
        #expect(snapshot["status"] == "fresh")
        #expect(snapshot["entries"] == [])
        #expect(snapshot["warnings"] == [.string(warning)])
        #expect(try JSONReader.read(Data(contentsOf: folder.file("out/index.json")))["schemaVersion"] == 1)

        let status = await widgetd(["status", "--out", out])
        #expect(status.status == 0, "\(status.stdout)")
        #expect(
            status.stdout.hasSuffix(
                "\n\nWarnings (the refresh succeeded, but a stage left nothing or weakens something):\n  news: \(warning)"))
        let json = await widgetd(["status", "--out", out, "--format", "json"])
        #expect(try JSONReader.read(json.stdout)["widgets"]?[0]?["warnings"] == [.string(warning)])
    }

    @Test func aSnapshotWrittenBeforeWarningsIsStillRead() throws {
        let value = try JSONReader.read(
            #"""
            {"schemaVersion": 1, "id": "news", "title": null, "status": "fresh", "generatedAt": "2026-11-22T08:00:00Z",
             "lastSuccessAt": "2026-11-22T08:00:00Z", "nextRefreshAt": null, "entries": [], "error": null}
            """#)
        let snapshot = try #require(Snapshot(value: value))
        #expect(snapshot.warnings == [])
        #expect(snapshot.value["schemaVersion"] == 2)
        #expect(Snapshot(value: snapshot.value) == snapshot)
        var future = value.object ?? [:]
        future["schemaVersion"] = 3
        #expect(Snapshot(value: .object(future)) == nil)
    }
}
