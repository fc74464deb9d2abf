import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTesting

struct RecordedAPITests {
    /// A folder with a routes table and two recordings.
    static func fixtures(_ table: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("recorded-api-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("api"), withIntermediateDirectories: true)
        try Data(#"{"price": 42}"#.utf8).write(to: folder.appendingPathComponent("api/price.json"))
        try Data(#"{"error": "not found"}"#.utf8).write(to: folder.appendingPathComponent("api/missing.json"))
        try Data(table.utf8).write(to: folder.appendingPathComponent("routes.json"))
        return folder
    }

    static let table = """
        {"routes": [
           {"path": "/api.example.com/v1/price", "query": {"ids": "bitcoin,ether"}, "file": "api/price.json",
            "type": "application/json", "headers": {"Cache-Control": "max-age=60"}},
           {"path": "/api.example.com/v1/daily/????-??-??", "file": "api/price.json", "type": "application/json"},
           {"path": "/api.example.com/v1/empty", "status": 204},
           {"method": "POST", "path": "/api.example.com/v1/rpc", "session": {"token": "abc"}}
         ],
         "scenarios": {"gone": [{"path": "/api.example.com/v1/daily/*", "status": 404, "file": "api/missing.json"}]}}
        """

    @Test func answersWithTheFirstMatchingRecording() async throws {
        let folder = try Self.fixtures(Self.table)
        defer { try? FileManager.default.removeItem(at: folder) }
        let api = try RecordedAPI(folder: folder)
        let server = try TestHTTPServer(routes: [api.route])
        let client = HTTPClient()

        let price = try await client.send(HTTPRequest(url: server.url("/api.example.com/v1/price?ids=bitcoin%2Cether")))
        #expect(price.status == 200)
        #expect(price.contentType == "application/json")
        #expect(price.headers["Cache-Control"] == "max-age=60")
        #expect(price.body == Data(#"{"price": 42}"#.utf8))
        // Another query value: no recording.
        #expect(try await client.send(HTTPRequest(url: server.url("/api.example.com/v1/price?ids=doge"))).status == 404)
        #expect(try await client.send(HTTPRequest(url: server.url("/api.example.com/v1/daily/2026-11-22"))).status == 200)
        let empty = try await client.send(HTTPRequest(url: server.url("/api.example.com/v1/empty")))
        #expect(empty.status == 204)
        #expect(empty.body.isEmpty)
        #expect(server.requests.map(\.target).count == 4)
    }

    @Test func scenariosAnswerFirstAndFailingAnswersEverything() async throws {
        let folder = try Self.fixtures(Self.table)
        defer { try? FileManager.default.removeItem(at: folder) }
        let api = try RecordedAPI(folder: folder)
        let server = try TestHTTPServer(routes: [api.route])
        let client = HTTPClient()
        let daily = HTTPRequest(url: server.url("/api.example.com/v1/daily/2026-11-22"))

        try api.play("gone")
        let gone = try await client.send(daily)
        #expect(gone.status == 404)
        #expect(gone.body == Data(#"{"error": "not found"}"#.utf8))
        try api.play("")
        #expect(try await client.send(daily).status == 200)
        #expect(throws: TestHTTPServerError.self) { try api.play("nope") }

        api.fail(with: 503)
        #expect(try await client.send(daily).status == 503)
        api.fail(with: 0)
        #expect(try await client.send(daily).status == 200)
    }

    @Test func aRouteNamingAHandlerIsAnsweredByIt() async throws {
        let folder = try Self.fixtures(Self.table)
        defer { try? FileManager.default.removeItem(at: folder) }
        let session: RecordedAPI.Handler = { spec, request, api in
            let token = spec["token"]?.string ?? ""
            guard request.headers["X-Session"] == token else {
                return .json(["error": "session"], status: 409, headers: ["X-Session": token])
            }
            return .data(try api.file("api/price.json"), contentType: "application/json")
        }
        let server = try TestHTTPServer(routes: [RecordedAPI(folder: folder, handlers: ["session": session]).route])
        let url = server.url("/api.example.com/v1/rpc")
        let first = try await HTTPClient().send(HTTPRequest(url: url, method: "POST", body: Data("{}".utf8)))
        #expect(first.status == 409)
        let second = try await HTTPClient().send(
            HTTPRequest(url: url, method: "POST", headers: ["X-Session": "abc"], body: Data("{}".utf8)))
        #expect(second.body == Data(#"{"price": 42}"#.utf8))

        // Without the handler, the route says what is missing.
        let bare = try TestHTTPServer(routes: [RecordedAPI(folder: folder).route])
        let missing = try await HTTPClient().send(HTTPRequest(url: bare.url("/api.example.com/v1/rpc"), method: "POST"))
        #expect(missing.status == 501)
    }

    @Test func aTableNamingAMissingFileIsRefusedWhenRead() throws {
        let folder = try Self.fixtures(#"{"routes": [{"path": "/x", "file": "api/nowhere.json"}]}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = #expect(throws: TestHTTPServerError.self) { try RecordedAPI(folder: folder) }
        #expect(error?.message == "routes.json: routes[0]: the file api/nowhere.json does not exist in \(folder.lastPathComponent)")
    }
}
