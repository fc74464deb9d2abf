public import Foundation
import Synchronization
import WidgetJSON
import WidgetStages

/// An OAuth2 token endpoint and an API that wants its tokens, as routes of a ``TestHTTPServer``: to test
/// a stage or widget that uses `oauth2` without a provider.
///
/// - `POST /oauth/token` answers RFC 6749's `client_credentials` and `refresh_token` grants for the one
///   client it knows, authenticated by HTTP Basic or in the form. Each refresh token is good once: the
///   answer brings a new one (rotation), and the old one is then `invalid_grant`. Access tokens live
///   ``lifetime`` seconds of the endpoint's own clock, which the test sets (``now``): no test sleeps.
/// - `GET /api` answers `{"ok": true, "calls": N}` to a live token and 401 to any other (expired, unknown,
///   or every token while ``refusesEveryToken`` is set).
///
/// ```swift
/// let endpoint = TestTokenEndpoint(clientID: "app", clientSecret: "s3cret", refreshToken: "rt-0")
/// let server = try TestHTTPServer(routes: endpoint.routes)
/// // "oauth2": {"tokenURL": "\(server.url("/oauth/token"))", "grant": "refresh_token", …}
/// endpoint.now = start.addingTimeInterval(3600)
/// #expect(endpoint.tokensIssued == 2)
/// ```
public final class TestTokenEndpoint: Sendable {
    /// The client id the endpoint knows.
    public let clientID: String
    /// That client's secret.
    public let clientSecret: String
    /// How long an access token lives, in seconds (sent as `expires_in`).
    public let lifetime: Int

    private struct State {
        var now: Date
        var refreshToken: String?
        var accessTokens: [String: Date] = [:]
        var issued = 0
        var apiCalls = 0
        var refused = 0
        var refusesEveryToken = false
        var tokenRequests: [TestHTTPRequest] = []
        var tokensSeenByAPI: [String] = []
    }

    private let state: Mutex<State>

    /// An endpoint for one client; `refreshToken` is the refresh token it accepts first (none for
    /// `client_credentials` alone); `now` starts its clock.
    public init(
        clientID: String, clientSecret: String, refreshToken: String? = nil, lifetime: Int = 3600,
        now: Date = Date(timeIntervalSince1970: 1_795_340_203)
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.lifetime = lifetime
        state = Mutex(State(now: now, refreshToken: refreshToken))
    }

    /// The endpoint's clock: tokens issued expire ``lifetime`` seconds after it, and the API refuses a
    /// token once it is past.
    public var now: Date {
        get { state.withLock { $0.now } }
        set { state.withLock { $0.now = newValue } }
    }

    /// Whether the API answers 401 to every token, even one just issued.
    public var refusesEveryToken: Bool {
        get { state.withLock { $0.refusesEveryToken } }
        set { state.withLock { $0.refusesEveryToken = newValue } }
    }

    /// How many access tokens were issued.
    public var tokensIssued: Int { state.withLock { $0.issued } }
    /// How many API requests were answered 200.
    public var apiCalls: Int { state.withLock { $0.apiCalls } }
    /// How many API requests were answered 401.
    public var refusals: Int { state.withLock { $0.refused } }
    /// The refresh token the endpoint accepts now.
    public var currentRefreshToken: String? { state.withLock { $0.refreshToken } }
    /// The token requests received, in order.
    public var tokenRequests: [TestHTTPRequest] { state.withLock { $0.tokenRequests } }
    /// The access tokens the API received, in order.
    public var tokensSeenByAPI: [String] { state.withLock { $0.tokensSeenByAPI } }
    /// Every access token issued, live or not.
    public var accessTokens: Set<String> { state.withLock { Set($0.accessTokens.keys) } }

    /// The routes: `POST /oauth/token` and `GET /api`.
    public var routes: [TestHTTPRoute] {
        [
            TestHTTPRoute("POST", "/oauth/token") { [self] request in token(request) },
            TestHTTPRoute("GET", "/api") { [self] request in api(request) },
        ]
    }

    private func token(_ request: TestHTTPRequest) -> TestHTTPResponse {
        var form: [String: String] = [:]
        for pair in request.text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            form[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        var client = (form["client_id"], form["client_secret"])
        if let basic = request.headers["Authorization"], basic.hasPrefix("Basic "),
            let decoded = Data(base64Encoded: String(basic.dropFirst(6))).flatMap({ String(data: $0, encoding: .utf8) })
        {
            let parts = decoded.split(separator: ":", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            client = (parts.first, parts.count > 1 ? parts[1] : nil)
        }
        func refusal(_ error: String, _ description: String, status: Int = 400) -> TestHTTPResponse {
            .json(["error": .string(error), "error_description": .string(description)], status: status)
        }
        return state.withLock { state -> TestHTTPResponse in
            state.tokenRequests.append(request)
            guard client.0 == clientID, client.1 == clientSecret else {
                return refusal("invalid_client", "Client authentication failed.", status: 401)
            }
            var answer: WidgetObject = [:]
            switch form["grant_type"] {
            case "client_credentials":
                break
            case "refresh_token":
                guard let presented = form["refresh_token"], presented == state.refreshToken else {
                    return refusal("invalid_grant", "The refresh token is invalid or was already used.")
                }
                let rotated = "rt-\(state.issued + 1)-\(UInt32.random(in: .min ... .max))"
                state.refreshToken = rotated
                answer["refresh_token"] = .string(rotated)
            default:
                return refusal("unsupported_grant_type", "Unknown grant.")
            }
            state.issued += 1
            let access = "at-\(state.issued)-\(UInt32.random(in: .min ... .max))"
            state.accessTokens[access] = state.now.addingTimeInterval(TimeInterval(lifetime))
            answer["access_token"] = .string(access)
            answer["token_type"] = "bearer"
            answer["expires_in"] = .number(WidgetNumber(lifetime))
            return .json(.object(answer))
        }
    }

    private func api(_ request: TestHTTPRequest) -> TestHTTPResponse {
        let presented = request.headers["Authorization"].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        return state.withLock { state -> TestHTTPResponse in
            if let presented { state.tokensSeenByAPI.append(presented) }
            guard !state.refusesEveryToken, let presented, let expiry = state.accessTokens[presented], state.now < expiry else {
                state.refused += 1
                return .json(["error": "invalid_token"], status: 401, headers: ["WWW-Authenticate": "Bearer error=\"invalid_token\""])
            }
            state.apiCalls += 1
            return .json(["ok": true, "calls": .number(WidgetNumber(state.apiCalls))])
        }
    }
}
