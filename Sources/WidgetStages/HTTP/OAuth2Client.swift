public import Foundation
public import WidgetCore
public import WidgetJSON
import WidgetLiquid

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `oauth2` block of a request, checked: it renders the credentials for a refresh and asks the token
/// endpoint for an access token (RFC 6749 §4.4 and §6). ``OAuth2Tokens`` decides when to ask.
public struct OAuth2Client: Sendable, Hashable {
    /// The block as written.
    public let options: OAuth2Options

    /// Checks `options`: a `refresh_token` grant has a `refreshToken`, a `client_credentials` grant has a
    /// `clientSecret` and no `refreshToken`, both secrets read `env` or `secret` (never written out), and a
    /// constant `tokenURL` is https or loopback http.
    ///
    /// - Throws: A `StageError` about the `oauth2` option, naming the key at fault and a fix.
    public init(options: OAuth2Options) throws {
        let key = RequestOptions.CodingKeys.oauth2
        self.options = options
        switch options.grant {
        case .refreshToken:
            guard options.refreshToken != nil else {
                throw StageError(
                    "\"oauth2\": the grant \"refresh_token\" needs \"refreshToken\"; write e.g. \"refreshToken\": \"{{ secret.app_refresh_token }}\"",
                    option: key)
            }
        case .clientCredentials:
            guard options.clientSecret != nil else {
                throw StageError(
                    "\"oauth2\": the grant \"client_credentials\" needs \"clientSecret\"; write e.g. \"clientSecret\": \"{{ secret.app_client_secret }}\"",
                    option: key)
            }
            guard options.refreshToken == nil else {
                throw StageError(
                    "\"oauth2\": \"refreshToken\" is read by the grant \"refresh_token\" only; remove it, or set \"grant\": \"refresh_token\"",
                    option: key)
            }
        }
        for (name, template) in [("clientSecret", options.clientSecret), ("refreshToken", options.refreshToken)] {
            guard let template, !HTTPFetcher.readsSecret(template) else { continue }
            throw StageError(
                "\"oauth2\": \"\(name)\" is written out in the definition file; keep it in a secret and write \"{{ secret.NAME }}\" (a file in the secrets folder) or \"{{ env.NAME }}\"",
                option: key)
        }
        if options.tokenURL.isConstant {
            let problem: String? =
                if let url = URL(string: options.tokenURL.source) { Self.problem(with: url) } else { Self.notHTTPS }
            if let problem { throw StageError("\"oauth2\": \"tokenURL\" \(problem)", option: key) }
        }
    }

    /// The end of the sentence about a token URL that is not one.
    static let notHTTPS = "is not an https URL; write e.g. \"https://auth.example.com/oauth/token\""

    /// Why `url` cannot be a token endpoint, ending a sentence that starts with its name; `nil` when it can.
    static func problem(with url: URL) -> String? {
        let scheme = url.scheme?.lowercased()
        guard let host = url.host?.lowercased(), !host.isEmpty, scheme == "https" || scheme == "http" else {
            return notHTTPS
        }
        if scheme == "http", !["127.0.0.1", "::1", "[::1]", "localhost"].contains(host) {
            return
                "is http to \(host), which would send the client secret and tokens in clear; use https (http is for 127.0.0.1, ::1 and localhost only)"
        }
        return nil
    }

    /// The templates of the block that may read secrets.
    var secretTemplates: [Template] {
        [options.clientID] + [options.clientSecret, options.refreshToken].compactMap { $0 }
    }

    // MARK: - Credentials

    /// The credentials of one refresh, templates rendered.
    public struct Credentials: Sendable, Hashable {
        /// The token endpoint.
        public var tokenURL: URL
        /// The grant asked for.
        public var grant: OAuth2Options.Grant
        /// The client id.
        public var clientID: String
        /// The client secret, if any.
        public var clientSecret: String?
        /// The refresh token as configured, if any.
        public var refreshToken: String?
        /// The scope asked for.
        public var scope: String?
        /// The audience asked for.
        public var audience: String?
        /// How the client authenticates.
        public var clientAuth: OAuth2Options.ClientAuthentication

        /// What names the credentials in the token store: a SHA-256 of everything above, secrets included,
        /// so that widgets with the same credentials share one token, and a changed secret or configured
        /// refresh token starts afresh (the token kept for the old one is no longer read).
        public var key: String {
            let fields = [
                tokenURL.absoluteString, grant.rawValue, clientID, clientSecret ?? "", refreshToken ?? "", scope ?? "", audience ?? "",
                clientAuth.rawValue,
            ]
            return SHA256.hexDigest(of: Data(fields.map { "\($0.utf8.count):\($0)" }.joined(separator: "\n").utf8))
        }

        /// The secrets among them, for masking.
        var secrets: [String] { [clientSecret, refreshToken].compactMap { $0 } }

        /// The token endpoint's host, as messages name it.
        var host: String { HTTPRequest.hostDescription(of: tokenURL) }
    }

    /// The credentials for a refresh (for one item of a `fetch` transform), templates rendered with
    /// secrets in scope.
    ///
    /// - Throws: A `StageError` when a template fails or the token URL is not one a token may be asked of.
    public func credentials(context: StageContext, item: WidgetValue? = nil) throws -> Credentials {
        let scope = context.templateScope(item: item, secrets: true)
        func rendered(_ template: Template, _ name: String) throws -> String {
            do {
                return try template.renderString(scope).trimmingWhitespace()
            } catch {
                throw StageError("the \"oauth2\" \"\(name)\" template failed: \(error)")
            }
        }
        var text = try rendered(options.tokenURL, "tokenURL")
        if let rewrites = context.http.originRewrites { text = rewrites.apply(to: text) }
        guard let url = URL(string: text) else {
            throw StageError("the \"oauth2\" \"tokenURL\" template did not give a URL; check the values it reads")
        }
        if let problem = Self.problem(with: url) { throw StageError("the \"oauth2\" \"tokenURL\" \(problem)") }
        return Credentials(
            tokenURL: url, grant: options.grant, clientID: try rendered(options.clientID, "clientID"),
            clientSecret: try options.clientSecret.map { try rendered($0, "clientSecret") },
            refreshToken: try options.refreshToken.map { try rendered($0, "refreshToken") },
            scope: options.scope, audience: options.audience, clientAuth: options.clientAuth)
    }

    // MARK: - The token request

    /// Asks the token endpoint of `credentials` for an access token, with `refreshToken` for the
    /// `refresh_token` grant, at `now`.
    ///
    /// The request is a form-encoded POST (RFC 6749 §4.4.2, §6), the client authenticated by HTTP Basic
    /// (`clientAuth: basic`, or in the form with `body`, and always in the form for a client without a
    /// secret). It goes to `credentials.tokenURL`, whose origin rewrites ``credentials(context:item:)``
    /// applied, through `http`'s client but never through a wave's coalescer (a renewal must reach the
    /// server), and follows no redirect.
    ///
    /// - Throws: A `StageError` that says in words what the server answered (RFC 6749 §5.2's `error` and
    ///   `error_description`) and what to change, every secret and token masked.
    static func requestToken(
        _ credentials: Credentials, refreshToken: String?, now: Date, http: StageHTTPClient, timeout: TimeInterval,
        connectTimeout: TimeInterval
    ) async throws -> OAuth2Token {
        var form: [(String, String)] = [("grant_type", credentials.grant.rawValue)]
        if credentials.grant == .refreshToken, let refreshToken { form.append(("refresh_token", refreshToken)) }
        if let scope = credentials.scope { form.append(("scope", scope)) }
        if let audience = credentials.audience { form.append(("audience", audience)) }
        var request = HTTPRequest(
            url: credentials.tokenURL, method: "POST", bodyIsSecret: true, timeout: timeout,
            connectTimeout: connectTimeout, maxBytes: maximumResponseBytes, maxRedirects: 0)
        if credentials.clientAuth == .body || credentials.clientSecret == nil {
            form.append(("client_id", credentials.clientID))
            if let secret = credentials.clientSecret { form.append(("client_secret", secret)) }
        } else {
            // RFC 6749 §2.3.1: each part form-encoded, then Basic.
            let pair = formEncoded(credentials.clientID) + ":" + formEncoded(credentials.clientSecret ?? "")
            request.headers.add(name: "Authorization", value: "Basic " + Data(pair.utf8).base64EncodedString(), isSecret: true)
        }
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = Data(form.map { formEncoded($0.0) + "=" + formEncoded($0.1) }.joined(separator: "&").utf8)

        let mask = SecretMask(values: credentials.secrets + (refreshToken.map { [$0] } ?? []))
        let host = credentials.host
        let response: HTTPResponse
        do {
            response = try await http.client.send(request)
        } catch {
            if error.kind == .cancelled { throw CancellationError() }
            throw StageError("the token endpoint \(host) could not be reached: \(mask.apply(error.message))")
        }
        let body = try? JSONReader.read(response.body)
        guard response.isSuccess else {
            throw StageError(mask.apply(failureMessage(response, body: body, credentials: credentials, refreshToken: refreshToken)))
        }
        guard case .string(let accessToken)? = body?["access_token"], !accessToken.isEmpty else {
            throw StageError(
                "the token endpoint \(host) answered \(response.status) without an \"access_token\"; check that \"tokenURL\" is the server's token endpoint"
            )
        }
        var expiresAt: Date?
        switch body?["expires_in"] {
        case .number(let number)?: expiresAt = now.addingTimeInterval(number.double)
        case .string(let text)?: expiresAt = Double(text).map { now.addingTimeInterval($0) }
        default: break
        }
        var rotated: String?
        if case .string(let token)? = body?["refresh_token"], !token.isEmpty { rotated = token }
        var tokenType = "Bearer"
        if case .string(let type)? = body?["token_type"], !type.isEmpty { tokenType = type }
        return OAuth2Token(
            accessToken: accessToken, tokenType: tokenType, obtainedAt: now, expiresAt: expiresAt,
            refreshToken: credentials.grant == .refreshToken ? (rotated ?? refreshToken) : nil)
    }

    /// The most a token endpoint's answer may hold: 64 KiB.
    static let maximumResponseBytes = 64 * 1024

    /// What a token endpoint's refusal means and what to change, from RFC 6749 §5.2's `error`.
    static func failureMessage(_ response: HTTPResponse, body: WidgetValue?, credentials: Credentials, refreshToken: String?) -> String {
        let reason = HTTPURLResponse.localizedString(forStatusCode: response.status).capitalized
        var said = ""
        var code: String?
        if case .string(let error)? = body?["error"] {
            code = error
            said = ": \(error)"
            if case .string(let description)? = body?["error_description"], !description.isEmpty { said += " (\(description))" }
        } else if let excerpt = response.bodyExcerpt(masking: SecretMask(values: credentials.secrets)) {
            said = ": \(excerpt)"
        }
        let fix: String
        switch code {
        case "invalid_client"?:
            fix =
                "check \"clientID\" and \"clientSecret\" (and the secrets they read); if they are right, the server may want them in the form: set \"clientAuth\": \""
                + (credentials.clientAuth == .basic ? "body" : "basic") + "\""
        case "invalid_grant"? where credentials.grant == .refreshToken:
            fix =
                "the refresh token was revoked, expired or already used; get a new one from the provider and write it to the secret \"refreshToken\" reads (a changed one replaces the token kept in OUT/.state/oauth2)"
        case "invalid_grant"?:
            fix = "the server refused the client's credentials for this grant; check \"clientID\", \"clientSecret\" and \"audience\""
        case "invalid_scope"?:
            fix =
                "the server does not grant the \"scope\" \(credentials.scope.map { "\"\($0)\"" } ?? "asked for"); ask for one the client is allowed"
        case "unauthorized_client"?:
            fix = "this client may not use the grant \"\(credentials.grant.rawValue)\"; allow it in the provider's settings for the app"
        case "unsupported_grant_type"?:
            fix = "the server does not offer the grant \"\(credentials.grant.rawValue)\"; check \"grant\" and \"tokenURL\""
        case "invalid_request"?:
            fix = "the server found the request malformed; check \"tokenURL\", \"scope\" and \"audience\""
        default:
            fix = "check \"tokenURL\" and the credentials"
        }
        return "the token endpoint \(credentials.host) answered \(response.status) \(reason)\(said); \(fix)"
    }

    /// `text` for an `application/x-www-form-urlencoded` body: every character but `A-Z a-z 0-9 - . _ ~`
    /// percent-encoded.
    static func formEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// RFC 3986's unreserved characters.
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
