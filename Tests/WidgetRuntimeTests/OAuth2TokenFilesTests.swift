import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages
import WidgetTestSupport
import WidgetTesting

/// OAuth2 tokens kept in the output folder's state by the daemon: a restart uses the refresh token the
/// server rotated, not the configured one it already spent.
@Suite(.timeLimit(.minutes(5)))
struct OAuth2TokenFilesTests {
    let start = TestWidgets.date("2026-11-22T15:00:00Z")
    static let clientSecret = "cs-SECRET-2b9e"
    static let refreshToken = "rt-0-configured"

    func definition(_ server: TestHTTPServer) -> String {
        """
        {"source": {"url": "\(server.url("/api").absoluteString)",
           "oauth2": {"tokenURL": "\(server.url("/oauth/token").absoluteString)", "grant": "refresh_token",
                      "clientID": "app", "clientSecret": "{{ env.CLIENT_SECRET }}", "refreshToken": "{{ env.REFRESH }}"}},
         "parser": "json", "timeline": "single", "schedule": {"every": "5m"}, "placeholder": {"text": "…"}}
        """
    }

    func runOnce(config: TemporaryFolder, out: TemporaryFolder, at now: Date, refreshToken: String = refreshToken) async throws
        -> WidgetRefresher.Outcome
    {
        let daemon = WidgetDaemon(
            configuration: .init(
                definitions: DefinitionDirectory(path: config.path),
                store: SnapshotStore(directory: out.url),
                reader: TestWidgets.reader,
                refresher: WidgetRefresher(
                    secrets: SecretStore(environment: ["CLIENT_SECRET": Self.clientSecret, "REFRESH": refreshToken])),
                clock: ManualClock(now: now),
                log: { _ in }
            ))
        let report = try await daemon.runOnce()
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
        return try #require(report.outcomes.first)
    }

    @Test func aRestartedDaemonRenewsWithTheRotatedRefreshTokenItSaved() async throws {
        let endpoint = TestTokenEndpoint(clientID: "app", clientSecret: Self.clientSecret, refreshToken: Self.refreshToken, now: start)
        let server = try TestHTTPServer(routes: endpoint.routes)
        let config = try TemporaryFolder("widgetd-config")
        let out = try TemporaryFolder("widgetd-out")
        try config.write("api.json", definition(server))

        let first = try await runOnce(config: config, out: out, at: start)
        #expect(first.snapshot.status == .fresh, "\(first.error.map { "\($0)" } ?? "")")
        #expect(endpoint.tokensIssued == 1)
        // The configured refresh token is spent; the rotated one is in the state, readable by its owner only.
        let folder = out.url.appendingPathComponent(".state/oauth2")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files.count == 1)
        let file = folder.appendingPathComponent(try #require(files.first))
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let saved = try String(contentsOf: file, encoding: .utf8)
        #expect(saved.contains(try #require(endpoint.currentRefreshToken)))
        #expect(!saved.contains(Self.clientSecret))

        // Within the hour: the saved access token serves a new process.
        let second = try await runOnce(config: config, out: out, at: start.addingTimeInterval(600))
        #expect(second.snapshot.status == .fresh)
        #expect(endpoint.tokensIssued == 1)

        // Past it: renewed with the saved, rotated refresh token (the configured one would be refused).
        endpoint.now = start.addingTimeInterval(3600)
        let third = try await runOnce(config: config, out: out, at: start.addingTimeInterval(3600))
        #expect(third.snapshot.status == .fresh, "\(third.error.map { "\($0)" } ?? "")")
        #expect(endpoint.tokensIssued == 2)
        #expect(endpoint.refusals == 0)

        // Nothing else in the output folder holds a token or the secret.
        var leaks: [String] = []
        let names = FileManager.default.subpaths(atPath: out.path) ?? []
        #expect(names.contains("api.json"))
        for name in names where !name.hasPrefix(".state/oauth2") {
            guard let data = FileManager.default.contents(atPath: out.url.appendingPathComponent(name).path) else { continue }
            let text = String(decoding: data, as: UTF8.self)
            for secret in [Self.clientSecret, "at-", "rt-"] where text.contains(secret) { leaks.append("\(secret) in \(name)") }
        }
        #expect(leaks == [])
    }

    @Test func aDayOfFiveMinuteRefreshesEachByANewDaemonRenewsHourlyTokensAsOneDaemonWould() async throws {
        let endpoint = TestTokenEndpoint(clientID: "app", clientSecret: Self.clientSecret, refreshToken: Self.refreshToken, now: start)
        let server = try TestHTTPServer(routes: endpoint.routes)
        let config = try TemporaryFolder("widgetd-config")
        let out = try TemporaryFolder("widgetd-out")
        try config.write("api.json", definition(server))
        var failed: [String] = []
        for tick in 0..<(24 * 12) {
            let now = start.addingTimeInterval(TimeInterval(tick * 300))
            endpoint.now = now
            let outcome = try await runOnce(config: config, out: out, at: now)
            if outcome.snapshot.status != .fresh { failed.append("\(tick): \(outcome.error.map { "\($0)" } ?? "")") }
        }
        print(
            "OAuth2 simulated day, a new daemon for each of 288 refreshes: \(endpoint.tokensIssued) token requests, \(endpoint.refusals) refusals"
        )
        #expect(failed == [])
        #expect(endpoint.tokensIssued == 27)
        #expect(endpoint.refusals == 0)
        #expect(endpoint.apiCalls == 288)
    }

    @Test func aNewConfiguredRefreshTokenReplacesTheSavedOne() async throws {
        let endpoint = TestTokenEndpoint(clientID: "app", clientSecret: Self.clientSecret, refreshToken: Self.refreshToken, now: start)
        let server = try TestHTTPServer(routes: endpoint.routes)
        let config = try TemporaryFolder("widgetd-config")
        let out = try TemporaryFolder("widgetd-out")
        try config.write("api.json", definition(server))
        _ = try await runOnce(config: config, out: out, at: start)
        let current = try #require(endpoint.currentRefreshToken)
        // The user signs in again and writes the new refresh token to the secret: it is used at once,
        // although the saved access token has not expired.
        let again = try await runOnce(config: config, out: out, at: start.addingTimeInterval(60), refreshToken: current)
        #expect(again.snapshot.status == .fresh)
        #expect(endpoint.tokensIssued == 2)
        let presented = endpoint.tokenRequests.last?.text ?? ""
        #expect(presented.contains("refresh_token=\(current)"))
    }
}
