import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTesting

@testable import WidgetdPlugins

struct TransmissionFetcherTests {
    /// A Transmission server: alice / s3cret-pa55, two session statistics and three torrents.
    static let transmission = FakeTransmission(user: "alice", password: "s3cret-pa55", sessionID: "fake-session-42", challenges: false) {
        method in
        switch method {
        case "session-stats":
            [
                "arguments": [
                    "activeTorrentCount": 2, "downloadSpeed": 524288, "pausedTorrentCount": 1, "torrentCount": 3, "uploadSpeed": 1024,
                    "cumulative-stats": [
                        "downloadedBytes": 1000, "uploadedBytes": 500, "filesAdded": 3, "secondsActive": 3600, "sessionCount": 2,
                    ],
                    "current-stats": [
                        "downloadedBytes": 100, "uploadedBytes": 50, "filesAdded": 1, "secondsActive": 600, "sessionCount": 1,
                    ],
                ],
                "result": "success",
            ]
        case "torrent-get":
            [
                "arguments": [
                    "torrents": [
                        [
                            "id": 1, "name": "debian-13.iso", "status": 4, "percentDone": 0.5, "rateDownload": 524288, "rateUpload": 0,
                            "eta": 1800, "totalSize": 700_000_000, "uploadRatio": 0.1, "error": 0, "errorString": "",
                        ],
                        [
                            "id": 2, "name": "ubuntu-24.04.iso", "status": 6, "percentDone": 1, "rateDownload": 0, "rateUpload": 1024,
                            "eta": -1, "totalSize": 5_000_000_000, "uploadRatio": 2.5, "error": 0, "errorString": "",
                        ],
                        [
                            "id": 3, "name": "fedora-41.iso", "status": 0, "percentDone": 0.25, "rateDownload": 0, "rateUpload": 0,
                            "eta": -1, "totalSize": 2_000_000_000, "uploadRatio": 0, "error": 0, "errorString": "",
                        ],
                    ]
                ],
                "result": "success",
            ]
        default:
            nil
        }
    }

    static func startServer() throws -> TestHTTPServer {
        try TestHTTPServer(routes: [transmission.route])
    }

    /// A harness whose context is a BitDream instance's: its params, and the credentials as secrets.
    static func harness(port: Int) -> StageHarness {
        var harness = StageHarness(now: Date(timeIntervalSince1970: 1_800_000_000))
        harness.context.widgetID = "bitdream.home"
        harness.context.params = [
            "host": "127.0.0.1", "port": .number(WidgetNumber(port)), "userVariable": "TR_USER", "passwordVariable": "TR_PASSWORD",
        ]
        harness.context.secrets = SecretStore(environment: [
            "TR_USER": "alice", "TR_PASSWORD": "s3cret-pa55", "TR_WRONG": "not-the-pa55word",
        ])
        return harness
    }

    static let options = #"""
        {"url": "http://{{ params.host }}:{{ params.port }}/transmission/rpc",
         "username": "{{ env.TR_USER }}", "password": "{{ env.TR_PASSWORD }}"}
        """#

    /// The calls the server received: RPC method, session id, authorization, and the status it answered.
    static func calls(_ server: TestHTTPServer) -> [(method: String?, sessionID: String?, authorization: String?, status: Int)] {
        server.requests.map {
            (
                FakeTransmission.method(of: $0), $0.headers["X-Transmission-Session-Id"], $0.headers["Authorization"],
                transmission.status(of: $0)
            )
        }
    }

    static let expectedAuthorization = "Basic " + Data("alice:s3cret-pa55".utf8).base64EncodedString()

    @Test func followsTheStageRulesAndGivesOneAnswerToManyRefreshesAtOnce() async throws {
        let server = try Self.startServer()
        let problems = await StageConformance.check(
            TransmissionFetcher.self,
            options: [
                "url": "http://{{ params.host }}:{{ params.port }}/transmission/rpc", "username": "{{ env.TR_USER }}",
                "password": "{{ env.TR_PASSWORD }}",
            ],
            context: Self.harness(port: server.port).currentContext(),
            alongside: .builtIn()
        )
        #expect(problems.isEmpty, "\(problems)")
        // Each run made its own three calls: the handshake, then the two methods.
        #expect(server.requests.count == 3 * StageConformance.defaultConcurrentRuns)
    }

    @Test func answersTheSessionHandshakeOnceAndReturnsStatsAndTorrents() async throws {
        let server = try Self.startServer()
        let payload = try await Self.harness(port: server.port).run(TransmissionFetcher.self, options: Self.options)

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

        let calls = Self.calls(server)
        #expect(calls.map(\.method) == ["session-stats", "session-stats", "torrent-get"])
        #expect(calls.map(\.status) == [409, 200, 200])
        #expect(calls.map(\.sessionID) == [nil, "fake-session-42", "fake-session-42"])
        #expect(calls.allSatisfy { $0.authorization == Self.expectedAuthorization })
    }

    @Test func theRuntimesOriginRewritesApplyWithoutWiringInTheStage() async throws {
        let server = try Self.startServer()
        var harness = Self.harness(port: server.port)
        // What `widgetd run --rewrite-origin http://nas.local:9091=http://127.0.0.1:PORT` puts in the resources.
        harness.context.resources.insert(try OriginRewrites(arguments: ["http://nas.local:9091=http://127.0.0.1:\(server.port)"]))
        let payload = try await harness.run(
            TransmissionFetcher.self,
            options:
                #"{"url": "http://nas.local:9091/transmission/rpc", "username": "{{ env.TR_USER }}", "password": "{{ env.TR_PASSWORD }}"}"#
        )
        #expect(try JSONReader.read(payload.data)["torrents"]?.array?.count == 3)
        #expect(payload.origin == "http://127.0.0.1:\(server.port)/transmission/rpc")
        #expect(Self.calls(server).map(\.status) == [409, 200, 200])
    }

    @Test func refreshesOfOneWaveShareTheirCallsThroughTheRuntimesCoalescer() async throws {
        let server = try Self.startServer()
        var wave = Self.harness(port: server.port)
        // What the daemon puts in the resources for each wave: two widgets asking the same server at once
        // share every call.
        wave.context.resources.insert(FetchCoalescer())
        let harness = wave
        async let first = harness.run(TransmissionFetcher.self, options: Self.options)
        async let second = harness.run(TransmissionFetcher.self, options: Self.options)
        let (one, two) = try await (first, second)
        #expect(one.data == two.data)
        #expect(Self.calls(server).map(\.status) == [409, 200, 200])
    }

    @Test func takesCredentialsFromTheURLUserInfoAndKeepsThemOutOfTheOrigin() async throws {
        let server = try Self.startServer()
        let payload = try await Self.harness(port: server.port).run(
            TransmissionFetcher.self,
            options: #"""
                {"url": "http://{{ env[params.userVariable] | url_encode }}:{{ env[params.passwordVariable] | url_encode }}@{{ params.host }}:{{ params.port }}/transmission/rpc",
                 "fields": ["name", "rateDownload"]}
                """#)

        #expect(payload.origin == "http://127.0.0.1:\(server.port)/transmission/rpc")
        let value = try JSONReader.read(payload.data)
        #expect(value["torrents"]?[1] == ["name": "ubuntu-24.04.iso", "rateDownload": 0])
        #expect(Self.calls(server).last?.authorization == Self.expectedAuthorization)
    }

    @Test func aWrongPasswordFailsWithoutShowingTheCredentials() async throws {
        let server = try Self.startServer()
        let error = await #expect(throws: StageError.self) {
            try await Self.harness(port: server.port).run(
                TransmissionFetcher.self,
                options: #"""
                    {"url": "http://{{ params.host }}:{{ params.port }}/transmission/rpc",
                     "username": "{{ env.TR_USER }}", "password": "{{ env.TR_WRONG }}"}
                    """#)
        }
        let message = try #require(error?.message)
        #expect(
            message == "127.0.0.1:\(server.port) answered 401 Unauthorized to session-stats; check the Transmission username and password")
        for secret in ["alice", "not-the-pa55word", Data("alice:not-the-pa55word".utf8).base64EncodedString()] {
            #expect(!message.contains(secret))
        }
    }

    @Test func aServerThatIsNotTransmissionIsNamedInTheError() async throws {
        let server = try Self.startServer()
        let error = await #expect(throws: StageError.self) {
            try await Self.harness(port: server.port).run(
                TransmissionFetcher.self, options: #"{"url": "http://{{ params.host }}:{{ params.port }}/elsewhere"}"#
            )
        }
        #expect(error?.message == "127.0.0.1:\(server.port) answered 404 Not Found to session-stats")
    }

    @Test func rejectsAPasswordWithoutAUsername() throws {
        let error = #expect(throws: OptionsError.self) {
            try StageHarness().make(
                TransmissionFetcher.self,
                options: #"{"url": "http://nas.local:9091/transmission/rpc", "password": "{{ env.TR_PASSWORD }}"}"#
            )
        }
        #expect(error?.description == #"$.password: "password" is set without "username"; give both for basic authentication"#)
    }

    @Test func rejectsAConstantURLThatIsNotHTTP() throws {
        let error = #expect(throws: OptionsError.self) {
            try StageHarness().make(TransmissionFetcher.self, options: #"{"url": "ftp://nas.local/transmission/rpc"}"#)
        }
        #expect(error?.path.description == "$.url")
    }
}
