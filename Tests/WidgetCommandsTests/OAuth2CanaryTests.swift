import Foundation
import Testing
import WidgetJSON
import WidgetTestSupport
import WidgetTesting

/// The built `widgetd` with widgets that use `oauth2`, a client secret and a refresh token from the
/// secrets folder, against a token endpoint on 127.0.0.1: the tokens reach the API and nothing else —
/// no output of any command (trace included), no file of the output folder but the token store.
@Suite(.timeLimit(.minutes(5)))
struct OAuth2CanaryTests {
    static let clientSecret = "CLIENT-SECRET-a9f3e1"
    static let refreshToken = "rt-0-REFRESH-c47d"

    @Test func tokensAndClientSecretsReachTheServersAndNoOutput() async throws {
        let endpoint = TestTokenEndpoint(clientID: "app", clientSecret: Self.clientSecret, refreshToken: Self.refreshToken, now: Date())
        let server = try TestHTTPServer(routes: endpoint.routes + [TestHTTPRoute("GET", "/ids") { _ in .json([1, 2]) }])
        let folder = try TemporaryFolder()
        let token = server.url("/oauth/token").absoluteString
        try folder.write("secrets/client_secret", Self.clientSecret + "\n")
        try folder.write("secrets/refresh_token", Self.refreshToken + "\n")
        try folder.write(
            "widgets.d/rotating.json",
            """
            {"source": {"url": "\(server.url("/api").absoluteString)",
               "oauth2": {"tokenURL": "\(token)", "grant": "refresh_token", "clientID": "app",
                          "clientSecret": "{{ secret.client_secret }}", "refreshToken": "{{ secret.refresh_token }}"}},
             "parser": "json", "timeline": "single", "schedule": {"every": "5m"}, "placeholder": {"text": "…"}}
            """)
        try folder.write(
            "widgets.d/fanout.json",
            """
            {"source": {"url": "\(server.url("/ids").absoluteString)"}, "parser": "json",
             "transforms": [{"type": "fetch", "url": "\(server.url("/api").absoluteString)?id={{ item }}",
                             "oauth2": {"tokenURL": "\(token)", "grant": "client_credentials", "clientID": "app",
                                        "clientSecret": "{{ secret.client_secret }}", "clientAuth": "body"}}],
             "timeline": "single", "schedule": {"every": "5m"}, "placeholder": {"text": "…"}}
            """)
        try folder.write(
            "widgets.d/refused.json",
            """
            {"source": {"url": "\(server.url("/api").absoluteString)",
               "oauth2": {"tokenURL": "\(token)", "grant": "client_credentials", "clientID": "someone-else",
                          "clientSecret": "{{ secret.client_secret }}"}},
             "parser": "json", "timeline": "single", "schedule": {"every": "5m"}, "placeholder": {"text": "…"}}
            """)

        var outputs: [(String, Widgetd.Output)] = []
        func run(_ arguments: [String]) async throws {
            let output = try await Widgetd.run(arguments, in: folder.url)
            outputs.append((arguments.joined(separator: " "), output))
        }
        try await run(["validate", "--config", "widgets.d", "--secrets", "secrets"])
        try await run(["run", "--config", "widgets.d", "--out", "out", "--once", "--secrets", "secrets"])
        try await run(["run", "--config", "widgets.d", "--out", "out", "--once", "--secrets", "secrets", "--log-format", "json"])
        try await run(["status", "--out", "out"])
        try await run(["status", "--out", "out", "--format", "json"])
        try await run(["list", "--config", "widgets.d", "--out", "out"])
        // With --out, preview uses the daemon's tokens and keeps a rotated refresh token where it finds it.
        for id in ["rotating", "fanout", "refused"] {
            try await run(["preview", id, "--config", "widgets.d", "--secrets", "secrets", "--trace", "--out", "out"])
        }
        try await run(["preview", "fanout", "--config", "widgets.d", "--secrets", "secrets", "--trace", "--format", "json"])

        #expect(outputs[0].1.status == 0, "\(outputs[0].1.stderr)")
        let out = folder.file("out")
        #expect(try OutputFolder.snapshot("rotating", in: out)["status"] == "fresh")
        #expect(try OutputFolder.snapshot("fanout", in: out)["status"] == "fresh")
        let refused = try OutputFolder.snapshot("refused", in: out)["error"]?.string ?? ""
        #expect(refused.contains("answered 401 Unauthorized: invalid_client"), "\(refused)")
        let trace = outputs.first { $0.0.hasPrefix("preview rotating") }?.1.stdout ?? ""
        #expect(trace.contains("(Authorization: Bearer ••••)"), "\(trace)")

        // Every token issued, and the secrets, reach nothing but the token store.
        let presented = endpoint.tokenRequests.flatMap { request in
            request.text.split(separator: "&").filter { $0.hasPrefix("refresh_token=") }.map { String($0.dropFirst(14)) }
        }
        let secrets = [Self.clientSecret, Self.refreshToken] + endpoint.accessTokens + presented + [endpoint.currentRefreshToken ?? "?"]
        #expect(endpoint.tokensIssued >= 3)
        var leaks: [String] = []
        for (command, output) in outputs {
            for secret in secrets where output.stdout.contains(secret) || output.stderr.contains(secret) {
                leaks.append("\(secret) in widgetd \(command)")
            }
        }
        for name in OutputFolder.files(in: out) where !name.hasPrefix(".state/oauth2/") {
            let data = try Data(contentsOf: out.appendingPathComponent(name))
            for secret in secrets where data.range(of: Data(secret.utf8)) != nil { leaks.append("\(secret) in \(name)") }
        }
        #expect(leaks == [])
        #expect(OutputFolder.files(in: out).contains { $0.hasPrefix(".state/oauth2/") })
    }

    @Test func validateRefusesASecretOutsideTheCredentialsAndAWrittenOutClientSecret() async throws {
        let folder = try TemporaryFolder()
        try folder.write("secrets/host", "auth.example.com\n")
        try folder.write(
            "widgets.d/bad.json",
            """
            {"source": {"url": "https://api.example.com/v1/me",
               "oauth2": {"tokenURL": "https://{{ secret.host }}/token", "grant": "client_credentials", "clientID": "app",
                          "clientSecret": "written-out"}},
             "parser": "json"}
            """)
        let output = try await Widgetd.run(["validate", "--config", "widgets.d", "--secrets", "secrets"], in: folder.url)
        #expect(output.status != 0)
        #expect(
            output.stdout.contains(
                #"$.source.oauth2.tokenURL: {{ secret.… }} may only be used in "oauth2"'s "clientID", "clientSecret", "refreshToken""#),
            "\(output.stdout)")
        #expect(output.stdout.contains(#"$.source.oauth2: "oauth2": "clientSecret" is written out in the definition"#), "\(output.stdout)")
    }
}
