import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTesting

struct HTTPFetcherTests {
    /// 2026-11-22T09:36:43Z.
    let now = Date(timeIntervalSince1970: 1_795_340_203)

    private func context(
        inputs: WidgetObject = [:],
        params: WidgetObject = [:],
        secrets: [String: String] = ["TOKEN": "s3cr3t-value"]
    ) -> StageContext {
        StageContext(
            widgetID: "test",
            now: now,
            timeZone: TimeZone(identifier: "America/New_York")!,
            inputs: inputs,
            params: params,
            secrets: SecretStore(environment: secrets)
        )
    }

    private func fetcher(_ options: WidgetValue) throws -> HTTPFetcher {
        let stage = try StageRegistry.builtIn.makeStage(.fetcher, typeName: "http", options: options, decoder: OptionsDecoder())
        return try #require(stage as? HTTPFetcher)
    }

    private func optionsError(_ options: WidgetValue) -> OptionsError? {
        do {
            _ = try StageRegistry.builtIn.makeStage(.fetcher, typeName: "http", options: options, decoder: OptionsDecoder())
            return nil
        } catch {
            return error
        }
    }

    /// One server for the whole suite.
    private static let sharedServer = Result { try TestHTTPServer() }

    private func startServer() throws -> TestHTTPServer {
        try Self.sharedServer.get()
    }

    private func url(_ server: TestHTTPServer, _ pathAndQuery: String) -> WidgetValue {
        .string(server.url(pathAndQuery).absoluteString)
    }

    /// The request the test server's `/echo` saw.
    private func echo(_ payload: Payload) throws -> WidgetValue {
        try JSONReader.read(payload.data)
    }

    // MARK: - Success

    @Test func getsJSONWithItsContentTypeAndMetadata() async throws {
        let server = try startServer()
        let payload = try await fetcher(["url": url(server, "/json?size=2")]).fetch(context: context())
        #expect(payload.contentType == "application/json")
        #expect(payload.origin == "http://127.0.0.1:\(server.port)/json")
        #expect(payload.status == 200)
        let value = try JSONReader.read(payload.data)
        #expect(value["count"] == 2)
        #expect(value["items"]?[1]?["score"]?.number?.text == "2.5")
    }

    @Test func validatorsArePassedOnWithThePayload() async throws {
        let server = try startServer()
        let payload = try await fetcher(["url": url(server, "/etag")]).fetch(context: context())
        #expect(payload.validators.etag == "\"v1\"")
        #expect(payload.validators.lastModified == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test func theDeclaredCharsetReachesThePayload() async throws {
        let server = try startServer()
        let payload = try await fetcher(["url": url(server, "/content?type=text/plain;%20charset=ISO-8859-1&body=caf%C3%A9&latin1=1")])
            .fetch(context: context())
        #expect(payload.contentType == "text/plain")
        #expect(payload.charset == "iso-8859-1")
        #expect(payload.text == "café")
    }

    // MARK: - Error statuses

    @Test func status503PassesRetryAfterOn() async throws {
        let server = try startServer()
        let error = await #expect(throws: StageError.self) {
            _ = try await fetcher(["url": url(server, "/status/503?retry-after=120")]).fetch(context: context())
        }
        #expect(error?.message == #"127.0.0.1:\#(server.port) answered 503 Service Unavailable: {"status": 503}"#)
        #expect(error?.retryAfter == 120)
    }

    @Test func status429ReadsAnHTTPDateRetryAfterFromTheContextsNow() async throws {
        let server = try startServer()
        let error = await #expect(throws: StageError.self) {
            _ = try await fetcher(["url": url(server, "/status/429?retry-after=Sun,%2022%20Nov%202026%2009:38:13%20GMT")])
                .fetch(context: context())
        }
        #expect(error?.message == #"127.0.0.1:\#(server.port) answered 429 Too Many Requests: {"status": 429}"#)
        #expect(error?.retryAfter == 90)
    }

    @Test func status404FailsWithoutRetryAfter() async throws {
        let server = try startServer()
        let error = await #expect(throws: StageError.self) {
            _ = try await fetcher(["url": url(server, "/status/404?retry-after=30")]).fetch(context: context())
        }
        #expect(error?.message == #"127.0.0.1:\#(server.port) answered 404 Not Found: {"status": 404}"#)
        #expect(error?.retryAfter == nil)
    }

    @Test func anErrorStatusCarriesTheStartOfWhatTheServerSaid() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/search") { _ in
                .text(
                    "{\n  \"error\": \"unknown parameter\",\n  \"detail\": \"'q' is required\"\n}", status: 400,
                    contentType: "application/problem+json")
            },
            TestHTTPRoute("GET", "/proxy") { _ in
                .text(
                    "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title><style>h1 { color: red }</style></head>"
                        + "<body><h1>Bad Gateway</h1><p>The upstream &amp; its cache are down.</p></body></html>",
                    status: 502, contentType: "text/html")
            },
            TestHTTPRoute("GET", "/long") { _ in .text(String(repeating: "abcdefghij", count: 100), status: 500) },
            TestHTTPRoute("GET", "/binary") { _ in .data(Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0x01]), status: 500, contentType: "image/png")
            },
            TestHTTPRoute("GET", "/untyped") { _ in .data(Data([0x00, 0xFF, 0xFE, 0x41]), status: 500, contentType: nil) },
            TestHTTPRoute("GET", "/plain") { _ in .data(Data("quota exceeded\n".utf8), status: 429, contentType: nil) },
            TestHTTPRoute("GET", "/blank") { _ in .text(" \n\t ", status: 500) },
        ])
        func message(_ path: String) async -> String? {
            let error = await #expect(throws: StageError.self) {
                _ = try await fetcher(["url": url(server, path)]).fetch(context: context())
            }
            return error?.message
        }
        let host = "127.0.0.1:\(server.port)"
        #expect(
            await message("/search") == #"\#(host) answered 400 Bad Request: { "error": "unknown parameter", "detail": "'q' is required" }"#
        )
        #expect(
            await message("/proxy") == "\(host) answered 502 Bad Gateway: 502 Bad Gateway Bad Gateway The upstream & its cache are down.")
        #expect(
            await message("/long") == "\(host) answered 500 Internal Server Error: " + String(repeating: "abcdefghij", count: 20) + "…")
        #expect(await message("/binary") == "\(host) answered 500 Internal Server Error")
        #expect(await message("/untyped") == "\(host) answered 500 Internal Server Error")
        #expect(await message("/plain") == "\(host) answered 429 Too Many Requests: quota exceeded")
        #expect(await message("/blank") == "\(host) answered 500 Internal Server Error")
    }

    @Test func aSecretTheServerRepeatsInItsErrorIsMasked() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/denied") { request in
                .json(
                    ["error": .string("invalid key '\(request.query("key") ?? "")' for \(request.headers["Authorization"] ?? "")")],
                    status: 401)
            }
        ])
        let options: WidgetValue = [
            "url": .string(server.url("/denied").absoluteString + "?key={{ env.TOKEN }}"),
            "headers": ["Authorization": "Bearer {{ env.TOKEN | base64_encode }}"],
        ]
        let error = await #expect(throws: StageError.self) {
            _ = try await fetcher(options).fetch(context: context())
        }
        #expect(error?.message == #"127.0.0.1:\#(server.port) answered 401 Unauthorized: {"error":"invalid key '***' for Bearer ***"}"#)
    }

    // MARK: - Requests

    @Test func anObjectBodyIsPostedAsJSON() async throws {
        let server = try startServer()
        let options: WidgetValue = [
            "url": url(server, "/echo"),
            "body": ["method": "session-stats", "id": "{{ params.id }}", "amount": "{{ params.amount }}"],
        ]
        let amount = try JSONReader.read("12.50")
        let payload = try await fetcher(options).fetch(context: context(params: ["id": "x-1", "amount": amount]))
        let request = try echo(payload)
        #expect(request["method"] == "POST")
        #expect(request["headers"]?["content-type"] == "application/json")
        #expect(request["body"] == #"{"method":"session-stats","id":"x-1","amount":12.50}"#)
    }

    @Test func aStringBodyIsSentAsWrittenWithTheGivenMethodAndHeaders() async throws {
        let server = try startServer()
        let options: WidgetValue = [
            "url": url(server, "/echo"),
            "method": "put",
            "headers": ["Content-Type": "text/plain", "X-Widget": "{{ widget.id }}"],
            "body": "name={{ params.name }}",
        ]
        let payload = try await fetcher(options).fetch(context: context(params: ["name": "Ada"]))
        let request = try echo(payload)
        #expect(request["method"] == "PUT")
        #expect(request["body"] == "name=Ada")
        #expect(request["headers"]?["content-type"] == "text/plain")
        #expect(request["headers"]?["x-widget"] == "test")
    }

    @Test func theURLIsTemplatedFromInputsAndParams() async throws {
        let server = try startServer()
        let options: WidgetValue = ["url": "{{ params.base }}/echo?joke={{ inputs.daily.joke_id }}&day={{ 'now' | date: '%Y-%m-%d' }}"]
        let base = "http://127.0.0.1:\(server.port)"
        let payload = try await fetcher(options).fetch(
            context: context(inputs: ["daily": ["joke_id": 42]], params: ["base": .string(base)]))
        let request = try echo(payload)
        #expect(request["method"] == "GET")
        #expect(request["query"] == "joke=42&day=2026-11-22")
        #expect(payload.origin == "\(base)/echo")
    }

    @Test func aURLTemplateThatGivesNoURLIsAnError() async throws {
        let error = await #expect(throws: StageError.self) {
            _ = try await fetcher(["url": "{{ params.base | default: '' }}/items"]).fetch(context: context())
        }
        #expect(error?.message == "the url template did not give an http or https URL; check the values it reads")
        let missing = await #expect(throws: StageError.self) {
            _ = try await fetcher(["url": "{{ params.base }}/items"]).fetch(context: context())
        }
        #expect(missing?.message == "the url template failed: 'params' has no member 'base' at column 4; it has no members")
    }

    // MARK: - Secrets

    @Test func headersReadSecretsFromEnv() async throws {
        let server = try startServer()
        let options: WidgetValue = ["url": url(server, "/echo"), "headers": ["Authorization": "Bearer {{ env.TOKEN }}"]]
        let payload = try await fetcher(options).fetch(context: context())
        #expect(try echo(payload)["headers"]?["authorization"] == "Bearer s3cr3t-value")
    }

    @Test func aSecretInTheURLNeverReachesAnErrorOrTheOrigin() async throws {
        let server = try startServer()
        let base = "http://127.0.0.1:\(server.port)"
        let failing = await #expect(throws: StageError.self) {
            _ = try await fetcher(["url": .string(base + "/status/500?token={{ env.TOKEN }}")]).fetch(context: context())
        }
        #expect(failing?.message == #"127.0.0.1:\#(server.port) answered 500 Internal Server Error: {"status": 500}"#)
        #expect(failing?.message.contains("s3cr3t") == false)
        let payload = try await fetcher(["url": .string(base + "/echo?token={{ env.TOKEN }}")]).fetch(context: context())
        #expect(try echo(payload)["query"] == "token=s3cr3t-value")
        #expect(payload.origin == "\(base)/echo")
        let slow = await #expect(throws: StageError.self) {
            _ = try await fetcher(["url": .string(base + "/slow?delay=30&token={{ env.TOKEN }}"), "timeout": "1s", "connectTimeout": "60s"])
                .fetch(context: context())
        }
        #expect(slow?.message.contains("s3cr3t") == false)
    }

    @Test func aSecretInTheURLPathIsMaskedInTheOrigin() async throws {
        // A bot API puts the token in the path, where the origin (shown in parser errors) would carry it.
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("http-fetcher-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("bots3cr3t-value"), withIntermediateDirectories: true)
        try Data("not json".utf8).write(to: root.appendingPathComponent("bots3cr3t-value/updates.txt"))
        let server = try TestHTTPServer(root: root)
        let base = "http://127.0.0.1:\(server.port)"
        let payload = try await fetcher(["url": .string(base + "/file/bot{{ env.TOKEN }}/updates.txt?a={{ env.TOKEN }}")])
            .fetch(context: context())
        #expect(payload.data == Data("not json".utf8))
        #expect(payload.origin == "\(base)/file/bot***/updates.txt")
        let error = #expect(throws: StageError.self) {
            _ = try JSONParser(options: .decoded()).parse(payload, context: context())
        }
        #expect(error?.message.hasPrefix("the payload from \(base)/file/bot***/updates.txt is not valid JSON: ") == true)
        #expect(error?.message.contains("s3cr3t") == false)
    }

    // MARK: - Handshake

    @Test func theHandshakeStatusIsAnsweredByEchoingTheHeader() async throws {
        let server = try startServer()
        let token = UUID().uuidString
        let options: WidgetValue = [
            "url": url(server, "/handshake?token=\(token)"),
            "method": "POST",
            "body": ["method": "session-stats"],
            "handshake": ["status": 409, "header": "X-Transmission-Session-Id"],
        ]
        let payload = try await fetcher(options).fetch(context: context())
        #expect(try JSONReader.read(payload.data) == .object(["session": .string(token)]))
        let counts = try JSONReader.read(try await HTTPClient().send(HTTPRequest(url: server.url("/count"))).body)
        #expect(counts["targets"]?["/handshake?token=\(token)"] == 2)
    }

    @Test func withoutHandshakeTheStatusIsAnError() async throws {
        let server = try startServer()
        let error = await #expect(throws: StageError.self) {
            _ = try await fetcher(["url": url(server, "/handshake")]).fetch(context: context())
        }
        #expect(error?.message == #"127.0.0.1:\#(server.port) answered 409 Conflict: {"error": "missing session id"}"#)
    }

    // MARK: - Limits

    @Test func aServerSlowerThanTheTimeoutFailsWithItsHost() async throws {
        let server = try startServer()
        let error = await #expect(throws: StageError.self) {
            _ = try await fetcher(["url": url(server, "/slow?delay=30"), "timeout": "1s", "connectTimeout": "60s"]).fetch(
                context: context())
        }
        #expect(error?.message == "127.0.0.1:\(server.port) did not answer within 1 s")
    }

    @Test func aBodyLargerThanMaxBytesFails() async throws {
        let server = try startServer()
        let error = await #expect(throws: StageError.self) {
            _ = try await fetcher(["url": url(server, "/huge?bytes=2000"), "maxBytes": 1000]).fetch(context: context())
        }
        #expect(error?.message == "the response from 127.0.0.1:\(server.port) announced 2000 bytes, more than the 1000-byte limit")
    }

    @Test func redirectsBeyondMaxRedirectsFail() async throws {
        let server = try startServer()
        let followed = try await fetcher(["url": url(server, "/redirect/2"), "maxRedirects": 2]).fetch(context: context())
        #expect(followed.status == 200)
        let error = await #expect(throws: StageError.self) {
            _ = try await fetcher(["url": url(server, "/redirect/2"), "maxRedirects": 1]).fetch(context: context())
        }
        #expect(error?.message == "the request to 127.0.0.1:\(server.port) was redirected more than 1 times, the limit")
    }

    // MARK: - Options

    @Test func anInvalidConstantURLIsRejectedWhenBuilt() throws {
        let expected = #"$.url: "url" is not an http or https URL; write e.g. "https://example.com/feed.json""#
        #expect(optionsError(["url": "ftp://example.com/feed.json"])?.description == expected)
        #expect(optionsError(["url": "example.com/feed.json"])?.description == expected)
        #expect(optionsError(["url": "https://"])?.description == expected)
        #expect(optionsError(["url": "https://{{ params.host }}/feed.json"]) == nil)
    }

    @Test func maxRedirectsAboveFiveIsRejected() throws {
        let expected = #"$.maxRedirects: "maxRedirects" must be from 0 to 5, not "#
        #expect(optionsError(["url": "https://example.com", "maxRedirects": 6])?.description == expected + "6")
        #expect(optionsError(["url": "https://example.com", "maxRedirects": -1])?.description == expected + "-1")
        #expect(optionsError(["url": "https://example.com", "maxRedirects": 5]) == nil)
    }

    @Test func otherBadOptionsAreRejectedAtTheOption() throws {
        #expect(
            optionsError(["url": "https://example.com", "method": "FETCH"])?.description
                == #"$.method: "method" is "FETCH"; use one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS"#)
        #expect(optionsError(["url": "https://example.com", "maxBytes": 0])?.description == #"$.maxBytes: "maxBytes" must be above 0"#)
        #expect(
            optionsError(["url": "https://example.com", "timeout": "0s"])?.description
                == #"$.timeout: "timeout" and "connectTimeout" must be above 0s"#)
        #expect(optionsError(["url": "https://example.com", "timeout": "10 seconds"])?.path.description == "$.timeout")
        #expect(
            optionsError(["url": "https://example.com", "header": [:]])?.description
                == "$.header: unknown key 'header'; did you mean 'headers'?")
    }

    @Test func theMethodDefaultsToPostWithABody() throws {
        #expect(try fetcher(["url": "https://example.com"]).method == "GET")
        #expect(try fetcher(["url": "https://example.com", "body": ["a": 1]]).method == "POST")
        #expect(try fetcher(["url": "https://example.com", "method": "delete"]).method == "DELETE")
    }
}
