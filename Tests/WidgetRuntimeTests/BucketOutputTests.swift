import Foundation
import Testing
import WidgetObjectStorage
import WidgetRuntime
import WidgetTestSupport
import WidgetTesting

/// The bucket output over a bucket in memory: what arrives in the bucket, with which headers, what is
/// not sent again, and what a start in an empty working folder restores.
struct BucketOutputTests {
    static let json = OutputObject(contentType: "application/json", cacheControl: "public, max-age=60")
    static let state = OutputObject(contentType: "application/json", cacheControl: "no-store")
    static let page = OutputObject(
        contentType: "text/html; charset=utf-8", cacheControl: "public, max-age=5", durability: .rebuildable, flush: .later)

    static func output(
        _ store: MemoryObjectStore, work: URL, clock: ManualClock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
    ) -> BucketOutput {
        BucketOutput(store: store, bucket: "widgets", prefix: "prod", workFolder: work, clock: clock)
    }

    @Test func writesArriveAsObjectsWithTheirHeaders() async throws {
        let folder = try TemporaryFolder()
        let store = MemoryObjectStore()
        let output = Self.output(store, work: folder.url)
        try await output.prepare()
        try output.write(Data("{\"a\":1}\n".utf8), to: "news.json", as: Self.json)
        try output.write(Data("<html></html>".utf8), to: "index.html", as: Self.page)
        try output.write(Data("{}".utf8), to: ".state/news.json", as: Self.state)
        output.flush()
        #expect(await output.drain(timeout: 60).isComplete)
        #expect(store.keys == ["prod/.state/news.json", "prod/index.html", "prod/news.json"])
        #expect(
            store.upload("prod/news.json")
                == ObjectUpload(data: Data("{\"a\":1}\n".utf8), contentType: "application/json", cacheControl: "public, max-age=60"))
        #expect(store.upload("prod/index.html")?.contentType == "text/html; charset=utf-8")
        #expect(store.upload("prod/.state/news.json")?.cacheControl == "no-store")
        #expect(output.read("news.json") == Data("{\"a\":1}\n".utf8))
        #expect(try folder.read("news.json") == "{\"a\":1}\n")
        #expect(output.health.puts == 3)
        #expect(output.description == "s3://widgets/prod/")
    }

    @Test func aWaveWithNothingChangedSendsNoPut() async throws {
        let folder = try TemporaryFolder()
        let store = MemoryObjectStore()
        let output = Self.output(store, work: folder.url)
        try await output.prepare()
        for wave in 0..<3 {
            for index in 0..<20 {
                try output.write(Data("{\"widget\":\(index)}".utf8), to: "w\(index).json", as: Self.json)
                try output.write(Data("{\"state\":\(index)}".utf8), to: ".state/w\(index).json", as: Self.state)
            }
            output.flush()
            #expect(await output.drain(timeout: 60).isComplete)
            #expect(store.counts.puts == 40, "wave \(wave)")
        }
        #expect(output.health.pendingObjects == 0)
    }

    @Test func theNewestWriteReplacesThePendingOne() async throws {
        let folder = try TemporaryFolder()
        let store = MemoryObjectStore()
        let output = Self.output(store, work: folder.url)
        try await output.prepare()
        for version in 1...5 {
            try output.write(Data("v\(version)".utf8), to: "news.json", as: Self.json)
        }
        #expect(output.health.pendingObjects == 1)
        #expect(await output.drain(timeout: 60).isComplete)
        #expect(store.data("prod/news.json") == Data("v5".utf8))
        #expect(store.counts.puts == 1)
    }

    @Test func aRemovalDeletesTheObject() async throws {
        let folder = try TemporaryFolder()
        let store = MemoryObjectStore()
        let output = Self.output(store, work: folder.url)
        try await output.prepare()
        try output.write(Data("a".utf8), to: "assets/ab12.png", as: OutputObject(contentType: "image/png"))
        #expect(await output.drain(timeout: 60).isComplete)
        #expect(output.names(in: "assets") == ["ab12.png"])
        output.remove("assets/ab12.png")
        output.remove("assets/never-written.png")
        #expect(output.names(in: "assets").isEmpty)
        #expect(await output.drain(timeout: 60).isComplete)
        #expect(store.keys.isEmpty)
        #expect(store.counts.deletes == 1)
        #expect(output.read("assets/ab12.png") == nil)
    }

    @Test func aPublishedFileIsUploadedOnce() async throws {
        let folder = try TemporaryFolder()
        let store = MemoryObjectStore()
        let output = Self.output(store, work: folder.url)
        try await output.prepare()
        try folder.write("assets/3f2a.png", "PNG")
        let asset = OutputObject(contentType: "image/png", cacheControl: "public, max-age=31536000, immutable")
        output.publish(localFile: "assets/3f2a.png", as: asset)
        output.publish(localFile: "assets/missing.png", as: asset)
        #expect(await output.drain(timeout: 60).isComplete)
        output.publish(localFile: "assets/3f2a.png", as: asset)
        #expect(await output.drain(timeout: 60).isComplete)
        #expect(
            store.upload("prod/assets/3f2a.png")
                == ObjectUpload(data: Data("PNG".utf8), contentType: "image/png", cacheControl: "public, max-age=31536000, immutable"))
        #expect(store.counts.puts == 1)
    }

    @Test func aStartInAnEmptyWorkingFolderRestoresStateAndSnapshots() async throws {
        let store = MemoryObjectStore()
        let first = try TemporaryFolder()
        let before = Self.output(store, work: first.url)
        try await before.prepare()
        try before.write(Data("{\"etag\":\"v1\",\"items\":[1]}".utf8), to: ".state/news.json", as: Self.state)
        try before.write(Data("{\"id\":\"news\"}".utf8), to: "news.json", as: Self.json)
        try before.write(Data("<html>".utf8), to: "index.html", as: Self.page)
        try before.write(Data("{}".utf8), to: "index.json", as: Self.json)
        try before.write(Data("{}".utf8), to: ".state/shards/1-of-2/lease.json", as: Self.state)
        #expect(await before.drain(timeout: 60).isComplete)

        let second = try TemporaryFolder()
        let after = Self.output(store, work: second.url.appendingPathComponent("work"))
        try await after.prepare()
        #expect(after.read(".state/news.json") == Data("{\"etag\":\"v1\",\"items\":[1]}".utf8))
        #expect(after.read("news.json") == Data("{\"id\":\"news\"}".utf8))
        #expect(after.read("index.html") == nil)
        #expect(after.read(".state/shards/1-of-2/lease.json") == nil)
        #expect(Set(after.names(in: "")).isSuperset(of: ["news.json", "index.html", "index.json"]))
        #expect(after.names(in: ".state").contains("news.json"))
        // What was restored is known to be the store's: writing it again sends nothing.
        let puts = store.counts.puts
        try after.write(Data("{\"etag\":\"v1\",\"items\":[1]}".utf8), to: ".state/news.json", as: Self.state)
        #expect(await after.drain(timeout: 60).isComplete)
        #expect(store.counts.puts == puts)
    }

    @Test func aWriteTheStoreNeverSawIsSentAfterARestart() async throws {
        let store = MemoryObjectStore()
        let folder = try TemporaryFolder()
        let before = Self.output(store, work: folder.url)
        try await before.prepare()
        try before.write(Data("v1".utf8), to: "news.json", as: Self.json)
        #expect(await before.drain(timeout: 60).isComplete)
        try before.write(Data("v2".utf8), to: "news.json", as: Self.json)
        try before.write(Data("gone".utf8), to: "old.json", as: Self.json)
        before.flush()

        let after = Self.output(store, work: folder.url)
        try await after.prepare()
        #expect(after.read("news.json") == Data("v2".utf8))
        #expect(after.health.pendingObjects == 2)
        #expect(await after.drain(timeout: 60).isComplete)
        #expect(
            store.upload("prod/news.json")
                == ObjectUpload(data: Data("v2".utf8), contentType: "application/json", cacheControl: "public, max-age=60"))
        #expect(store.data("prod/old.json") == Data("gone".utf8))
    }

    @Test func anObjectAnotherWroteReplacesTheStaleCopy() async throws {
        let store = MemoryObjectStore()
        let folder = try TemporaryFolder()
        let before = Self.output(store, work: folder.url)
        try await before.prepare()
        try before.write(Data("mine".utf8), to: ".state/news.json", as: Self.state)
        #expect(await before.drain(timeout: 60).isComplete)
        before.flush()
        // Another machine held the shard meanwhile.
        _ = try await store.put(
            "prod/.state/news.json", ObjectUpload(data: Data("theirs".utf8), contentType: "application/json"), condition: .none)

        let after = Self.output(store, work: folder.url)
        try await after.prepare()
        #expect(after.read(".state/news.json") == Data("theirs".utf8))
        #expect(after.health.pendingObjects == 0)
    }

    @Test(arguments: [
        (
            ObjectStoreError(.denied, code: "InvalidAccessKeyId", message: "LIST prod/: 403 The access key does not exist"),
            "AWS_ACCESS_KEY_ID"
        ),
        (ObjectStoreError(.noSuchBucket, code: "NoSuchBucket", message: "LIST prod/: 404 The bucket does not exist"), "Create it"),
        (ObjectStoreError(.unreachable, message: "LIST prod/: connection refused"), "--s3-endpoint"),
    ])
    func aStoreThatRefusesAtStartIsAClearError(failure: ObjectStoreError, fix: String) async throws {
        let folder = try TemporaryFolder()
        let store = FailingObjectStore(failure)
        let output = BucketOutput(store: store, bucket: "widgets", prefix: "prod", workFolder: folder.url)
        let error = await #expect(throws: StoreError.self) { try await output.prepare() }
        let message = error?.description ?? ""
        #expect(message.contains("widgets"))
        #expect(message.contains(failure.message))
        #expect(message.contains(fix))
        if let code = failure.code { #expect(message.contains(code)) }
    }

    @Test func keysOutsideTheWorkingFolderAreRefused() throws {
        let folder = try TemporaryFolder()
        let output = Self.output(MemoryObjectStore(), work: folder.url)
        #expect(throws: AtomicFileError.self) { try output.write(Data(), to: "../escape.json", as: Self.json) }
        #expect(throws: AtomicFileError.self) { try output.write(Data(), to: "/etc/x.json", as: Self.json) }
        #expect(output.read("../x") == nil)
    }
}

/// A store whose every request fails with one error: what `prepare()` turns into a start error.
private struct FailingObjectStore: ObjectStore {
    let error: ObjectStoreError
    init(_ error: ObjectStoreError) { self.error = error }
    func put(_ key: String, _ object: ObjectUpload, condition: WriteCondition) async throws(ObjectStoreError) -> String { throw error }
    func get(_ key: String) async throws(ObjectStoreError) -> StoredObject? { throw error }
    func delete(_ key: String, condition: WriteCondition) async throws(ObjectStoreError) { throw error }
    func list(prefix: String) async throws(ObjectStoreError) -> [ListedObject] { throw error }
}
