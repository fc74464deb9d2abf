import Foundation
import Testing
import WidgetCore
import WidgetStages
import WidgetTesting
@testable import WidgetdPlugins

struct TransmissionFetcherTests {
    /// The fake server's credentials (see `Tests/Fixtures/transmission_server.py`).
    static let secrets = SecretStore(environment: [
        "TR_USER": "alice", "TR_PASSWORD": "s3cret-pa55", "TR_WRONG": "not-the-pa55word",
    ])

    static func startServer() throws -> TestHTTPServer {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // WidgetdPluginsTests
            .deletingLastPathComponent()  // Tests
            .appendingPathComponent("Fixtures/transmission_server.py")
        return try TestHTTPServer(script: script)
    }

    static func fetcher(_ options: WidgetValue) throws -> TransmissionFetcher {
        try TransmissionFetcher(options: OptionsDecoder().decode(TransmissionFetcher.Options.self, from: options))
    }

    static func context(port: Int) -> StageContext {
        StageContext(
            widgetID: "bitdream.home",
            now: Date(timeIntervalSince1970: 1_800_000_000),
            params: ["host": "127.0.0.1", "port": .number(WidgetNumber(port)),
                     "userVariable": "TR_USER", "passwordVariable": "TR_PASSWORD"],
            secrets: secrets
        )
    }

    static func requestLog(_ server: TestHTTPServer) throws -> [WidgetValue] {
        try JSONReader.read(Data(contentsOf: server.url("/log"))).array ?? []
    }

    static let expectedAuthorization = "Basic " + Data("alice:s3cret-pa55".utf8).base64EncodedString()

    @Test func followsTheStageRules() {
        let problems = StageConformance.check(
            TransmissionFetcher.self,
            options: ["url": "http://{{ params.host }}:9091/transmission/rpc", "username": "{{ env.TR_USER }}"],
            alongside: .builtIn()
        )
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test func answersTheSessionHandshakeOnceAndReturnsStatsAndTorrents() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        let fetcher = try Self.fetcher([
            "url": "http://{{ params.host }}:{{ params.port }}/transmission/rpc",
            "username": "{{ env.TR_USER }}", "password": "{{ env.TR_PASSWORD }}",
        ])
        let payload = try await fetcher.fetch(context: Self.context(port: server.port))

        let value = try JSONReader.read(payload.data)
        #expect(payload.contentType == "application/json")
        #expect(value["session"]?["activeTorrentCount"] == 2)
        #expect(value["session"]?["downloadSpeed"] == 524288)
        let torrents = try #require(value["torrents"]?.array)
        #expect(torrents.count == 3)
        #expect(torrents.first?["name"] == "debian-13.iso")
        #expect(torrents.first?["percentDone"] == 0.5)
        #expect(torrents.first?["status"] == 4)
        #expect(torrents.first?["eta"] == 1800)
        #expect(torrents.first?.object?.keys == TransmissionFetcher.defaultFields)

        let log = try Self.requestLog(server)
        #expect(log.map { $0["method"] } == ["session-stats", "session-stats", "torrent-get"])
        #expect(log.map { $0["status"] } == [409, 200, 200])
        #expect(log.map { $0["sessionId"] } == [.null, "fake-session-42", "fake-session-42"])
        #expect(log.allSatisfy { $0["authorization"]?.string == Self.expectedAuthorization })
    }

    @Test func takesCredentialsFromTheURLUserInfoAndKeepsThemOutOfTheOrigin() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        let fetcher = try Self.fetcher([
            "url": "http://{{ env[params.userVariable] | url_encode }}:{{ env[params.passwordVariable] | url_encode }}@{{ params.host }}:{{ params.port }}/transmission/rpc",
            "fields": ["name", "rateDownload"],
        ])
        let payload = try await fetcher.fetch(context: Self.context(port: server.port))

        #expect(payload.origin == "http://127.0.0.1:\(server.port)/transmission/rpc")
        let value = try JSONReader.read(payload.data)
        #expect(value["torrents"]?[1] == ["name": "ubuntu-24.04.iso", "rateDownload": 0])
        let log = try Self.requestLog(server)
        #expect(log.last?["authorization"]?.string == Self.expectedAuthorization)
    }

    @Test func aWrongPasswordFailsWithoutShowingTheCredentials() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        let fetcher = try Self.fetcher([
            "url": "http://{{ params.host }}:{{ params.port }}/transmission/rpc",
            "username": "{{ env.TR_USER }}", "password": "{{ env.TR_WRONG }}",
        ])
        let error = await #expect(throws: StageError.self) {
            try await fetcher.fetch(context: Self.context(port: server.port))
        }
        let message = try #require(error?.message)
        #expect(message == "127.0.0.1:\(server.port) answered 401 Unauthorized to session-stats; check the Transmission username and password")
        for secret in ["alice", "not-the-pa55word", Data("alice:not-the-pa55word".utf8).base64EncodedString()] {
            #expect(!message.contains(secret))
        }
    }

    @Test func aServerThatIsNotTransmissionIsNamedInTheError() async throws {
        let server = try Self.startServer()
        defer { server.stop() }
        let fetcher = try Self.fetcher(["url": "http://{{ params.host }}:{{ params.port }}/elsewhere"])
        let error = await #expect(throws: StageError.self) {
            try await fetcher.fetch(context: Self.context(port: server.port))
        }
        #expect(error?.message == "127.0.0.1:\(server.port) answered 404 Not Found to session-stats")
    }

    @Test func rejectsAPasswordWithoutAUsername() {
        #expect(throws: (any Error).self) {
            try Self.fetcher(["url": "http://nas.local:9091/transmission/rpc", "password": "{{ env.TR_PASSWORD }}"])
        }
    }

    @Test func rejectsAConstantURLThatIsNotHTTP() {
        #expect(throws: (any Error).self) {
            try Self.fetcher(["url": "ftp://nas.local/transmission/rpc"])
        }
    }
}
