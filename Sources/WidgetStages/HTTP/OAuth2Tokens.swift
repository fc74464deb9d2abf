public import Foundation
import WidgetCore

/// The access tokens of every `oauth2` block, shared by the widgets whose credentials are the same
/// (token URL, grant, client id and secret, configured refresh token, scope, audience, client auth).
///
/// - A token is asked for when there is none, and renewed before it expires: once less than a tenth of
///   its lifetime, or 60 s, is left (``OAuth2Token/renewsAt``), at the refresh's own `now`.
/// - One renewal at a time per credentials: widgets that need the same token while it is being renewed
///   wait for that renewal (single flight).
/// - A token the server gives is saved through the ``OAuth2TokenStorage`` before it is handed out, with
///   the refresh token that came with it (rotation): the one to use next is durable before the new access
///   token is sent anywhere. After a restart the saved token, and its refresh token, win over the
///   configured refresh token; a changed configured one (its secret replaced) is another key, so the
///   saved one is no longer read.
/// - Before a renewal the saved token is read again: one another process renewed (`widgetd preview
///   --out`) is used, and its rotated refresh token is the one presented next.
/// - An API that answers 401 to a token has it renewed once, by ``token(for:now:http:timeout:connectTimeout:replacing:)``
///   with `replacing` set: widgets that saw the same stale token share that one renewal too.
///
/// The runtime puts one in the stage resources, saving under the output folder's `.state/oauth2/`;
/// without one, a process-wide instance keeps tokens in memory only (``shared``).
public actor OAuth2Tokens {
    /// The instance used when the stage resources hold none: tokens in memory, for this process.
    public static let shared = OAuth2Tokens()

    private let storage: (any OAuth2TokenStorage)?
    private var tokens: [String: OAuth2Token] = [:]
    private var renewalsInFlight: [String: Task<OAuth2Token, any Error>] = [:]
    private var requests = 0

    /// Tokens saved through `storage`, or kept in memory only when it is `nil`.
    public init(storage: (any OAuth2TokenStorage)? = nil) {
        self.storage = storage
    }

    /// How many token requests were sent (for tests and metrics).
    public var tokenRequests: Int { requests }

    /// A token for `credentials` that may be used at `now`: the one kept (or saved) when it is not close
    /// to its expiry and is not `replacing`, else a new one.
    ///
    /// - Parameters:
    ///   - credentials: The credentials of the refresh, which name the token.
    ///   - now: The refresh's moment: expiries are measured against it, never the system clock.
    ///   - http: The client a token request goes through.
    ///   - timeout: The deadline of a token request.
    ///   - connectTimeout: The longest silence of a token request.
    ///   - stale: An access token an API refused (401): a kept token that is still this one is renewed
    ///     whatever its expiry; one already renewed by another widget is returned as it is.
    /// - Throws: The token endpoint's refusal as a `StageError` (see `OAuth2Client`), or a storage failure:
    ///   a token that could not be saved is not used.
    public func token(
        for credentials: OAuth2Client.Credentials, now: Date, http: StageHTTPClient, timeout: TimeInterval,
        connectTimeout: TimeInterval, replacing stale: String? = nil
    ) async throws -> OAuth2Token {
        let key = credentials.key
        if let renewal = renewalsInFlight[key] { return try await Self.value(of: renewal) }
        var kept = tokens[key]
        if kept == nil || kept?.accessToken == stale || kept?.needsRenewal(at: now) == true {
            // Saved since by another process (`widgetd preview --out`), or by this one before a restart.
            if let saved = storage?.load(key: key), saved.obtainedAt > kept?.obtainedAt ?? .distantPast { kept = saved }
        }
        if let kept {
            tokens[key] = kept
            if kept.accessToken != stale, !kept.needsRenewal(at: now) { return kept }
        }
        let storage = self.storage
        let renewal = Task { () async throws -> OAuth2Token in
            let token = try await OAuth2Client.requestToken(
                credentials, refreshToken: kept?.refreshToken ?? credentials.refreshToken, now: now, http: http, timeout: timeout,
                connectTimeout: connectTimeout)
            do {
                try storage?.save(token, key: key)
            } catch {
                throw UnsavedToken(
                    token: token,
                    error: StageError(
                        "the token from \(credentials.host) could not be saved, so it is not used (a refresh token the server rotated would be lost at a restart): \(error)"
                    ))
            }
            return token
        }
        renewalsInFlight[key] = renewal
        requests += 1
        defer { renewalsInFlight[key] = nil }
        do {
            let token = try await renewal.value
            tokens[key] = token
            return token
        } catch let unsaved as UnsavedToken {
            // Not used, but its refresh token is the one the server now accepts: kept in memory for the
            // next renewal, which saves again.
            var spent = unsaved.token
            spent.expiresAt = spent.obtainedAt
            tokens[key] = spent
            throw unsaved.error
        }
    }

    /// The token `renewal` gives, for a refresh that waited for another's renewal.
    private static func value(of renewal: Task<OAuth2Token, any Error>) async throws -> OAuth2Token {
        do {
            return try await renewal.value
        } catch let unsaved as UnsavedToken {
            throw unsaved.error
        }
    }

    /// A token the server gave that could not be saved.
    private struct UnsavedToken: Error {
        let token: OAuth2Token
        let error: StageError
    }
}
