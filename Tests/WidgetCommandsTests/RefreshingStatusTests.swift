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

/// `status` lists a widget whose first refresh is under way as `refreshing`, with when it started, in
/// text and in JSON.
struct RefreshingStatusTests {
    let clock = ManualClock(now: Date(timeIntervalSince1970: 1_795_334_460))

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

    @Test func aWidgetInItsFirstRefreshIsListedAsRefreshingWithItsStart() async throws {
        let folder = try TemporaryFolder()
        let store = SnapshotStore(directory: folder.file("out"))
        try FileManager.default.createDirectory(at: store.directory, withIntermediateDirectories: true)
        // 2026-11-22T08:00:00Z, a minute before now.
        try store.write(Snapshot.refreshing(id: "news", title: "News", startedAt: Date(timeIntervalSince1970: 1_795_334_400)))

        let json = await widgetd(["status", "--out", store.directory.path, "--format", "json"])
        #expect(json.status == 1)
        let widget = try #require(try JSONReader.read(json.stdout)["widgets"]?[0])
        #expect(widget["id"] == "news")
        #expect(widget["status"] == "refreshing")
        #expect(widget["refreshStartedAt"] == "2026-11-22T08:00:00Z")
        #expect(widget["lastSuccessAt"] == .null)

        let text = await widgetd(["status", "--out", store.directory.path])
        let row = try #require(text.stdout.split(separator: "\n").first { $0.hasPrefix("news ") })
        #expect(row.contains(" refreshing "))
        #expect(row.hasSuffix("first refresh under way since 2026-11-22T08:00:00Z"))
    }
}
