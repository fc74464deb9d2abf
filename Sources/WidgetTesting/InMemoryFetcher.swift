import Foundation
import Synchronization
public import WidgetCore

/// A source that serves payloads a test sets in an ``InMemorySource``: `{"type": "memory", "key": "news"}`.
///
/// ```swift
/// let source = InMemorySource()
/// source.set("news", json: #"{"items": []}"#)
/// var resources = StageResources()
/// resources.insert(source)
/// ```
public struct InMemoryFetcher: Fetcher {
    public struct Options: Decodable, Sendable {
        /// Which payload of the ``InMemorySource`` to serve.
        public var key: String
    }

    public static let typeName = "memory"
    public static let summary = "Serves a payload held in memory (for tests)."

    /// Which payload of the ``InMemorySource`` this fetcher serves: the `key` option.
    public let key: String

    public init(options: Options) {
        key = options.key
    }

    public func fetch(context: StageContext) async throws -> Payload {
        guard let source = context.resources[InMemorySource.self] else {
            throw StageError("no InMemorySource is among the stage resources; insert one in the context's resources")
        }
        return try source.fetch(key)
    }
}

/// The payloads an ``InMemoryFetcher`` serves, by key; safe to change while a daemon runs.
public final class InMemorySource: Sendable {
    private let payloads = Mutex<[String: Result<Payload, StageError>]>([:])
    private let counts = Mutex<[String: Int]>([:])

    /// A source with no payloads: every fetch fails until a key is set.
    public init() {}

    /// Serves `payload` for `key` from now on.
    public func set(_ key: String, payload: Payload) {
        payloads.withLock { $0[key] = .success(payload) }
    }

    /// Serves `json` as an `application/json` payload for `key`.
    public func set(_ key: String, json: String) {
        set(key, payload: Payload(data: Data(json.utf8), contentType: "application/json", origin: "memory:\(key)"))
    }

    /// Makes fetches of `key` fail with `message`.
    public func fail(_ key: String, message: String, retryAfter: Double? = nil) {
        payloads.withLock { $0[key] = .failure(StageError(message, retryAfter: retryAfter)) }
    }

    /// How many times `key` was fetched.
    public func fetchCount(_ key: String) -> Int {
        counts.withLock { $0[key] ?? 0 }
    }

    func fetch(_ key: String) throws(StageError) -> Payload {
        counts.withLock { $0[key, default: 0] += 1 }
        guard let result = payloads.withLock({ $0[key] }) else {
            throw StageError("the in-memory source has no payload for '\(key)'")
        }
        return try result.get()
    }
}
