public import Foundation

/// An access token from a token endpoint, with the refresh token that came with it: what
/// ``OAuth2Tokens`` keeps, and saves through an ``OAuth2TokenStorage`` so that it survives a restart.
///
/// Its description never shows a token: `OAuth2Token(Bearer ••••, expires 2026-11-28T22:00:00Z)`.
public struct OAuth2Token: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The access token.
    public var accessToken: String
    /// The token's type as the server named it (`Bearer`, in any case); sent as the `Authorization` scheme.
    public var tokenType: String
    /// When the token was obtained.
    public var obtainedAt: Date
    /// When the token expires (`expires_in` after ``obtainedAt``); `nil` when the server did not say, and
    /// the token is then renewed only when an API refuses it.
    public var expiresAt: Date?
    /// The refresh token to use next: the one the server returned (rotation), else the one used.
    public var refreshToken: String?

    /// Creates a token.
    public init(accessToken: String, tokenType: String, obtainedAt: Date, expiresAt: Date?, refreshToken: String?) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.obtainedAt = obtainedAt
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
    }

    /// The least time left at which a token is still used: 60 s, or a tenth of its lifetime when that is
    /// longer. A token with less left is renewed before it is sent, so that no request carries one that
    /// expires on its way.
    public static let minimumMargin: TimeInterval = 60

    /// When the token is renewed: ``expiresAt`` less the margin (see ``minimumMargin``); `nil` when the
    /// expiry is unknown.
    public var renewsAt: Date? {
        guard let expiresAt else { return nil }
        let lifetime = expiresAt.timeIntervalSince(obtainedAt)
        return expiresAt.addingTimeInterval(-max(Self.minimumMargin, lifetime / 10))
    }

    /// Whether the token must be renewed before it is used at `now`.
    public func needsRenewal(at now: Date) -> Bool {
        guard let renewsAt else { return false }
        return now >= renewsAt
    }

    /// The `Authorization` field's value: `Bearer <token>` (a server's `bearer` is sent as `Bearer`).
    public var authorization: String {
        let scheme = tokenType.lowercased() == "bearer" || tokenType.isEmpty ? "Bearer" : tokenType
        return "\(scheme) \(accessToken)"
    }

    /// The tokens, for masking.
    var secrets: [String] { [accessToken] + (refreshToken.map { [$0] } ?? []) }

    public var description: String {
        let expiry = expiresAt.map { ", expires \(ISO8601DateFormatter().string(from: $0))" } ?? ""
        return "OAuth2Token(\(tokenType) ••••\(expiry))"
    }
}

/// Where ``OAuth2Tokens`` keeps its tokens across restarts, by credentials key (a hash of the token
/// endpoint, the grant and the configured credentials).
///
/// The runtime's storage writes one file per key in the output folder's `.state/oauth2/`, atomically
/// (flushed to disk before it is renamed into place) with mode 0600. A ``save(_:key:)`` that returns has
/// made the token durable: a rotated refresh token is saved before the access token that came with it
/// is used.
public protocol OAuth2TokenStorage: Sendable {
    /// The token saved under `key`, or `nil` when there is none (or it cannot be read).
    func load(key: String) -> OAuth2Token?
    /// Saves `token` under `key`, durably, before returning.
    ///
    /// - Throws: When the token could not be saved; the token is then not used.
    func save(_ token: OAuth2Token, key: String) throws
}
