public import Foundation

/// One HTTP exchange to perform with ``HTTPClient``: what to send and the limits that apply to it.
///
/// The limits are enforced by the client itself, the same way on every platform:
/// - ``timeout`` is a deadline for the whole exchange (connecting, redirects, headers and the whole
///   body). Its clock starts when the request is actually sent, not while it waits for one of the
///   client's per-host slots.
/// - ``connectTimeout`` is the longest the server may stay silent — while the connection is being
///   opened or between two pieces of the response — before the exchange fails.
/// - ``maxBytes`` caps the body: the exchange fails as soon as more arrives, or at once when the
///   server announces a larger `Content-Length`.
/// - ``minimumRate`` is the least the response must bring in a window once it has begun (1 KiB in any
///   5 s by default): a server that trickles fails then, rather than at the deadline.
///
/// ```swift
/// let request = HTTPRequest(
///     url: URL(string: "https://api.example.com/v1/items")!,
///     headers: ["Accept": "application/json"],
///     timeout: 10
/// )
/// ```
public struct HTTPRequest: Sendable, Hashable {
    /// The default ``timeout``, in seconds.
    public static let defaultTimeout: TimeInterval = 30
    /// The default ``connectTimeout``, in seconds.
    public static let defaultConnectTimeout: TimeInterval = 10
    /// The default ``maxBytes``: 10 MiB.
    public static let defaultMaxBytes = 10 * 1024 * 1024
    /// The default ``maxRedirects``.
    public static let defaultMaxRedirects = 5
    /// The default ``minimumRate``: 1 KiB in any 5 s once the response has begun.
    public static let defaultMinimumRate = MinimumRate(bytes: 1024, seconds: 5)

    /// The least a response must bring in a window of time once it has begun: a transfer that brings
    /// less gives its place back and fails (``HTTPClientError/Kind/timedOut``), so a server that
    /// trickles a byte at a time cannot hold one of the daemon's transfers for the whole ``timeout``.
    public struct MinimumRate: Sendable, Hashable {
        /// The fewest bytes (head and body) that must arrive in any window; 0 turns the check off.
        public var bytes: Int
        /// The window's length, in seconds. Once the response has begun, a pause longer than the window
        /// must follow enough bytes within it, whatever the default ``HTTPRequest/connectTimeout`` allows;
        /// a request that allows a longer silence than the default gets a window that long.
        public var seconds: TimeInterval

        /// At least `bytes` in any `seconds`.
        public init(bytes: Int, seconds: TimeInterval) {
            self.bytes = bytes
            self.seconds = seconds
        }
    }

    /// The most bytes of header and trailer fields one response may send (each redirect's response
    /// counts apart): 256 KiB. Past it the exchange fails; no option raises it.
    public static let maximumHeaderBytes = 256 * 1024

    /// The URL, `http` or `https`.
    public var url: URL
    /// The method, `GET` by default.
    public var method: String
    /// The header fields to send, in order.
    public var headers: HTTPHeaders
    /// The body to send, if any.
    public var body: Data?
    /// Whether the body holds a secret (a template that reads `env` or `secret`): a redirect that would
    /// send it to another origin (a 307 or 308, which keep the body) fails instead.
    public var bodyIsSecret: Bool
    /// The deadline for the whole exchange, in seconds from when the request is sent.
    public var timeout: TimeInterval
    /// The longest silence allowed from the server, in seconds (whole seconds; rounded up).
    public var connectTimeout: TimeInterval
    /// The largest body accepted, in bytes.
    public var maxBytes: Int
    /// How many redirects are followed; one more fails the exchange.
    public var maxRedirects: Int
    /// The least the response must bring in a window of time once it has begun.
    public var minimumRate: MinimumRate
    /// The TLS settings of an `https` request: a CA file, a client certificate, no verification; `nil`
    /// for the system's defaults.
    public var tls: TLS?

    /// Creates a request; every limit left out takes its default (30 s, 10 s, 10 MiB, 5 redirects, 1 KiB
    /// in any 5 s).
    public init(
        url: URL,
        method: String = "GET",
        headers: HTTPHeaders = [:],
        body: Data? = nil,
        bodyIsSecret: Bool = false,
        timeout: TimeInterval = HTTPRequest.defaultTimeout,
        connectTimeout: TimeInterval = HTTPRequest.defaultConnectTimeout,
        maxBytes: Int = HTTPRequest.defaultMaxBytes,
        maxRedirects: Int = HTTPRequest.defaultMaxRedirects,
        minimumRate: MinimumRate = HTTPRequest.defaultMinimumRate,
        tls: TLS? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.bodyIsSecret = bodyIsSecret
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.maxBytes = maxBytes
        self.maxRedirects = maxRedirects
        self.minimumRate = minimumRate
        self.tls = tls
    }

    /// The window ``minimumRate`` is counted over, in seconds: its own, or, when ``connectTimeout``
    /// allows a longer silence than the default, that silence when longer (a server said to pause that
    /// long may).
    var minimumRateWindow: TimeInterval {
        guard connectTimeout > Self.defaultConnectTimeout else { return minimumRate.seconds }
        return max(minimumRate.seconds, HTTPExchange.silenceLimit(connectTimeout))
    }

    /// The host and, when the URL names one, the port (`127.0.0.1:8123`, `api.example.com`): safe to show,
    /// never the path or query, which may hold secrets.
    public var hostDescription: String {
        Self.hostDescription(of: url)
    }

    /// The URL without user, password, query or fragment (`https://api.example.com/v1/items`): safe to
    /// show in messages and logs.
    public var redactedURL: String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return hostDescription
        }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? hostDescription
    }

    static func hostDescription(of url: URL) -> String {
        let host = url.host ?? "an unknown host"
        guard let port = url.port else { return host }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
