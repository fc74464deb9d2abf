import Foundation
import Synchronization
import Testing
import WidgetCommands
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTestSupport
import WidgetTesting

/// Paged sources and host settings through the command line, run in this process on a manual clock:
/// `preview --trace` shows each page, a loop's warning reaches the trace, and `validate` and `run` check
/// `hosts.settings`.
@Suite(.timeLimit(.minutes(2)))
struct PaginationCommandTests {
    /// 2026-11-22T08:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_795_334_400)

    let clock = ManualClock(now: PaginationCommandTests.now)
    let server: TestHTTPServer
    let folder: TemporaryFolder

    init() throws {
        server = try TestHTTPServer(routes: [
            // Seven pages of five issues; the Link header repeats the key, as some APIs do.
            TestHTTPRoute("GET", "/issues") { request in
                guard request.query("key") == "k3y-s3cr3t" else { return .json(["error": "bad key"], status: 401) }
                let page = Int(request.query("page") ?? "1") ?? 1
                let items = WidgetValue.array((0..<5).map { .object(["number": .number(WidgetNumber((page - 1) * 5 + $0))]) })
                guard page < 7 else { return .json(items) }
                return .json(items, headers: ["Link": "</issues?key=k3y-s3cr3t&page=\(page + 1)>; rel=\"next\""])
            },
            // Page 2 names itself as the next page.
            TestHTTPRoute("GET", "/loop") { request in
                .json(["items": [.string(request.query("page") ?? "1")]], headers: ["Link": "</loop?page=2>; rel=\"next\""])
            },
        ])
        folder = try TemporaryFolder()
    }

    /// Runs `widgetd ARGUMENTS` in this process; returns the exit status, standard output and error.
    func widgetd(_ arguments: [String]) async -> (status: Int32, stdout: String, stderr: String) {
        let output = Mutex<[String]>([])
        let errors = Mutex<[String]>([])
        let environment = CommandEnvironment(
            registry: .builtIn, clock: clock, secrets: SecretStore(environment: ["KEY": "k3y-s3cr3t"]), variables: [:],
            print: { line in output.withLock { $0.append(line) } },
            printError: { line in errors.withLock { $0.append(line) } }
        )
        let status = await WidgetCommandLine.main(arguments, environment: environment)
        return (status, output.withLock { $0.joined(separator: "\n") }, errors.withLock { $0.joined(separator: "\n") })
    }

    func write(_ id: String, url: String, pages: String) throws {
        try folder.write(
            "widgets.d/\(id).json",
            #"{"source": {"url": "\#(url)", "pages": \#(pages)}, "parser": "json", "timeline": "single", "schedule": {"every": "1h"}}"#)
    }

    @Test func previewTraceShowsEachPageWithSecretsMasked() async throws {
        try write("issues", url: server.url("/issues").absoluteString + "?key={{ env.KEY }}", pages: #"{"next": "link"}"#)
        let result = await widgetd(["preview", "issues", "--config", folder.file("widgets.d").path, "--trace"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let pages = lines.filter { $0.hasPrefix("    page ") }
        #expect(pages.count == 7)
        #expect(pages.first?.hasPrefix("    page 1: GET http://127.0.0.1:\(server.port)/issues?key=***, 200, ") == true)
        #expect(pages.last?.hasPrefix("    page 7: GET http://127.0.0.1:\(server.port)/issues?key=***&page=7, 200, ") == true)
        #expect(pages.allSatisfy { $0.hasSuffix(" bytes, 5 items") })
        #expect(lines.contains("  a list of 35 items"))
        #expect(!result.stdout.contains("k3y-s3cr3t"))
        #expect(server.requestCount(path: "/issues") == 7)
    }

    @Test func aLoopsWarningReachesTheTraceAndTheSnapshot() async throws {
        try write("loop", url: server.url("/loop").absoluteString, pages: #"{"next": "link", "items": "$.items"}"#)
        let config = folder.file("widgets.d").path
        let trace = await widgetd(["preview", "loop", "--config", config, "--trace"])
        #expect(trace.status == 0, "\(trace.stderr)")
        #expect(
            trace.stdout.contains(
                #"  ! warning: page 3 would repeat page 2 (the same next link), so the pages stopped at page 2; check "pages""#))
        #expect(server.requestCount(path: "/loop") == 2)

        let run = await widgetd(["run", "--config", config, "--out", folder.file("out").path, "--once"])
        #expect(run.status == 0, "\(run.stderr)")
        let snapshot = try OutputFolder.snapshot("loop", in: folder.file("out"))
        #expect(snapshot["status"] == "fresh")
        #expect(snapshot["entries"]?[0]?["content"] == ["1", "2"])
        let warnings = try #require(snapshot["warnings"]?.array)
        #expect(warnings.count == 1)
        #expect(warnings.first?.string?.hasPrefix("source: page 3 would repeat page 2") == true)
    }

    @Test func validateNamesEachProblemOfHostsSettingsAndRunRefusesToStart() async throws {
        try write("issues", url: server.url("/issues").absoluteString + "?key={{ env.KEY }}", pages: #"{"next": "link"}"#)
        try folder.write(
            "widgets.d/hosts.settings",
            """
            {
              "hosts": {
                "https://api.github.com/": {"perMinute": 30},
                "example.com": {"perMinute": 0, "burst": 2},
                "127.0.0.1": {"perMinute": 60}
              },
              "retry": true
            }
            """)
        let config = folder.file("widgets.d").path
        let result = await widgetd(["validate", "--config", config])
        #expect(result.status == 1)
        let file = config + "/hosts.settings"
        #expect(
            result.stdout.split(separator: "\n").map(String.init) == [
                #"\#(file):3:5: $.hosts['https://api.github.com/']: "https://api.github.com/" is not a host name; write the host alone, without scheme or path, e.g. "api.github.com""#,
                #"\#(file):4:34: $.hosts['example.com'].perMinute: "perMinute" must be a whole number from 1 to 6000, not 0"#,
                #"\#(file):4:37: $.hosts['example.com'].burst: "burst" is not a host setting; the one setting is "perMinute""#,
                #"\#(file):7:3: $.retry: "retry" is not a setting; the one setting is "hosts""#,
            ])
        #expect(result.stderr == "1 file checked, 1 widget valid, 4 problems")

        let run = await widgetd(["run", "--config", config, "--out", folder.file("out").path, "--once"])
        #expect(run.status == 2)
        #expect(run.stderr.contains(#"\#(file):7:3: $.retry: "retry" is not a setting"#))
        #expect(server.requestCount(path: "/issues") == 0)

        try folder.write("widgets.d/hosts.settings", #"{"hosts": {"127.0.0.1": {"perMinute": 60}}}"#)
        #expect(await widgetd(["validate", "--config", config]).status == 0)
    }

    @Test func aSettingsFileThatIsNotJSONSaysWhere() throws {
        #expect(throws: HostSettingsError.self) { try HostSettings.parse(Data("{\"hosts\": ".utf8), file: "hosts.settings") }
        do {
            _ = try HostSettings.parse(Data("[1]".utf8), file: "w/hosts.settings")
        } catch {
            #expect(
                error.description
                    == #"w/hosts.settings:1:1: $: the settings are an object: write {"hosts": {"api.github.com": {"perMinute": 30}}}"#)
        }
        let settings = try HostSettings.parse(Data(#"{"hosts": {"API.example.com": {"perMinute": 5}, "h:81": {}}}"#.utf8), file: "f")
        #expect(settings.host(for: URL(string: "https://api.example.com/x")!)?.host.perMinute == 5)
        #expect(settings.host(for: URL(string: "http://h:81/")!)?.name == "h:81")
        #expect(settings.host(for: URL(string: "http://h:82/")!) == nil)
    }
}
