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
    /// The deadline for the whole exchange, in seconds from when the request is sent.
    public var timeout: TimeInterval
    /// The longest silence allowed from the server, in seconds (whole seconds; rounded up).
    public var connectTimeout: TimeInterval
    /// The largest body accepted, in bytes.
    public var maxBytes: Int
    /// How many redirects are followed; one more fails the exchange.
    public var maxRedirects: Int

    /// Creates a request; every limit left out takes its default (30 s, 10 s, 10 MiB, 5 redirects).
    public init(
        url: URL,
        method: String = "GET",
        headers: HTTPHeaders = [:],
        body: Data? = nil,
        timeout: TimeInterval = HTTPRequest.defaultTimeout,
        connectTimeout: TimeInterval = HTTPRequest.defaultConnectTimeout,
        maxBytes: Int = HTTPRequest.defaultMaxBytes,
        maxRedirects: Int = HTTPRequest.defaultMaxRedirects
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.maxBytes = maxBytes
        self.maxRedirects = maxRedirects
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
