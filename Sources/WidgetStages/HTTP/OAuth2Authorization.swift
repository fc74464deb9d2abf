import Foundation
import WidgetCore
import WidgetJSON

/// The access token one request of an ``HTTPFetcher`` carries, with what it takes to renew it once: the
/// fetcher's ``OAuth2Client``, the credentials of this refresh and the runtime's ``OAuth2Tokens``.
struct OAuth2Authorization: Sendable {
    /// The credentials of this refresh.
    let credentials: OAuth2Client.Credentials
    /// The token the request carries.
    private(set) var token: OAuth2Token
    /// Where tokens are kept: the runtime's, or ``OAuth2Tokens/shared``.
    private let tokens: OAuth2Tokens
    private let timeout: TimeInterval
    private let connectTimeout: TimeInterval
    /// Every token this request carried, for masking.
    private var used: [String]

    /// The token for `fetcher`'s request in `context` (for `item` of a `fetch` transform); `nil` when the
    /// fetcher has no `oauth2` block.
    ///
    /// - Throws: A `StageError` from the credentials' templates or the token endpoint.
    init?(_ fetcher: HTTPFetcher, context: StageContext, item: WidgetValue?) async throws {
        guard let client = fetcher.oauth2 else { return nil }
        credentials = try client.credentials(context: context, item: item)
        tokens = context.resources[OAuth2Tokens.self] ?? .shared
        timeout = fetcher.timeout
        connectTimeout = fetcher.connectTimeout
        token = try await tokens.token(
            for: credentials, now: context.now, http: context.http, timeout: timeout, connectTimeout: connectTimeout)
        used = token.secrets
    }

    /// Replaces the token, which an API refused, by a renewed one (or one another widget renewed since).
    ///
    /// - Throws: A `StageError` from the token endpoint.
    mutating func renew(context: StageContext) async throws {
        token = try await tokens.token(
            for: credentials, now: context.now, http: context.http, timeout: timeout, connectTimeout: connectTimeout,
            replacing: token.accessToken)
        used += token.secrets
    }

    /// The values no message may show: the tokens used and the credentials' secrets.
    var secrets: [String] { used + credentials.secrets }
}

extension OAuth2Token {
    /// ``authorization`` as a trace shows it: `Bearer ••••`.
    var maskedAuthorization: String {
        String(authorization.prefix { $0 != " " }) + " ••••"
    }
}
