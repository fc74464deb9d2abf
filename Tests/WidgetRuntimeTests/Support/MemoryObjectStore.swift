import Foundation
import Synchronization
import WidgetObjectStorage

/// A bucket in memory, for the bucket output's and the lease's tests: conditional writes as S3 does them,
/// a count of every request, and failures on demand (the whole store down, or the next requests failing
/// with a given kind). Tests against a real server use SeaweedFS.
final class MemoryObjectStore: ObjectStore {
    private struct State {
        var objects: [String: StoredObject] = [:]
        var uploads: [String: ObjectUpload] = [:]
        var puts = 0
        var gets = 0
        var deletes = 0
        var lists = 0
        /// While set, every request fails with it.
        var down: ObjectStoreError.Kind?
        /// The next requests fail with these, in order.
        var failures: [ObjectStoreError.Kind] = []
        var nextTag = 0
    }

    private let state = Mutex(State())

    init() {}

    /// Makes every request fail with `kind` until ``comeBack()``.
    func goDown(_ kind: ObjectStoreError.Kind = .unreachable) { state.withLock { $0.down = kind } }
    /// Ends ``goDown(_:)``.
    func comeBack() { state.withLock { $0.down = nil } }
    /// Makes the next requests fail with `kinds`, one each.
    func failNext(_ kinds: [ObjectStoreError.Kind]) { state.withLock { $0.failures += kinds } }

    /// The number of PUTs, GETs, DELETEs and listings answered (failed ones included).
    var counts: (puts: Int, gets: Int, deletes: Int, lists: Int) {
        state.withLock { ($0.puts, $0.gets, $0.deletes, $0.lists) }
    }
    /// The keys held, sorted.
    var keys: [String] { state.withLock { $0.objects.keys.sorted() } }
    /// The object under `key` with the headers it was written with.
    func upload(_ key: String) -> ObjectUpload? { state.withLock { $0.uploads[key] } }
    /// The bytes under `key`.
    func data(_ key: String) -> Data? { state.withLock { $0.objects[key]?.data } }

    private func failure(_ method: String, _ key: String, in state: inout State) -> ObjectStoreError? {
        if let down = state.down { return ObjectStoreError(down, message: "\(method) \(key): the store is down") }
        guard !state.failures.isEmpty else { return nil }
        return ObjectStoreError(state.failures.removeFirst(), message: "\(method) \(key): told to fail")
    }

    func put(_ key: String, _ object: ObjectUpload, condition: WriteCondition) async throws(ObjectStoreError) -> String {
        let result = state.withLock { state -> Result<String, ObjectStoreError> in
            state.puts += 1
            if let error = failure("PUT", key, in: &state) { return .failure(error) }
            switch condition {
            case .none: break
            case .ifNoneMatch:
                if state.objects[key] != nil { return .failure(ObjectStoreError(.preconditionFailed, message: "PUT \(key): 412")) }
            case .ifMatch(let tag):
                if state.objects[key]?.etag != tag { return .failure(ObjectStoreError(.preconditionFailed, message: "PUT \(key): 412")) }
            }
            state.nextTag += 1
            let tag = "tag-\(state.nextTag)"
            state.objects[key] = StoredObject(data: object.data, etag: tag, contentType: object.contentType)
            state.uploads[key] = object
            return .success(tag)
        }
        return try result.get()
    }

    func get(_ key: String) async throws(ObjectStoreError) -> StoredObject? {
        let result = state.withLock { state -> Result<StoredObject?, ObjectStoreError> in
            state.gets += 1
            if let error = failure("GET", key, in: &state) { return .failure(error) }
            return .success(state.objects[key])
        }
        return try result.get()
    }

    func delete(_ key: String, condition: WriteCondition) async throws(ObjectStoreError) {
        let result = state.withLock { state -> Result<Void, ObjectStoreError> in
            state.deletes += 1
            if let error = failure("DELETE", key, in: &state) { return .failure(error) }
            if case .ifMatch(let tag) = condition, let held = state.objects[key], held.etag != tag {
                return .failure(ObjectStoreError(.preconditionFailed, message: "DELETE \(key): 412"))
            }
            state.objects[key] = nil
            state.uploads[key] = nil
            return .success(())
        }
        try result.get()
    }

    func list(prefix: String) async throws(ObjectStoreError) -> [ListedObject] {
        let result = state.withLock { state -> Result<[ListedObject], ObjectStoreError> in
            state.lists += 1
            if let error = failure("LIST", prefix, in: &state) { return .failure(error) }
            return .success(
                state.objects.filter { $0.key.hasPrefix(prefix) }.sorted { $0.key < $1.key }.map {
                    ListedObject(key: $0.key, etag: $0.value.etag, size: $0.value.data.count)
                })
        }
        return try result.get()
    }
}
