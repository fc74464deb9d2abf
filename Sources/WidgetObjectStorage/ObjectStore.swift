public import Foundation

/// A bucket of an S3-compatible object store, seen as keys and bytes: what the bucket output, its
/// leases and its state need. ``S3Client`` speaks it to a real server; tests may use one in memory.
///
/// Keys are relative to the bucket (the output's prefix included). Every call is one logical request:
/// an implementation retries what is worth retrying (a 5xx, `SlowDown`, a reset, a timeout) a few times
/// with backoff and jitter before it throws.
public protocol ObjectStore: Sendable {
    /// Writes `object` whole under `key` if `condition` holds.
    ///
    /// - Returns: The object's new entity tag, as the store gave it (quotes removed).
    /// - Throws: ``ObjectStoreError`` with ``ObjectStoreError/Kind/preconditionFailed`` when the
    ///   condition does not hold (HTTP 412), or another kind when the store failed.
    func put(_ key: String, _ object: ObjectUpload, condition: WriteCondition) async throws(ObjectStoreError) -> String

    /// The object under `key`, or `nil` when there is none.
    func get(_ key: String) async throws(ObjectStoreError) -> StoredObject?

    /// Deletes the object under `key`; deleting one that is not there succeeds. With a condition
    /// (`ifMatch`), a store that does not hold it answers ``ObjectStoreError/Kind/preconditionFailed``.
    func delete(_ key: String, condition: WriteCondition) async throws(ObjectStoreError)

    /// Every object whose key starts with `prefix`, in key order (all pages).
    func list(prefix: String) async throws(ObjectStoreError) -> [ListedObject]
}

/// What a PUT sends: the bytes and the headers a CDN or browser reads.
public struct ObjectUpload: Sendable, Equatable {
    /// The bytes, sent whole.
    public var data: Data
    /// `Content-Type`, e.g. `application/json`, `text/html; charset=utf-8`.
    public var contentType: String
    /// `Cache-Control`, e.g. `public, max-age=60`; nil sends none.
    public var cacheControl: String?

    /// An upload of `data` with its `Content-Type` and, if any, its `Cache-Control`.
    public init(data: Data, contentType: String, cacheControl: String? = nil) {
        self.data = data
        self.contentType = contentType
        self.cacheControl = cacheControl
    }
}

/// A condition on a write or delete (RFC 9110 §13.1).
public enum WriteCondition: Sendable, Equatable {
    /// Always.
    case none
    /// `If-None-Match: *`: only when no object has the key (creating a lease).
    case ifNoneMatch
    /// `If-Match: "etag"`: only when the object is still the one with this entity tag (renewing a lease).
    case ifMatch(String)
}

/// An object as read back.
public struct StoredObject: Sendable, Equatable {
    /// The bytes.
    public var data: Data
    /// The entity tag, quotes removed.
    public var etag: String
    /// `Content-Type` as the store gives it back.
    public var contentType: String?
    /// `Last-Modified`, when the store sent one.
    public var lastModified: Date?
    /// `Cache-Control` as the store gives it back, when it keeps it.
    public var cacheControl: String?

    /// An object as read back; what the store did not send stays `nil`.
    public init(data: Data, etag: String, contentType: String? = nil, lastModified: Date? = nil, cacheControl: String? = nil) {
        self.data = data
        self.etag = etag
        self.contentType = contentType
        self.lastModified = lastModified
        self.cacheControl = cacheControl
    }
}

/// One entry of a listing.
public struct ListedObject: Sendable, Equatable {
    /// The key, relative to the bucket.
    public var key: String
    /// The entity tag, quotes removed.
    public var etag: String
    /// The size in bytes.
    public var size: Int

    /// An entry for `key`.
    public init(key: String, etag: String, size: Int) {
        self.key = key
        self.etag = etag
        self.size = size
    }
}

/// Why a request to the object store failed, with the store's own code and message when it sent one.
/// Its description never carries a credential or a signature.
public struct ObjectStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure, for callers that react differently to each.
    public enum Kind: Sendable, Equatable {
        /// 412: a condition did not hold (another holds the lease).
        case preconditionFailed
        /// 403 or 401: a wrong key, a bad signature, no permission (`InvalidAccessKeyId`,
        /// `SignatureDoesNotMatch`, `AccessDenied`). Not retried.
        case denied
        /// 404 `NoSuchBucket`. Not retried.
        case noSuchBucket
        /// 503 `SlowDown` or 429: retried later, after `retryAfter` seconds when the store said so.
        case throttled(retryAfter: Double?)
        /// Another 5xx.
        case server(status: Int)
        /// No answer: refused, reset, timed out, unresolvable.
        case unreachable
        /// Any other answer (a 4xx the client did not expect).
        case other(status: Int)
    }

    /// What kind of failure.
    public var kind: Kind
    /// The store's `Code` (e.g. `SignatureDoesNotMatch`), when it sent one.
    public var code: String?
    /// What went wrong, for people: the request (method and key), the status, the store's message.
    public var message: String

    /// An error of `kind`, with the store's `code`, saying `message` (which must hold no credential).
    public init(_ kind: Kind, code: String? = nil, message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    /// Whether trying again later may succeed (throttling, a server error, no answer).
    public var isTransient: Bool {
        switch kind {
        case .throttled, .server, .unreachable: true
        case .preconditionFailed, .denied, .noSuchBucket, .other: false
        }
    }

    public var description: String { message }
}
