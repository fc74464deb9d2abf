import Foundation
import Synchronization
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages
import WidgetTestSupport
import WidgetTesting

@testable import WidgetCommands

/// `widgetd history ID`: a widget's series as CSV or JSON, read from the output folder, and an id without
/// a history answered with the ids that have one.
struct HistoryCommandTests {
    let out: TemporaryFolder
    let start = Timestamp.date("2026-11-29T07:00:00Z")!

    init() throws {
        out = try TemporaryFolder("widgetd-history")
        let store = SnapshotStore(directory: out.url)
        try store.createFolders()
        let reader = DefinitionReader(registry: .builtIn)
        let result = reader.read(
            Data(#"{"source": {"url": "https://example.com/p.json"}, "history": {"values": {"total": "$.total", "note": "$.note"}}}"#.utf8),
            file: "widgets.d/portfolio.json")
        let definition = try #require(result.widgets.first?.definition)
        for (index, content) in [#"{"total": 0.1, "note": "up, a lot"}"#, #"{"total": 12345678901234567890.25}"#].enumerated() {
            let now = start + Double(index * 300)
            let snapshot = Snapshot(
                id: "portfolio", title: nil, status: .fresh, generatedAt: now, lastSuccessAt: now, nextRefreshAt: nil,
                entries: [TimelineEntry(date: now, content: try JSONReader.read(content))], error: nil)
            try store.write(snapshot)
            try store.history.record(snapshot, definition: definition)
        }
        try store.write(
            Snapshot(
                id: "plain", title: nil, status: .fresh, generatedAt: start, lastSuccessAt: start, nextRefreshAt: nil,
                entries: [TimelineEntry(date: start, content: .object([:]))], error: nil))
    }

    func history(_ arguments: [String]) async -> (status: Int32, stdout: String, stderr: String) {
        await widgetd(["history"] + arguments + ["--out", out.path])
    }

    func widgetd(_ arguments: [String], at now: Date? = nil) async -> (status: Int32, stdout: String, stderr: String) {
        let printed = Mutex<[String]>([])
        let errors = Mutex<[String]>([])
        let environment = CommandEnvironment(
            registry: .builtIn, clock: ManualClock(now: now ?? start), secrets: SecretStore(environment: [:]), variables: [:],
            print: { text in printed.withLock { $0.append(text) } }, printError: { text in errors.withLock { $0.append(text) } })
        let status = await WidgetCommandLine.main(arguments, environment: environment)
        return (status, printed.withLock { $0.joined(separator: "\n") }, errors.withLock { $0.joined(separator: "\n") })
    }

    @Test func csvIsTheDefaultWithAHeaderAndOneLinePerPoint() async {
        let result = await history(["portfolio"])
        #expect(result.status == 0)
        #expect(
            result.stdout
                == [
                    "series,at,value",
                    "total,2026-11-29T07:00:00Z,0.1",
                    "total,2026-11-29T07:05:00Z,12345678901234567890.25",
                    #"note,2026-11-29T07:00:00Z,"up, a lot""#,
                ].joined(separator: "\n"))
        #expect(await history(["portfolio", "--format", "csv"]).stdout == result.stdout)
    }

    @Test func jsonGivesTheSeriesAsListsOfPoints() async throws {
        let result = await history(["--format", "json", "portfolio"])
        #expect(result.status == 0)
        let value = try JSONReader.read(result.stdout)
        #expect(value["id"] == .string("portfolio"))
        #expect(
            JSONWriter.string(value["series"] ?? .null)
                == #"{"total":[{"at":"2026-11-29T07:00:00Z","value":0.1},{"at":"2026-11-29T07:05:00Z","value":12345678901234567890.25}],"note":[{"at":"2026-11-29T07:00:00Z","value":"up, a lot"}]}"#
        )
    }

    @Test func anUnknownIdNamesTheWidgetsWithAHistory() async {
        let result = await history(["portfolo"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr
                == "Error: no widget portfolo has a history in \(out.path); did you mean 'portfolio'? the widgets with one are portfolio")
    }

    @Test func aWidgetWithoutAHistorySaysHowToKeepOne() async {
        let result = await history(["plain"])
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix(
                "Error: the widget plain in \(out.path) has no history yet: a widget keeps one point per fresh refresh once its definition has \"history\""
            ))
    }

    @Test func previewTemplatesReadTheHistoryOfTheOutputFolderWithoutChangingIt() async throws {
        let config = try TemporaryFolder("widgetd-history-config")
        try config.write(
            "portfolio.json",
            #"{"source": {"path": "data.json"}, "history": {"values": {"total": "$.total", "note": "$.note"}}, "transforms": [{"type": "compute", "fields": {"seen": "{{ history.total | size }}"}}]}"#
        )
        try config.write("data.json", #"{"total": 5}"#)
        let before = try Data(contentsOf: out.file("portfolio.history.json"))

        let read = await widgetd(["preview", "portfolio", "--config", config.path, "--out", out.path])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(try JSONReader.read(read.stdout)["entries"]?[0]?["content"]?["seen"] == .number(2))
        #expect(try Data(contentsOf: out.file("portfolio.history.json")) == before)

        let empty = await widgetd(["preview", "portfolio", "--config", config.path])
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(try JSONReader.read(empty.stdout)["entries"]?[0]?["content"]?["seen"] == .number(0))
    }

    @Test func previewShowsANotificationBodyReadingTheHistoryWithThisRefreshsPoint() async throws {
        let config = try TemporaryFolder("widgetd-history-notify")
        try config.write(
            "portfolio.json",
            #"{"source": {"path": "data.json"}, "history": {"values": {"total": "$.total", "note": "$.note"}}, "notify": [{"name": "up", "on": "condition", "if": "value.total > 1", "webhook": {"url": "https://x.example", "body": "{{ history.total | size }} points, last {{ history.total.last.value }}"}}]}"#
        )
        try config.write("data.json", #"{"total": 5}"#)
        // Ten minutes after the first saved point: the two saved, then this refresh's.
        let result = await widgetd(["preview", "portfolio", "--config", config.path, "--trace", "--out", out.path], at: start + 600)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("    body: 3 points, last 5"), "\(result.stdout)")
    }

    @Test func theCommandIsListedWithItsHelp() async {
        #expect(WidgetCommandLine.help.contains("  history   \(HistoryCommand.summary)"))
        #expect(HistoryCommand.help.hasPrefix("Usage: widgetd history ID [--out DIR"))
        let result = await history(["--format", "xml", "portfolio"])
        #expect(result.status == 2)
    }
}
