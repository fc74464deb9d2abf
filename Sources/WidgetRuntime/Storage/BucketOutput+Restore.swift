import Foundation
import Synchronization
import WidgetCore
import WidgetObjectStorage
import WidgetStages

extension BucketOutput {
    /// Checks that the bucket answers with these credentials, then restores into the working folder what
    /// the shard wrote before, possibly on another machine: lists the prefix and downloads the keys
    /// `restores` selects (every widget's state and snapshot) whose copy is missing or older, so the
    /// daemon continues with its fallback data, validators and budget. A key written here and not yet
    /// sent when the previous run stopped is queued again rather than overwritten.
    ///
    /// - Throws: `StoreError` naming the bucket, the store's code and a fix when the bucket cannot be
    ///   listed or read (a wrong key, a missing bucket, no answer), or the working folder cannot be made.
    public func prepare() async throws(StoreError) {
        for folder in ["", ".state", ".bucket", "assets"] {
            let path = folder.isEmpty ? workPath : "\(workPath)/\(folder)"
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw StoreError(
                    "Cannot create the working folder \(path) of \(description): \(error.localizedDescription); choose another with --work."
                )
            }
            AtomicFile.removeLeftovers(in: URL(fileURLWithPath: path, isDirectory: true))
        }
        let listing: [ListedObject]
        do {
            listing = try await store.list(prefix: prefix)
        } catch {
            throw startError(error, doing: "list")
        }
        let manifest = loadManifest()
        let now = clock.now()
        var downloads: [String] = []
        queue.withLock { queue in
            for object in listing where object.key.hasPrefix(prefix) {
                let key = String(object.key.dropFirst(prefix.count))
                guard Self.isValid(key) else { continue }
                queue.remote.insert(key)
                let known = manifest.uploaded[key].flatMap { $0.etag == object.etag ? $0 : nil }
                guard restores(key) else {
                    // Not downloaded: what the manifest says stands only while the object is the one it saw.
                    if let known { queue.uploaded[key] = known }
                    continue
                }
                guard let known, let copy = AtomicFile.contentsWithoutFollowingLinks(atPath: copyPath(key)) else {
                    downloads.append(key)
                    continue
                }
                // The bucket holds what this folder last sent: the copy is as new or newer.
                queue.uploaded[key] = known
                let copySHA256 = SHA256.hexDigest(of: copy)
                if copySHA256 != known.sha256, copySHA256 != known.equivalentSHA256, manifest.pending[key] == nil {
                    queue.enqueue(key, .put(Self.guessedObject(for: key)), at: now)
                }
            }
            for (key, pending) in manifest.pending where Self.isValid(key) {
                if pending.delete == true {
                    queue.enqueue(key, .delete, at: now)
                } else if !downloads.contains(key) {
                    let object = OutputObject(
                        contentType: pending.contentType ?? Self.guessedObject(for: key).contentType, cacheControl: pending.cacheControl)
                    queue.enqueue(key, .put(object), at: now)
                }
            }
            queue.manifestChanged = true
        }
        try await download(downloads)
        saveManifest()
        wake.signal()
    }

    /// Downloads `keys` into the working folder, a few at once, and records them as the store's.
    private func download(_ keys: [String]) async throws(StoreError) {
        let failure = await withTaskGroup(of: ObjectStoreError?.self) { group -> ObjectStoreError? in
            var next = keys.makeIterator()
            var running = 0
            var failure: ObjectStoreError?
            while true {
                while failure == nil, running < settings.concurrentRequests, let key = next.next() {
                    running += 1
                    group.addTask { await self.restore(key) }
                }
                guard running > 0, let result = await group.next() else { break }
                running -= 1
                if let result, failure == nil { failure = result }
            }
            return failure
        }
        if let failure { throw startError(failure, doing: "read") }
    }

    /// Downloads one key into its copy.
    private func restore(_ key: String) async -> ObjectStoreError? {
        let object: StoredObject?
        do {
            object = try await store.get(prefix + key)
        } catch {
            return error
        }
        guard let object else {
            queue.withLock { _ = $0.remote.remove(key) }
            return nil
        }
        let path = copyPath(key)
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        do {
            try AtomicFile.write(object.data, toPath: path, syncsFolder: false)
        } catch {
            return ObjectStoreError(.other(status: 0), message: error.description)
        }
        let sha256 = SHA256.hexDigest(of: object.data)
        queue.withLock { $0.uploaded[key] = BucketUploadQueue.Uploaded(sha256: sha256, etag: object.etag) }
        return nil
    }

    /// The headers of a key whose write was not recorded (a crash before the manifest was saved), from
    /// its name.
    static func guessedObject(for key: String) -> OutputObject {
        if key.hasPrefix(".state/") { return OutputObject(contentType: "application/json", cacheControl: "no-store") }
        let types = [
            "json": "application/json", "html": "text/html; charset=utf-8", "prom": "text/plain; version=0.0.4",
            "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
            "svg": "image/svg+xml", "avif": "image/avif",
        ]
        let ext = key.split(separator: ".").last.map { String($0).lowercased() } ?? ""
        return OutputObject(contentType: types[ext] ?? "application/octet-stream")
    }

    /// The error of a failed start: the bucket, the store's code and message, and what would fix it.
    func startError(_ error: ObjectStoreError, doing action: String) -> StoreError {
        let code = error.code.map { " (\($0))" } ?? ""
        let answer = "\(error.message)\(code)"
        switch error.kind {
        case .denied:
            return StoreError(
                "The object store refused to \(action) the bucket \(bucket) for --out \(description): \(answer). Check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or the files of those names in --secrets or $CREDENTIALS_DIRECTORY), and that this key may list, read and write \(bucket)."
            )
        case .noSuchBucket:
            return StoreError(
                "The bucket \(bucket) of --out \(description) does not exist: \(answer). Create it, or fix the bucket's name in --out (and --s3-endpoint or AWS_ENDPOINT_URL if it lives elsewhere)."
            )
        case .unreachable:
            return StoreError(
                "The object store of --out \(description) did not answer: \(answer). Check --s3-endpoint (or AWS_ENDPOINT_URL) and that the store is running and reachable."
            )
        case .throttled, .server:
            return StoreError(
                "The object store of --out \(description) failed to \(action) the bucket \(bucket): \(answer). It is busy or failing; start again later."
            )
        case .preconditionFailed, .other:
            return StoreError(
                "The object store of --out \(description) refused to \(action) the bucket \(bucket): \(answer). Check the bucket, --s3-region (or AWS_REGION) and --s3-path-style."
            )
        }
    }
}
