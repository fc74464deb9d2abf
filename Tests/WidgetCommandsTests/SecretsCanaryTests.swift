import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetLiquid
import WidgetRuntime
import WidgetStages
import WidgetTestSupport
import WidgetTesting

/// A secret given to the built `widgetd` through the environment (`env.NAME`) or a secrets folder
/// (`secret.NAME`, from `--secrets` or `$CREDENTIALS_DIRECTORY`) and used in a source's URL path, query,
/// headers and body must reach the server and nothing else: no snapshot, index, metrics or state file, and
/// no output of any command, whether the refreshes succeed or fail.
@Suite(.timeLimit(.minutes(5)))
struct SecretsCanaryTests {
    static let canary = "CANARY-5f3a9c"
    /// A host written as one decimal number: it is read locally (accepted or refused by the URL loader),
    /// never looked up on a name server.
    static let hostCanary = "2130706433"
    static let environment = ["WIDGETD_TEST_TOKEN": canary, "WIDGETD_TEST_HOST": hostCanary]
    /// The secret kept in a file of the secrets folder, as systemd's `LoadCredential=` leaves it.
    static let fileCanary = "FILED-81d2e7"

    /// A widget that sends the secret in the path, the query, a header and the body of a request for
    /// `route` (a route of the server, behind its `/secret/<s>/` prefix, which checks the secret arrived and
    /// never sends it back), with `extra` options.
    static func widget(_ server: TestHTTPServer, route: String, extra: String = "") -> String {
        let base = server.baseURL.absoluteString
        let separator = route.contains("?") ? "&" : "?"
        return """
            {"source": {"url": "\(base)secret/{{ env.WIDGETD_TEST_TOKEN }}\(route)\(separator)key={{ env.WIDGETD_TEST_TOKEN }}",
              "headers": {"Authorization": "Bearer {{ env.WIDGETD_TEST_TOKEN }}"},
              "body": {"token": "{{ env.WIDGETD_TEST_TOKEN }}"}\(extra)},
             "parser": "json", "timeline": "single", "placeholder": {"text": "Loading…"}}
            """
    }

    @Test func secretReachesTheServerAndNoOutputFileLogOrCommand() async throws {
        let server = try TestHTTPServer()
        // A 503 with Retry-After holds back every widget on its host: the two that answer so have a server
        // each, so that they hold back no other widget, nor each other.
        let unavailable = try TestHTTPServer()
        let filedUnavailable = try TestHTTPServer()
        let closed = try #require(ClosedPort.make())
        defer { withExtendedLifetime(closed) {} }
        let closedPort = closed.port
        let folder = try TemporaryFolder()
        let widgets: [String: String] = [
            "good": Self.widget(server, route: "/json"),
            "tagged": Self.widget(server, route: "/conditional?etag=t1"),
            "unavailable": Self.widget(unavailable, route: "/status/503?retry-after=60"),
            "portal": Self.widget(server, route: "/html-error"),
            "broken": Self.widget(server, route: "/truncated"),
            "slow": Self.widget(server, route: "/slow?delay=5", extra: #", "timeout": "1s""#),
            "redirected": Self.widget(server, route: "/redirect/2"),
            "loop": Self.widget(server, route: "/loop"),
            "capped": Self.widget(server, route: "/huge?bytes=5000", extra: #", "maxBytes": 100"#),
            "refused": """
            {"source": {"url": "http://127.0.0.1:\(closedPort)/{{ env.WIDGETD_TEST_TOKEN }}?key={{ env.WIDGETD_TEST_TOKEN }}"},
             "parser": "json"}
            """,
            // A secret host: errors name the host, so they must mask it.
            "secrethost": """
            {"source": {"url": "http://{{ env.WIDGETD_TEST_HOST }}:\(closedPort)/json"}, "parser": "json"}
            """,
            // A host whose variable name comes from the instance's params: masked all the same.
            "paramhost": """
            {"source": {"url": "http://{{ env[params.hostVariable] }}:\(closedPort)/json"}, "parser": "json",
             "instances": [{"id": "a", "params": {"hostVariable": "WIDGETD_TEST_HOST"}}]}
            """,
            "notaurl": """
            {"source": {"url": "{{ env.WIDGETD_TEST_TOKEN }}"}, "parser": "json"}
            """,
            // secret.NAME: the file api_key of the secrets folder.
            "filed": """
            {"source": {"url": "\(server.baseURL.absoluteString)secret/{{ secret.api_key }}/json?key={{ secret['api_key'] }}",
              "headers": {"Authorization": "Bearer {{ secret.api_key }}"}, "body": {"token": "{{ secret.api_key }}"}},
             "parser": "json"}
            """,
            "filedunavailable": """
            {"source": {"url": "\(filedUnavailable.baseURL.absoluteString)secret/{{ secret.api_key }}/status/503?retry-after=60"},
             "parser": "json"}
            """,
        ]
        try folder.write("secrets/api_key", Self.fileCanary + "\n")
        for (id, text) in widgets { try folder.write("widgets.d/\(id).json", text) }

        var outputs: [(String, Widgetd.Output)] = []
        func run(_ arguments: [String], credentials: Bool = false) async throws {
            // The secrets folder by option, or as systemd gives it to a service.
            let variables =
                credentials ? Self.environment.merging(["CREDENTIALS_DIRECTORY": folder.file("secrets").path]) { $1 } : Self.environment
            let arguments =
                credentials || !["validate", "run", "list", "preview"].contains(arguments[0])
                ? arguments : arguments + ["--secrets", "secrets"]
            let output = try await Widgetd.run(arguments, in: folder.url, variables: variables)
            outputs.append((arguments.joined(separator: " "), output))
        }
        try await run(["validate", "--config", "widgets.d"])
        try await run(["run", "--config", "widgets.d", "--out", "out", "--once"])
        try await run(["run", "--config", "widgets.d", "--out", "out", "--once"], credentials: true)
        try await run(["status", "--out", "out"])
        try await run(["list", "--config", "widgets.d", "--out", "out"])
        for id in widgets.keys.sorted() { try await run(["preview", id, "--config", "widgets.d"]) }

        // The secret did travel: the server accepted it in the path, query, header and body.
        let out = folder.file("out")
        let good = try OutputFolder.snapshot("good", in: out)
        #expect(good["status"] == "fresh", "\(good["error"] ?? .null)")
        #expect(try OutputFolder.snapshot("tagged", in: out)["status"] == "fresh")
        #expect(try OutputFolder.snapshot("redirected", in: out)["status"] == "fresh")
        #expect(try OutputFolder.snapshot("unavailable", in: out)["status"] == "placeholder")

        let counts = try JSONReader.read(try await HTTPClient().send(HTTPRequest(url: server.url("/count"))).body)
        #expect(counts["targets"]?["/secret/\(Self.canary)/json?key=\(Self.canary)"] != nil)
        #expect(counts["targets"]?["/secret/\(Self.fileCanary)/json?key=\(Self.fileCanary)"] != nil)
        #expect(try OutputFolder.snapshot("filed", in: out)["status"] == "fresh")

        var leaks: [String] = []
        for (command, output) in outputs {
            for canary in [Self.canary, Self.hostCanary, Self.fileCanary] {
                if output.stdout.contains(canary) { leaks.append("\(canary) in the output of widgetd \(command)") }
                if output.stderr.contains(canary) { leaks.append("\(canary) in the errors of widgetd \(command)") }
            }
        }
        let files = OutputFolder.files(in: out)
        #expect(files.contains("index.json"))
        #expect(files.contains("widgetd.prom"))
        #expect(files.contains { $0.hasPrefix(".state/") })
        for name in files {
            let data = try Data(contentsOf: out.appendingPathComponent(name))
            for canary in [Self.canary, Self.hostCanary, Self.fileCanary] where data.range(of: Data(canary.utf8)) != nil {
                leaks.append("\(canary) in \(name)")
            }
        }
        #expect(leaks == [])

        // What the failing widgets say instead.
        let host = "127.0.0.1:\(server.port)"
        let masked = server.baseURL.absoluteString + "secret/***"
        let expected: [String: String] = [
            "unavailable": "source: 127.0.0.1:\(unavailable.port) answered 503 Service Unavailable: {\"status\": 503}",
            "portal": "parser: \(masked)/html-error sent an HTML page (text/html) where JSON was expected",
            "broken": "source: the response from \(host) ended after 10 of the 100 announced bytes",
            "slow": "source: \(host) did not answer within 1 s",
            "loop": "source: the request to \(host) was redirected more than 5 times, the limit",
            "capped": "source: the response from \(host) announced 5000 bytes, more than the 100-byte limit",
            "refused": "source: the connection to 127.0.0.1:\(closedPort) was refused",
            "filedunavailable": "source: 127.0.0.1:\(filedUnavailable.port) answered 503 Service Unavailable: {\"status\": 503}",
        ]
        for (id, error) in expected.sorted(by: { $0.key < $1.key }) {
            #expect(try OutputFolder.snapshot(id, in: out)["error"] == .string(error), "\(id)")
        }
        let secretHost = try OutputFolder.snapshot("secrethost", in: out)["error"]?.string
        #expect(
            secretHost?.hasPrefix("source: ") == true && secretHost?.contains("***:\(closedPort)") == true, "\(secretHost ?? "no error")")
        let paramHost = try OutputFolder.snapshot("paramhost.a", in: out)["error"]?.string
        #expect(paramHost?.contains("***:\(closedPort)") == true, "\(paramHost ?? "no error")")
        #expect(
            try OutputFolder.snapshot("notaurl", in: out)["error"]
                == "source: the url template did not give an http or https URL; check the values it reads"
        )
    }

    /// A secret of letters no output has by chance, so that any piece of 4 characters that shows is a leak.
    static let splitCanary = "ZQXJ-KVWQ-PXMY"

    /// Every piece of `secret` of 4 characters or more.
    static func pieces(of secret: String) -> [String] {
        let characters = Array(secret)
        var pieces: [String] = []
        for start in 0...(characters.count - 4) {
            for end in (start + 4)...characters.count { pieces.append(String(characters[start..<end])) }
        }
        return pieces
    }

    /// A server that repeats the secret in an error body, placed so that the 200-character cut of the
    /// error's excerpt falls inside it, and a redirect to another origin of a request whose headers hold
    /// the secret: no piece of it reaches a snapshot, the state, the log, `status` or a trace.
    @Test func aSecretSplitByACutOrRedirectedToAnotherOriginReachesNothing() async throws {
        let server = try TestHTTPServer()
        let other = try TestHTTPServer()
        let folder = try TemporaryFolder()
        let base = server.baseURL.absoluteString
        var ids: [String] = []
        for padding in [190, 193, 196, 198, 199] {
            let id = "split-\(padding)"
            ids.append(id)
            let body = String(repeating: "a", count: padding) + "{{ env.WIDGETD_SPLIT }}-said-the-server"
            try folder.write(
                "widgets.d/\(id).json",
                #"{"source": {"url": "\#(base)content?status=400&type=text/plain&body=\#(body)"}, "parser": "json"}"#)
        }
        let target = other.url("/echo").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        try folder.write(
            "widgets.d/redirected.json",
            #"""
            {"source": {"url": "\#(base)goto?status=307&to=\#(target)",
              "headers": {"X-Api-Key": "{{ env.WIDGETD_SPLIT }}", "X-Plain": "plain", "Authorization": "Bearer {{ env.WIDGETD_SPLIT | base64_encode }}"}},
             "parser": "json"}
            """#)
        try folder.write(
            "widgets.d/posted.json",
            #"""
            {"source": {"url": "\#(base)goto?status=308&to=\#(target)", "body": {"key": "{{ env.WIDGETD_SPLIT }}"}}, "parser": "json"}
            """#)
        ids += ["redirected", "posted"]
        let variables = ["WIDGETD_SPLIT": Self.splitCanary]
        var outputs: [(String, Widgetd.Output)] = []
        for arguments in [["run", "--config", "widgets.d", "--out", "out", "--once"], ["status", "--out", "out"]]
            + ids.map({ ["preview", $0, "--config", "widgets.d", "--trace"] }) + ids.map({ ["preview", $0, "--config", "widgets.d"] })
        {
            outputs.append((arguments.joined(separator: " "), try await Widgetd.run(arguments, in: folder.url, variables: variables)))
        }

        let out = folder.file("out")
        let split = try OutputFolder.snapshot("split-196", in: out)["error"]?.string
        #expect(
            split == "source: 127.0.0.1:\(server.port) answered 400 Bad Request: \(String(repeating: "a", count: 196))***-…",
            "\(split ?? "")")
        // The other origin got the request without the secret's headers, and with the plain one.
        let echo = try OutputFolder.snapshot("redirected", in: out)
        #expect(echo["status"] == "fresh", "\(echo["error"] ?? .null)")
        #expect(echo["entries"]?[0]?["content"]?["headers"]?["x-plain"] == "plain")
        #expect(echo["entries"]?[0]?["content"]?["headers"]?["x-api-key"] == nil)
        #expect(echo["entries"]?[0]?["content"]?["headers"]?["authorization"] == nil)
        let posted = try OutputFolder.snapshot("posted", in: out)["error"]?.string
        #expect(posted?.contains("redirected the request to another origin, http://127.0.0.1:\(other.port)") == true, "\(posted ?? "")")

        var leaks: [String] = []
        let pieces = Self.pieces(of: Self.splitCanary)
        for (command, output) in outputs {
            for piece in pieces where output.stdout.contains(piece) || output.stderr.contains(piece) {
                leaks.append("\(piece) in widgetd \(command)")
            }
        }
        for name in OutputFolder.files(in: out) {
            let text = String(decoding: try Data(contentsOf: out.appendingPathComponent(name)), as: UTF8.self)
            for piece in pieces where text.contains(piece) { leaks.append("\(piece) in \(name)") }
        }
        #expect(leaks == [])
    }

    @Test func validateNamesAMissingSecretFileAndWhereItLooked() async throws {
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/w.json", #"{"source": {"url": "https://example.com/?k={{ secret.api_key }}"}}"#)
        try folder.write("secrets/other", "x")
        let withFolder = try await Widgetd.run(["validate", "--config", "widgets.d", "--secrets", "secrets"], in: folder.url)
        #expect(withFolder.status == 1)
        #expect(
            withFolder.stdoutLines == [
                "widgets.d/w.json:1:20: $.source.url: the secret api_key is not a file in the secrets folder secrets; write it to secrets/api_key"
            ])
        let without = try await Widgetd.run(["validate", "--config", "widgets.d"], in: folder.url)
        #expect(
            without.stdoutLines == [
                "widgets.d/w.json:1:20: $.source.url: the secret api_key cannot be read: no secrets folder is given; pass --secrets DIR or run under systemd with LoadCredential=api_key:FILE"
            ])
        let missing = try await Widgetd.run(["validate", "--config", "widgets.d", "--secrets", "nowhere"], in: folder.url)
        #expect(missing.status == 2)
        #expect(missing.stderrLines.first?.hasPrefix("Error: the secrets folder nowhere (from --secrets) cannot be read") == true)
    }

    /// Secrets by construction: a name known when the definition is read, and only filters that keep the
    /// value whole; everything else is a `validate` error naming the fix.
    @Test func secretsAreReadByKnownNamesAndPassedOnWhole() async throws {
        let folder = try TemporaryFolder()
        let cases: [(String, String, String)] = [
            ("dynamic", "{{ env[item.key] }}", "the name of a secret must be written ({{ env.NAME }}) or come from params"),
            ("computed", "{{ [params.root].X }}", "a variable whose name is computed ([…]) could read a secret here"),
            ("whole", "{{ env }}", "{{ env }} would show every environment variable; name one: {{ env.NAME }}"),
            ("sliced", "{{ env.WIDGETD_TEST_TOKEN | slice: 0, 4 }}", "'slice' would change the secret env.WIDGETD_TEST_TOKEN"),
            ("sized", "{{ env.WIDGETD_TEST_TOKEN.size }}", "nothing can be read from inside a secret"),
            ("argument", "{{ 'abc' | replace: 'a', secret.api_key }}", "'replace' cannot take the secret secret.api_key as an argument"),
            (
                "after", "{{ 'Bearer ' | append: env.WIDGETD_TEST_TOKEN | truncate: 9 }}",
                "'truncate' would change the secret env.WIDGETD_TEST_TOKEN"
            ),
            ("unset", "{{ env[params.name] }}", "env[params.name] names no variable for this widget (it has no instances)"),
        ]
        for (id, template, _) in cases {
            try folder.write("widgets.d/\(id).json", #"{"source": {"url": "https://example.com/", "headers": {"X": "\#(template)"}}}"#)
        }
        // What is allowed: written names, names from params, filters that keep the value whole.
        try folder.write(
            "widgets.d/allowed.json",
            #"""
            {"source": {"url": "https://{{ env[params.user] | url_encode }}@example.com/?k={{ secret['api_key'] | url_encode }}",
              "headers": {"Authorization": "{{ 'Bearer ' | append: env.WIDGETD_TEST_TOKEN }}",
                          "X-Basic": "{{ env.WIDGETD_TEST_TOKEN | base64_encode }}"}},
             "instances": [{"id": "home", "params": {"user": "WIDGETD_TEST_TOKEN"}}]}
            """#)
        try folder.write("secrets/api_key", "x")
        let output = try await Widgetd.run(
            ["validate", "--config", "widgets.d", "--secrets", "secrets"], in: folder.url, variables: Self.environment)
        #expect(output.status == 1)
        for (id, _, message) in cases {
            #expect(
                output.stdoutLines.contains { $0.hasPrefix("widgets.d/\(id).json:") && $0.contains(message) }, "\(id): \(output.stdout)")
        }
        #expect(!output.stdout.contains("allowed.json"), "\(output.stdout)")
        #expect(!output.stdout.contains(Self.canary))
    }

    @Test func aSecretOfAnyLengthIsMaskedInEveryForm() {
        let secrets = SecretStore(environment: ["SHORT": "ab", "PASS": "p@ss/wörd"])
        let uses = [
            Template.SecretUse(namespace: .env, name: .literal("SHORT")),
            Template.SecretUse(namespace: .env, name: .parameter(["which"])),
        ]
        let text = "host ab, p@ss/wörd, p%40ss%2Fw%C3%B6rd, \(Data("p@ss/wörd".utf8).base64EncodedString())"
        #expect(secrets.mask(text, uses: uses, params: ["which": "PASS"]) == "host ***, ***, ***, ***")
    }

    @Test func aSecretOutsideASourceIsRejected() async throws {
        let folder = try TemporaryFolder()
        try folder.write(
            "widgets.d/w.json",
            #"""
            {"source": {"url": "https://example.com/"},
             "transforms": [{"type": "map", "fields": {"key": "{{ secret.api_key }}"}}]}
            """#)
        try folder.write("secrets/api_key", "x")
        let output = try await Widgetd.run(["validate", "--config", "widgets.d", "--secrets", "secrets"], in: folder.url)
        #expect(output.status == 1)
        #expect(output.stdout.contains(#"{{ secret.… }} may only be used in a source's "url", "headers" and "body""#))
    }
}
