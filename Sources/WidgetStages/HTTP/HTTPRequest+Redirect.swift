import Foundation

extension HTTPRequest {
    /// The fields that carry credentials whatever their value came from: never sent to another origin.
    static let credentialFields: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    /// Whether `url` and `other` are one origin: the same scheme, host and port (the scheme's default
    /// port when the URL names none), as ``HTTPClient``'s per-host limit counts them.
    static func isSameOrigin(_ url: URL, _ other: URL) -> Bool {
        HTTPClient.origin(of: url) == HTTPClient.origin(of: other)
    }

    /// What a redirect from `current` to `next` keeps of `headers`: every field within one origin; for
    /// another origin, neither the credential fields (`Authorization`, `Cookie`, `Proxy-Authorization`)
    /// nor any field whose value came from a secret (``HTTPHeaders/Field/isSecret``), whatever its name.
    static func headers(_ headers: HTTPHeaders, redirectedFrom current: URL, to next: URL) -> HTTPHeaders {
        guard !isSameOrigin(current, next) else { return headers }
        var kept = headers
        kept.removeAll { $0.isSecret || credentialFields.contains($0.name.lowercased()) }
        return kept
    }

    /// The failure of a redirect from `current` to `next` that keeps the method and body (a 307 or 308)
    /// when the body holds a secret and `next` is another origin; `nil` when the redirect may be followed.
    ///
    /// A secret in a body is not sent to another origin, and the body cannot be left out either: the
    /// server asked for the same request, so the exchange fails and says where to point the URL.
    func secretBodyRedirectFailure(from current: URL, to next: URL, keepsBody: Bool) -> HTTPClientError? {
        guard bodyIsSecret, keepsBody, body != nil, !Self.isSameOrigin(current, next) else { return nil }
        return .secretBodyRedirected(Self.hostDescription(of: current), to: next)
    }
}
