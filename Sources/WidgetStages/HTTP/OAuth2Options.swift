public import WidgetCore
import WidgetJSON
public import WidgetLiquid

/// The `oauth2` block of a request (``RequestOptions/oauth2``): where and how an access token is
/// obtained for it (RFC 6749), which the request then sends as `Authorization: Bearer …`.
///
/// ```json
/// "oauth2": {"tokenURL": "https://accounts.spotify.com/api/token", "grant": "refresh_token",
///            "clientID": "{{ secret.spotify_client_id }}", "clientSecret": "{{ secret.spotify_client_secret }}",
///            "refreshToken": "{{ secret.spotify_refresh_token }}"}
/// ```
///
/// `clientID`, `clientSecret` and `refreshToken` are templates that may read secrets (`env`, `secret`);
/// `clientSecret` and `refreshToken` must read one, so that neither is written in a definition.
public struct OAuth2Options: Decodable, Sendable, Hashable, DescribedOptions {
    /// The grants a token endpoint is asked for.
    public enum Grant: String, Sendable, Hashable, CaseIterable, Decodable {
        /// RFC 6749 §4.4: the client's own credentials buy the token.
        case clientCredentials = "client_credentials"
        /// RFC 6749 §6: a refresh token buys the token, and may be replaced by a new one (rotation).
        case refreshToken = "refresh_token"
    }

    /// How the client proves who it is to the token endpoint.
    public enum ClientAuthentication: String, Sendable, Hashable, CaseIterable, Decodable {
        /// HTTP Basic with the client id and secret (RFC 6749 §2.3.1, the default).
        case basic
        /// `client_id` and `client_secret` in the form body.
        case body
    }

    /// The token endpoint: `https`, or `http` to a loopback address only.
    public var tokenURL: Template
    /// The grant asked for.
    public var grant: Grant
    /// The client id, a template that may read secrets.
    public var clientID: Template
    /// The client secret, a template that reads a secret; none for a public client.
    public var clientSecret: Template?
    /// The refresh token of the `refresh_token` grant, a template that reads a secret.
    public var refreshToken: Template?
    /// The scope asked for, space-separated.
    public var scope: String?
    /// The audience asked for (Auth0, Okta and others take it beside the grant).
    public var audience: String?
    /// How the client authenticates.
    public var clientAuth: ClientAuthentication

    /// The keys of the `oauth2` block.
    public enum CodingKeys: String, DescribedKey {
        case tokenURL, grant, clientID, clientSecret, refreshToken, scope, audience, clientAuth

        public var keyDescription: KeyDescription {
            switch self {
            case .tokenURL:
                KeyDescription(
                    "The token endpoint: an https URL (http only to 127.0.0.1, ::1 or localhost).", .template, required: true)
            case .grant:
                KeyDescription(
                    "The grant: client_credentials (the client's own credentials) or refresh_token (a refresh token, which the server may replace).",
                    .oneOf(Grant.allCases.map(\.rawValue)), required: true,
                    fix: "use \"client_credentials\" or \"refresh_token\"")
            case .clientID:
                KeyDescription("The client id (secrets allowed).", .template, required: true, secrets: true)
            case .clientSecret:
                KeyDescription(
                    "The client secret: a template that reads a secret, e.g. \"{{ secret.app_client_secret }}\"; none for a public client.",
                    .template, secrets: true)
            case .refreshToken:
                KeyDescription(
                    "The refresh token of the refresh_token grant: a template that reads a secret. A token the server rotates is kept in OUT/.state and wins until this one changes.",
                    .template, secrets: true)
            case .scope:
                KeyDescription("The scope asked for, space-separated.", .string(examples: ["read:user"]))
            case .audience:
                KeyDescription("The audience asked for, for servers that take one (Auth0, Okta).", .string())
            case .clientAuth:
                KeyDescription(
                    "How the client authenticates: basic (HTTP Basic) or body (client_id and client_secret in the form).",
                    .oneOf(ClientAuthentication.allCases.map(\.rawValue)), default: .string(ClientAuthentication.basic.rawValue),
                    fix: "use \"basic\" (HTTP Basic) or \"body\" (in the form)")
            }
        }
    }
}
