import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends HTTP requests with limits that hold on every platform: a per-host limit on requests in flight,
/// a deadline for the whole exchange, a cap on the body, and a redirect limit.
///
/// URLSession alone does not give these guarantees everywhere (on Linux its request timeout also counts
/// time spent queued for a connection, its resource timeout is not enforced, and a cancelled transfer
/// keeps reading and queueing what the server sends), so the client enforces them itself:
/// - At most `maximumConnectionsPerHost` requests per host are sent at once; the others wait, in order,
///   in the client's own queue. A request's deadline starts when it leaves that queue and is sent.
/// - The body is streamed: the exchange stops as soon as it exceeds ``HTTPRequest/maxBytes`` (or at once
///   when `Content-Length` announces more), and when ``HTTPRequest/timeout`` passes, however slowly the
///   server is still sending.
/// - A response that brings less than ``HTTPRequest/minimumRate`` in a window once it has begun fails
///   then (`timedOut`), so a server that trickles gives its transfer back long before the deadline.
/// - A redirect to another origin (scheme, host, port) is followed without `Authorization`, `Cookie`,
///   `Proxy-Authorization` and every header field marked ``HTTPHeaders/Field/isSecret``; a 307 or 308
///   that would carry a body marked ``HTTPRequest/bodyIsSecret`` there fails instead.
/// - Nothing is cached and no cookies are kept: every request goes to the server.
/// - Cancelling the calling task cancels the request.
/// - On Linux the client drives libcurl itself, one transfer per thread (see ``Transport``): the first
///   byte past the cap closes the connection, and a deadline or a cancellation drops it at once, so
///   nothing a server sends afterwards is read or kept. Memory is bounded by the caps of the requests in
///   flight, whatever the servers do.
/// - Elsewhere each exchange has a URLSession of its own, invalidated when the exchange ends. No
///   connection is reused between requests; a widget refreshes every few minutes at most, so none would be.
///
/// A status of 400 or more is a response, not an error: the caller decides what it means.
///
/// One client is meant to be shared by everything that fetches; it is safe to use from any task.
///
/// ```swift
/// let client = HTTPClient(maximumConnectionsPerHost: 4)
/// let response = try await client.send(HTTPRequest(url: URL(string: "https://example.com/feed.json")!))
/// print(response.status, response.contentType ?? "?", response.body.count)
/// ```
public final class HTTPClient: Sendable {
    /// The most requests sent to one host at the same time.
    public let maximumConnectionsPerHost: Int

    private let limiter: HostLimiter
    private let userAgent: String
    #if os(Linux)
    /// The libcurl handles this client's transfers reuse, with their connections: `nil` when requests go
    /// through URLSession (the `urlSession` transport, or no libcurl).
    private let handles: CurlHandles?
    #endif
    /// Exchanges under way, for tests.
    private let live = Mutex(0)

    /// What carries the requests.
    public enum Transport: Sendable, Hashable {
        /// libcurl driven directly on Linux (see the notes above), URLSession elsewhere.
        case automatic
        /// URLSession everywhere: on Linux, FoundationNetworking's; for comparisons.
        case urlSession
    }

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - maximumConnectionsPerHost: The most requests in flight to one host; more wait their turn.
    ///   - userAgent: The `User-Agent` sent unless a request sets its own.
    ///   - transport: What carries the requests; leave it `automatic`.
    public init(
        maximumConnectionsPerHost: Int = 4, userAgent: String = "widgetd", transport: Transport = .automatic
    ) {
        #if os(Linux)
        handles = transport == .automatic ? CurlLibrary.shared.map(CurlHandles.init) : nil
        #endif
        let limit = max(1, maximumConnectionsPerHost)
        self.maximumConnectionsPerHost = limit
        limiter = HostLimiter(limit: limit)
        self.userAgent = userAgent
    }

    /// A session for one exchange: nothing cached or stored, the client's User-Agent.
    private func makeSession(delegate: HTTPSessionDelegate) -> (URLSession, OperationQueue) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpShouldSetCookies = false
        configuration.urlCredentialStorage = nil
        configuration.httpMaximumConnectionsPerHost = maximumConnectionsPerHost
        configuration.timeoutIntervalForRequest = HTTPExchange.silenceLimit(HTTPRequest.defaultConnectTimeout)
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        configuration.httpAdditionalHeaders = ["User-Agent": userAgent]
        let queue = OperationQueue()
        queue.name = "widgetd.HTTPClient"
        queue.maxConcurrentOperationCount = 1
        return (URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue), queue)
    }

    /// Closes the connections this client keeps open for its next requests, with the libcurl handles
    /// that keep them (on Linux: requests to a host reuse a connection; elsewhere each request has a
    /// session of its own and nothing is kept). The daemon calls it when a wave of refreshes is over,
    /// so connections are reused within a wave and none stays open between waves.
    public func closeIdleConnections() {
        #if os(Linux)
        handles?.closeIdle()
        #endif
    }

    /// Sends `request` and returns the server's response, whatever its status.
    ///
    /// Waits first for one of the host's slots (see ``maximumConnectionsPerHost``); the request's
    /// deadline starts once it is sent.
    ///
    /// ```swift
    /// let response = try await client.send(HTTPRequest(url: url, timeout: 10, maxBytes: 1 << 20))
    /// guard response.isSuccess else { … }
    /// ```
    ///
    /// - Throws: An ``HTTPClientError`` whose ``HTTPClientError/kind`` says what failed: `timedOut`,
    ///   `tooLarge`, `tooManyRedirects`, `connectionFailed`, `truncated`, `cancelled`, `invalidResponse`
    ///   or `invalidRequest`.
    public func send(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
        let host = request.hostDescription
        let scheme = request.url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https", let hostName = request.url.host, !hostName.isEmpty else {
            throw .unsupportedURL(host, scheme: request.url.scheme)
        }
        let key = HTTPClient.origin(of: request.url)
        guard await limiter.acquire(key) else { throw .cancelled(host) }
        defer { limiter.release(key) }

        #if os(Linux)
        if let handles {
            let exchange = CurlExchange(request: request, userAgent: userAgent, handles: handles)
            live.withLock { $0 += 1 }
            defer { live.withLock { $0 -= 1 } }
            let outcome = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    exchange.start(continuation: continuation)
                }
            } onCancel: {
                exchange.finish(.failure(.cancelled(host)))
            }
            return try outcome.get()
        }
        #endif

        if let tls = request.tls, !tls.isDefault {
            #if canImport(FoundationNetworking)
            // FoundationNetworking's URLSession takes no CA file, certificate or verification setting.
            throw .tlsUnsupported(host, what: "TLS settings (\"tls\")")
            #else
            if tls.certFile != nil { throw .tlsUnsupported(host, what: "a client certificate (tls.certFile)") }
            #endif
        }
        let delegate = HTTPSessionDelegate(tls: request.tls)
        let (session, delegateQueue) = makeSession(delegate: delegate)
        let exchange = HTTPExchange(request: request, delegateQueue: delegateQueue)
        let task = session.dataTask(with: urlRequest(for: request))
        delegate.register(exchange, for: task)
        live.withLock { $0 += 1 }
        defer {
            delegate.forget(task)
            // Ends the transfer if it still runs and lets the session, its queue and whatever is
            // still queued on it go.
            session.invalidateAndCancel()
            live.withLock { $0 -= 1 }
        }

        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                exchange.start(task, continuation: continuation)
            }
        } onCancel: {
            exchange.finish(.failure(.cancelled(host)))
        }
        return try outcome.get()
    }

    /// How many requests are in flight or waiting for the origin of `url` (for tests).
    func slotsInUse(_ url: URL) -> Int {
        limiter.holders(HTTPClient.origin(of: url))
    }

    /// What the per-host limit counts by: scheme, host and port (`http://127.0.0.1:8080`, with the
    /// scheme's default port when the URL names none), so two servers on one address are two hosts.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }

    /// How many exchanges the session still tracks (for tests: zero once all are done).
    var trackedExchanges: Int { live.withLock { $0 } }

    private func urlRequest(for request: HTTPRequest) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        urlRequest.timeoutInterval = HTTPExchange.silenceLimit(request.connectTimeout)
        urlRequest.httpShouldHandleCookies = false
        var seen = Set<String>()
        for field in request.headers {
            if seen.insert(field.name.lowercased()).inserted {
                urlRequest.setValue(field.value, forHTTPHeaderField: field.name)
            } else {
                urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
            }
        }
        urlRequest.httpBody = request.body
        return urlRequest
    }
}
