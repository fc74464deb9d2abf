import Foundation

/// Why ``HTTPClient/send(_:)`` produced no response.
///
/// The ``message`` is one sentence that names the host (and the port when the URL has one), never the
/// path or query, which may hold secrets:
/// `the response from 127.0.0.1:8123 exceeded the 1048576-byte limit`.
///
/// ```swift
/// do {
///     let response = try await client.send(request)
/// } catch where error.kind == .timedOut {
///     // try again later
/// }
/// ```
public struct HTTPClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure, for callers that react differently to each.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The deadline passed, or the server stayed silent too long.
        case timedOut
        /// The body was larger than the request's `maxBytes`.
        case tooLarge
        /// The server redirected more often than the request's `maxRedirects`.
        case tooManyRedirects
        /// No connection could be made: refused, unknown host, TLS failure, connection lost.
        case connectionFailed
        /// The connection closed before the announced body was complete.
        case truncated
        /// The caller's task was cancelled (or the client was shut down).
        case cancelled
        /// The server's answer was not a valid HTTP response.
        case invalidResponse
        /// The request cannot be sent (a URL that is not `http` or `https`).
        case invalidRequest
    }

    /// The kind of failure.
    public var kind: Kind
    /// The host (and port) the request was for.
    public var host: String
    /// One sentence that says what happened.
    public var message: String

    /// An error of `kind` for `host`; `message` must not reveal the path or query.
    public init(_ kind: Kind, host: String, message: String) {
        self.kind = kind
        self.host = host
        self.message = message
    }

    public var description: String { message }
}

// MARK: - Messages

extension HTTPClientError {
    static func timedOut(_ host: String, seconds: Double) -> Self {
        Self(.timedOut, host: host, message: "\(host) did not answer within \(formatSeconds(seconds)) s")
    }

    static func tooSlow(_ host: String, received: Int, seconds: Double, minimum: Int) -> Self {
        Self(
            .timedOut, host: host,
            message: "\(host) sent \(received) bytes in \(formatSeconds(seconds)) s, less than the minimum of \(minimum) bytes in "
                + "\(formatSeconds(seconds)) s; if the server is that slow, lower or turn off \"minimumRate\" ({\"bytes\": 0})")
    }

    static func tooLarge(_ host: String, limit: Int) -> Self {
        Self(.tooLarge, host: host, message: "the response from \(host) exceeded the \(limit)-byte limit")
    }

    static func tooLarge(_ host: String, announced: Int64, limit: Int) -> Self {
        Self(
            .tooLarge,
            host: host,
            message: "the response from \(host) announced \(announced) bytes, more than the \(limit)-byte limit"
        )
    }

    static func headersTooLarge(_ host: String, limit: Int) -> Self {
        Self(
            .invalidResponse,
            host: host,
            message: "the response from \(host) sent more than \(limit) bytes of header and trailer fields, the limit (fixed)"
        )
    }

    static func tooManyRedirects(_ host: String, limit: Int) -> Self {
        Self(
            .tooManyRedirects,
            host: host,
            message: "the request to \(host) was redirected more than \(limit) times, the limit"
        )
    }

    static func refused(_ host: String) -> Self {
        Self(.connectionFailed, host: host, message: "the connection to \(host) was refused")
    }

    static func unknownHost(_ host: String) -> Self {
        Self(.connectionFailed, host: host, message: "the host name of \(host) could not be resolved")
    }

    static func secureConnectionFailed(_ host: String) -> Self {
        Self(
            .connectionFailed,
            host: host,
            message: "the secure connection to \(host) failed (certificate or TLS error)"
        )
    }

    static func closedBeforeAnswer(_ host: String) -> Self {
        Self(.connectionFailed, host: host, message: "\(host) closed the connection before answering")
    }

    static func connectionFailed(_ host: String, code: Int) -> Self {
        Self(.connectionFailed, host: host, message: "the request to \(host) failed (URL error \(code))")
    }

    static func notHTTP(_ host: String) -> Self {
        Self(
            .invalidResponse,
            host: host,
            message: "\(host) did not speak HTTP (its first bytes were not a status line): check the URL's port and scheme"
        )
    }

    static func invalidRedirect(_ host: String) -> Self {
        Self(
            .invalidResponse,
            host: host,
            message: "\(host) redirected to a location that is not an http:// or https:// URL"
        )
    }

    static func secretBodyRedirected(_ host: String, to next: URL) -> Self {
        let scheme = next.scheme?.lowercased() ?? "http"
        let target = "\(scheme)://\(HTTPRequest.hostDescription(of: next))"
        return Self(
            .invalidResponse,
            host: host,
            message:
                "\(host) redirected the request to another origin, \(target), which would have been sent the body and the secret in it; "
                + "a secret goes only to the origin it was written for: if \(target) is meant to have it, write its address in the url"
        )
    }

    static func transportFailed(_ host: String, said: String) -> Self {
        let sentence = said.hasSuffix(".") ? String(said.dropLast()) : said
        return Self(.connectionFailed, host: host, message: "the request to \(host) failed: \(sentence)")
    }

    static func truncated(_ host: String, received: Int, announced: Int64?) -> Self {
        let expected = announced.map { " of the \($0) announced" } ?? ""
        return Self(
            .truncated,
            host: host,
            message: "the response from \(host) ended after \(received)\(expected) bytes"
        )
    }

    static func cancelled(_ host: String) -> Self {
        Self(.cancelled, host: host, message: "the request to \(host) was cancelled")
    }

    static func invalidResponse(_ host: String) -> Self {
        Self(.invalidResponse, host: host, message: "\(host) sent a response that is not valid HTTP")
    }

    static func unsupportedURL(_ host: String, scheme: String?) -> Self {
        let written = scheme.map { "\"\($0)\" URLs are" } ?? "URLs without a scheme are"
        return Self(
            .invalidRequest,
            host: host,
            message: "\(written) not supported for \(host); write an http:// or https:// URL"
        )
    }

    private static func formatSeconds(_ seconds: Double) -> String {
        if seconds == seconds.rounded(), abs(seconds) < 1e15 {
            return String(Int(seconds))
        }
        return String((seconds * 1000).rounded() / 1000)
    }
}
