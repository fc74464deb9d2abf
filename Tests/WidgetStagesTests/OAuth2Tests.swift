import Foundation
import Synchronization
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTesting

/// Saves tokens in memory, and notes any token saved after the API had already seen it.
final class RecordingTokenStorage: OAuth2TokenStorage {
    private let saved = Mutex<[String: OAuth2Token]>([:])
    private let notes = Mutex<(saves: Int, usedBeforeSaved: [String])>((0, []))
    let endpoint: TestTokenEndpoint?
    /// How many of the next saves fail, as a full disk would.
    let failingSaves = Mutex(0)

    init(endpoint: TestTokenEndpoint? = nil) {
        self.endpoint = endpoint
    }

    func load(key: String) -> OAuth2Token? { saved.withLock { $0[key] } }

    func save(_ token: OAuth2Token, key: String) throws {
        let fails = failingSaves.withLock { count in
            defer { count = max(0, count - 1) }
            return count > 0
        }
        if fails { throw CocoaError(.fileWriteOutOfSpace) }
        if let endpoint, endpoint.tokensSeenByAPI.contains(token.accessToken) {
            notes.withLock { $0.usedBeforeSaved.append(token.accessToken) }
        }
        saved.withLock { $0[key] = token }
        notes.withLock { $0.saves += 1 }
    }

    var saves: Int { notes.withLock { $0.saves } }
    var usedBeforeSaved: [String] { notes.withLock { $0.usedBeforeSaved } }
    var tokens: [OAuth2Token] { saved.withLock { Array($0.values) } }
}

struct OAuth2Tests {
    /// 2026-11-22T09:36:43Z.
    static let start = Date(timeIntervalSince1970: 1_795_340_203)
    static let clientSecret = "cs-SECRET-7d41"
    static let refreshToken = "rt-0-initial"

    private func endpoint(lifetime: Int = 3600) -> TestTokenEndpoint {
        TestTokenEndpoint(
            clientID: "app", clientSecret: Self.clientSecret, refreshToken: Self.refreshToken, lifetime: lifetime, now: Self.start)
    }

    private func context(now: Date = start, tokens: OAuth2Tokens) -> StageContext {
        var resources = StageResources()
        resources.insert(tokens)
        return StageContext(
            widgetID: "test", now: now,
            secrets: SecretStore(environment: ["CLIENT_SECRET": Self.clientSecret, "REFRESH": Self.refreshToken]),
            resources: resources)
    }

    private func options(_ server: TestHTTPServer, grant: String = "refresh_token", extra: WidgetObject = [:], path: String = "/api")
        -> WidgetValue
    {
        var oauth2: WidgetObject = [
            "tokenURL": .string(server.url("/oauth/token").absoluteString), "grant": .string(grant), "clientID": "app",
            "clientSecret": "{{ env.CLIENT_SECRET }}",
        ]
        if grant == "refresh_token" { oauth2["refreshToken"] = "{{ env.REFRESH }}" }
        for (key, value) in extra { oauth2[key] = value }
        return ["url": .string(server.url(path).absoluteString), "oauth2": .object(oauth2)]
    }

    private func fetcher(_ options: WidgetValue) throws -> HTTPFetcher {
        let stage = try StageRegistry.builtIn.makeStage(.fetcher, typeName: "http", options: options, decoder: OptionsDecoder())
        return try #require(stage as? HTTPFetcher)
    }

    private func problem(_ options: WidgetValue) -> String? {
        do {
            _ = try StageRegistry.builtIn.makeStage(.fetcher, typeName: "http", options: options, decoder: OptionsDecoder())
            return nil
        } catch {
            return "\(error.path): \(error.message)"
        }
    }

    // MARK: - Grants

    @Test func clientCredentialsBuyABearerTokenThatIsKeptUntilItNearsItsExpiry() async throws {
        let endpoint = endpoint()
        let server = try TestHTTPServer(routes: endpoint.routes)
        let tokens = OAuth2Tokens()
        let fetcher = try fetcher(options(server, grant: "client_credentials", extra: ["scope": "read:user repo", "audience": "api"]))
        let payload = try await fetcher.fetch(context: context(tokens: tokens))
        #expect(try JSONReader.read(payload.data)["ok"] == true)
        _ = try await fetcher.fetch(context: context(now: Self.start.addingTimeInterval(3000), tokens: tokens))
        #expect(endpoint.tokensIssued == 1)
        let request = try #require(endpoint.tokenRequests.first)
        #expect(request.text == "grant_type=client_credentials&scope=read%3Auser%20repo&audience=api")
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(request.headers["Authorization"] == "Basic " + Data("app:\(Self.clientSecret)".utf8).base64EncodedString())
        // 54 minutes in, less than a tenth of the hour is left: renewed before it is sent.
        _ = try await fetcher.fetch(context: context(now: Self.start.addingTimeInterval(54 * 60), tokens: tokens))
        #expect(endpoint.tokensIssued == 2)
        #expect(endpoint.refusals == 0)
    }

    @Test func clientAuthBodyPutsTheCredentialsInTheForm() async throws {
        let endpoint = endpoint()
        let server = try TestHTTPServer(routes: endpoint.routes)
        let fetcher = try fetcher(options(server, grant: "client_credentials", extra: ["clientAuth": "body"]))
        _ = try await fetcher.fetch(context: context(tokens: OAuth2Tokens()))
        let request = try #require(endpoint.tokenRequests.first)
        #expect(request.text == "grant_type=client_credentials&client_id=app&client_secret=\(Self.clientSecret)")
        #expect(request.headers["Authorization"] == nil)
    }

    @Test func aSimulatedDayOfFiveMinuteRefreshesRenewsHourlyTokensBeforeExpiryAndSavesEachRotationBeforeUse() async throws {
        let endpoint = endpoint(lifetime: 3600)
        let server = try TestHTTPServer(routes: endpoint.routes)
        let storage = RecordingTokenStorage(endpoint: endpoint)
        let tokens = OAuth2Tokens(storage: storage)
        let fetcher = try fetcher(options(server))
        var failures: [String] = []
        for tick in 0..<(24 * 12) {
            let now = Self.start.addingTimeInterval(TimeInterval(tick * 300))
            endpoint.now = now
            do {
                _ = try await fetcher.fetch(context: context(now: now, tokens: tokens))
            } catch {
                failures.append("\(tick): \(error)")
            }
        }
        let renewals = await tokens.tokenRequests
        print(
            "OAuth2 simulated day: 288 refreshes every 5 min, 1 h tokens: \(renewals) token requests, \(storage.saves) saves, \(endpoint.refusals) refusals"
        )
        #expect(failures == [])
        // Renewed 6 minutes before each expiry, at the first refresh past it: every 55 minutes.
        #expect(renewals == 27)
        #expect(endpoint.tokensIssued == 27)
        #expect(endpoint.apiCalls == 288)
        #expect(endpoint.refusals == 0)
        #expect(storage.saves == 27)
        #expect(storage.usedBeforeSaved == [])
        // Each renewal used the refresh token the one before rotated in.
        #expect(storage.tokens.first?.refreshToken == endpoint.currentRefreshToken)
        let presented = endpoint.tokenRequests.map { request in
            request.text.split(separator: "&").first { $0.hasPrefix("refresh_token=") }.map { String($0.dropFirst(14)) }
        }
        #expect(presented.first == Self.refreshToken)
        #expect(Set(presented.compactMap { $0 }).count == 27)
    }

    @Test func aTokenThatCannotBeSavedIsNotUsedButItsRotatedRefreshTokenIsNotLost() async throws {
        let endpoint = endpoint()
        let server = try TestHTTPServer(routes: endpoint.routes)
        let storage = RecordingTokenStorage(endpoint: endpoint)
        storage.failingSaves.withLock { $0 = 1 }
        let tokens = OAuth2Tokens(storage: storage)
        let fetcher = try fetcher(options(server))
        await #expect {
            _ = try await fetcher.fetch(context: context(tokens: tokens))
        } throws: { error in
            ((error as? StageError)?.message ?? "").hasPrefix(
                "the token from 127.0.0.1:\(server.port) could not be saved, so it is not used")
        }
        #expect(endpoint.apiCalls == 0 && endpoint.refusals == 0)
        // The next refresh renews with the refresh token the server rotated in, and saves.
        _ = try await fetcher.fetch(context: context(now: Self.start.addingTimeInterval(300), tokens: tokens))
        #expect(endpoint.tokensIssued == 2)
        #expect(endpoint.apiCalls == 1)
        #expect(storage.tokens.first?.refreshToken == endpoint.currentRefreshToken)
    }

    // MARK: - 401

    @Test func a401RenewsTheTokenOnceAndSendsTheRequestOnceMore() async throws {
        let endpoint = endpoint()
        let server = try TestHTTPServer(routes: endpoint.routes)
        let tokens = OAuth2Tokens()
        let fetcher = try fetcher(options(server))
        _ = try await fetcher.fetch(context: context(tokens: tokens))
        // The server's clock runs ahead: it thinks the token expired, the widget does not.
        endpoint.now = Self.start.addingTimeInterval(3700)
        let payload = try await fetcher.fetch(context: context(now: Self.start.addingTimeInterval(600), tokens: tokens))
        #expect(try JSONReader.read(payload.data)["ok"] == true)
        #expect(endpoint.tokensIssued == 2)
        #expect(endpoint.refusals == 1)
        #expect(endpoint.apiCalls == 2)
    }

    @Test func a401ToTheRenewedTokenTooFailsAfterOneRetry() async throws {
        let endpoint = endpoint()
        let server = try TestHTTPServer(routes: endpoint.routes)
        endpoint.refusesEveryToken = true
        let fetcher = try fetcher(options(server))
        await #expect {
            _ = try await fetcher.fetch(context: context(tokens: OAuth2Tokens()))
        } throws: { error in
            let message = (error as? StageError)?.message ?? ""
            return message.hasPrefix("127.0.0.1:\(server.port) answered 401 Unauthorized")
                && message.contains("again with a new access token from 127.0.0.1:\(server.port); check that the token's \"scope\"")
                && !message.contains("at-")
        }
        #expect(endpoint.tokensIssued == 2)
        #expect(endpoint.refusals == 2)
    }

    // MARK: - Sharing

    @Test func widgetsWithTheSameCredentialsShareOneTokenAndOneRenewal() async throws {
        let endpoint = endpoint()
        let server = try TestHTTPServer(routes: endpoint.routes)
        let tokens = OAuth2Tokens()
        let fetchers = try (0..<5).map { try fetcher(options(server, grant: "client_credentials", path: "/api?widget=\($0)")) }
        let context = context(tokens: tokens)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for fetcher in fetchers { group.addTask { _ = try await fetcher.fetch(context: context) } }
            try await group.waitForAll()
        }
        #expect(endpoint.tokensIssued == 1)
        // All refused at once: one renewal between them.
        endpoint.now = Self.start.addingTimeInterval(3700)
        let later = self.context(now: Self.start.addingTimeInterval(60), tokens: tokens)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for fetcher in fetchers { group.addTask { _ = try await fetcher.fetch(context: later) } }
            try await group.waitForAll()
        }
        #expect(endpoint.tokensIssued == 2)
        #expect(endpoint.apiCalls == 10)
        // Another scope is another token.
        _ = try await fetcher(options(server, grant: "client_credentials", extra: ["scope": "admin"])).fetch(context: later)
        #expect(endpoint.tokensIssued == 3)
    }

    // MARK: - Secrets

    @Test func noTokenOrSecretReachesThePayloadOrAMessage() async throws {
        let endpoint = endpoint()
        let server = try TestHTTPServer(routes: endpoint.routes)
        let tokens = OAuth2Tokens()
        let payload = try await fetcher(options(server)).fetch(context: context(tokens: tokens))
        #expect(payload.request == "GET \(server.url("/api").absoluteString) (Authorization: Bearer ••••)")
        let credentials = try #require(fetcher(options(server)).oauth2).credentials(context: context(tokens: tokens))
        let token = try await tokens.token(
            for: credentials, now: Self.start, http: context(tokens: tokens).http, timeout: 10, connectTimeout: 10)
        #expect(!"\(token)".contains(token.accessToken))
        #expect("\(token)".contains("Bearer ••••") || "\(token)".contains("bearer ••••"))
        for text in [payload.request ?? "", payload.origin] {
            #expect(!text.contains(Self.clientSecret) && !text.contains("at-") && !text.contains("rt-"))
        }
    }

    @Test func aRefusalOfTheTokenEndpointIsExplainedWithoutTheSecret() async throws {
        let endpoint = TestTokenEndpoint(clientID: "app", clientSecret: "another", refreshToken: "elsewhere", now: Self.start)
        let server = try TestHTTPServer(routes: endpoint.routes)
        await #expect {
            _ = try await fetcher(options(server, grant: "client_credentials")).fetch(context: context(tokens: OAuth2Tokens()))
        } throws: { error in
            let message = (error as? StageError)?.message ?? ""
            return message
                == "the token endpoint 127.0.0.1:\(server.port) answered 401 Unauthorized: invalid_client (Client authentication failed.); check \"clientID\" and \"clientSecret\" (and the secrets they read); if they are right, the server may want them in the form: set \"clientAuth\": \"body\""
        }
        let rightClient = TestTokenEndpoint(clientID: "app", clientSecret: Self.clientSecret, refreshToken: "elsewhere", now: Self.start)
        let other = try TestHTTPServer(routes: rightClient.routes)
        await #expect {
            _ = try await fetcher(options(other)).fetch(context: context(tokens: OAuth2Tokens()))
        } throws: { error in
            let message = (error as? StageError)?.message ?? ""
            return message.contains("answered 400 Bad Request: invalid_grant (The refresh token is invalid or was already used.)")
                && message.contains("the refresh token was revoked, expired or already used") && !message.contains(Self.refreshToken)
        }
    }

    // MARK: - Checks

    @Test func theOAuth2BlockIsCheckedWhereItIsWritten() throws {
        let server = try TestHTTPServer(routes: [])
        #expect(
            problem(options(server, grant: "refresh_token", extra: ["refreshToken": .null]))?.contains(
                "\"oauth2\": the grant \"refresh_token\" needs \"refreshToken\"") == true)
        #expect(
            problem(options(server, extra: ["clientSecret": "written-out"]))?.contains("\"clientSecret\" is written out in the definition")
                == true)
        #expect(
            problem(options(server, extra: ["tokenURL": "http://auth.example.com/token"]))?.contains(
                "\"tokenURL\" is http to auth.example.com, which would send the client secret and tokens in clear") == true)
        #expect(problem(options(server, extra: ["grant": "password"]))?.contains("use \"client_credentials\" or \"refresh_token\"") == true)
        #expect(problem(options(server, extra: ["tokenURL": "https://auth.example.com/token"])) == nil)
        var both = options(server)
        if case .object(var object) = both {
            object["headers"] = ["authorization": "Bearer {{ env.TOKEN }}"]
            both = .object(object)
        }
        #expect(
            problem(both) == "$.headers: \"headers\" has \"authorization\", which \"oauth2\" sets to its access token; remove one of them")
        #expect(
            problem(options(server, grant: "client_credentials", extra: ["refreshToken": "{{ env.REFRESH }}"]))?.contains("remove it")
                == true)
    }
}
