public import WidgetCore
import WidgetJSON
public import WidgetLiquid

/// The options of an HTTP request, said once for every stage that sends one: an `http` source
/// (``HTTPFetcher``) and the `fetch` transform (``FetchTransform``) read these keys from their own options'
/// object, and each adds only its own keys beside them.
///
/// ```json
/// {"url": "https://example.com/{{ params.id }}.json", "method": "POST", "headers": {"X-Key": "{{ env.KEY }}"},
///  "body": {"q": "{{ params.q }}"}, "timeout": "10s", "connectTimeout": "2s", "maxBytes": 1048576,
///  "tls": {"caFile": "certs/homelab-ca.pem"}}
/// ```
///
/// `url`, `headers` and `body` are templates that may read secrets (`env`, `secret`); the defaults and
/// bounds below are enforced by the decoder.
public struct RequestOptions: Decodable, Sendable, DescribedOptions {
    /// The `http` or `https` URL, a template that may read secrets (`env`, `secret`).
    public var url: Template
    /// The request method, in any case; `GET`, or `POST` when there is a `body`, when not written.
    public var method: String?
    /// Request headers, name to template; templates may read secrets.
    public var headers: [String: Template]?
    /// The request body: a template sent as text, or an object or array of templates sent as JSON.
    public var body: TemplateTree?
    /// The deadline for the whole exchange.
    public var timeout: WidgetDuration
    /// The longest silence while connecting or receiving.
    public var connectTimeout: WidgetDuration
    /// The largest body accepted, in bytes.
    public var maxBytes: Int
    /// The TLS settings: a CA file, a client certificate and key, or no verification (``TLSOptions``).
    public var tls: TLSOptions?
    /// Where to get an OAuth2 access token the request sends as `Authorization: Bearer …`
    /// (``OAuth2Options``); none by default.
    public var oauth2: OAuth2Options?

    /// The request keys.
    public enum CodingKeys: String, DescribedKey {
        case url, method, headers, body, timeout, connectTimeout, maxBytes, tls, oauth2

        public var keyDescription: KeyDescription {
            switch self {
            case .url:
                KeyDescription(
                    "The http or https URL, a template that may read inputs, params and secrets (env, secret); in a fetch transform it reads each item (item, or its fields).",
                    .template, required: true, secrets: true)
            case .method:
                KeyDescription(
                    "The request method, in any case; GET, or POST when there is a body.",
                    .string(pattern: HTTPFetcher.methodPattern, examples: HTTPFetcher.methods)
                )
            case .headers:
                KeyDescription("Request headers: name to template (secrets allowed).", .map(.template), secrets: true)
            case .body:
                KeyDescription(
                    "The request body: a template, or an object or array of templates sent as JSON (secrets allowed).", .any, secrets: true)
            case .timeout:
                KeyDescription(
                    "The deadline for the whole exchange.", .duration,
                    default: .string(WidgetDuration(seconds: Int(HTTPRequest.defaultTimeout)).description))
            case .connectTimeout:
                KeyDescription(
                    "The longest silence while connecting or receiving.",
                    .duration, default: .string(WidgetDuration(seconds: Int(HTTPRequest.defaultConnectTimeout)).description)
                )
            case .maxBytes:
                KeyDescription(
                    "The largest body accepted, in bytes.", .integer(minimum: 1),
                    default: .number(WidgetNumber(HTTPRequest.defaultMaxBytes)))
            case .tls:
                KeyDescription(
                    "TLS settings: {\"caFile\": …} trusts a private CA instead of the system's, {\"certFile\": …, \"keyFile\": …} sends a client certificate, {\"verify\": false} reads the server without verification.",
                    .object(TLSOptions.shape))
            case .oauth2:
                KeyDescription(
                    "An OAuth2 access token for the request, from a token endpoint (client_credentials or refresh_token grant), kept in OUT/.state and renewed before it expires; clientID, clientSecret and refreshToken may read secrets.",
                    .object(OAuth2Options.shape), secrets: true)
            }
        }
    }
}
