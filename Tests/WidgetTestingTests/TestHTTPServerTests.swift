import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages

@testable import WidgetTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite(.timeLimit(.minutes(5)))
struct TestHTTPServerTests {
    // MARK: - Routes of your own

    @Test func routesAnswerByMethodAndPatternAndSeeTheWholeRequest() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/daily/????-??-??") { request in
                .json(["day": .string(String(request.path.dropFirst(7))), "tag": .string(request.query("tag") ?? "none")])
            },
            TestHTTPRoute("POST", "/items") { request in
                .json(
                    ["body": .string(request.text), "type": .string(request.headers["content-type"] ?? "")],
                    status: 201, headers: ["X-Seen": request.method]
                )
            },
        ])
        let client = HTTPClient()

        let day = try await client.send(HTTPRequest(url: server.url("/daily/2026-11-22?tag=a+b%21")))
        #expect(day.status == 200)
        #expect(try JSONReader.read(day.body) == ["day": "2026-11-22", "tag": "a b!"])

        let posted = try await client.send(
            HTTPRequest(
                url: server.url("/items"), method: "POST", headers: ["Content-Type": "text/plain"], body: Data("hello".utf8)))
        #expect(posted.status == 201)
        #expect(posted.headers["x-seen"] == "POST")
        #expect(try JSONReader.read(posted.body) == ["body": "hello", "type": "text/plain"])

        // Another method, a path the pattern does not cover: 404.
        #expect(try await client.send(HTTPRequest(url: server.url("/items"))).status == 404)
        #expect(try await client.send(HTTPRequest(url: server.url("/daily/2026-11"))).status == 404)
    }

    @Test func requestsAreRecordedInOrderAndCountedByPathAndTarget() async throws {
        let server = try TestHTTPServer()
        let client = HTTPClient()
        _ = try await client.send(HTTPRequest(url: server.url("/json?size=1")))
        _ = try await client.send(HTTPRequest(url: server.url("/json?size=2")))
        _ = try await client.send(HTTPRequest(url: server.url("/echo"), method: "PUT", body: Data("x".utf8)))
        _ = try await client.send(HTTPRequest(url: server.url("/count")))

        #expect(server.requests.map(\.target) == ["/json?size=1", "/json?size=2", "/echo"])
        #expect(server.requests.last?.method == "PUT")
        #expect(server.requests.last?.body == Data("x".utf8))
        #expect(server.requestCount(path: "/json") == 2)
        #expect(server.requestCount(target: "/json?size=2") == 1)
        #expect(server.requestCount(path: "/count") == 0)
        server.resetRecording()
        #expect(server.requests.isEmpty)
        #expect(server.requestCount(path: "/json") == 0)
    }

    @Test func aHandlerThatThrowsIsAnswered500WithItsError() async throws {
        struct Broken: Error, CustomStringConvertible { var description: String { "no database" } }
        let server = try TestHTTPServer(routes: [TestHTTPRoute("GET", "/") { _ in throw Broken() }])
        let response = try await HTTPClient().send(HTTPRequest(url: server.url("/")))
        #expect(response.status == 500)
        #expect(try JSONReader.read(response.body) == ["error": "the route / failed: no database"])
    }

    @Test func aRequestCarriesAChunkedBodyAndKeepsTheConnectionForTheNext() throws {
        let server = try TestHTTPServer()
        let socket = try RawClient(port: server.port)
        try socket.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
        let first = try socket.readResponse()
        #expect(first.head.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(try JSONReader.read(first.body)["body"] == "hello world")
        try socket.send("GET /json?size=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        let second = try socket.readResponse()
        #expect(try JSONReader.read(second.body)["count"] == 1)
        #expect(server.requests.map(\.target) == ["/echo", "/json?size=1"])
    }

    // MARK: - Misbehaving on purpose

    @Test func aClientThatStopsReadingAnEndlessBodyHoldsUpNoOtherConnection() async throws {
        let server = try TestHTTPServer()
        // A client that asks for an endless body and never reads it: the server's writes fill the socket
        // buffers and wait.
        let stuck = try RawClient(port: server.port)
        try stuck.send("GET /huge?bytes=100000000000&unannounced=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        let waited = try await HTTPClient().send(
            HTTPRequest(url: server.url("/wait?target=%2Fhuge%3Fbytes%3D100000000000%26unannounced%3D1")))
        #expect(waited.status == 200)

        let response = try await HTTPClient().send(HTTPRequest(url: server.url("/json?size=2")))
        #expect(response.status == 200)
        // Stopping wakes the writer that waits for the stuck client: every thread of the server ends.
        server.stop()
        #expect(server.core.liveThreads == 0)
        let refused = await #expect(throws: HTTPClientError.self) { try await HTTPClient().send(HTTPRequest(url: server.url("/json"))) }
        #expect(refused?.kind == .connectionFailed)
        withExtendedLifetime(stuck) {}
    }

    @Test func stoppingEndsAStalledResponse() async throws {
        let server = try TestHTTPServer()
        let client = HTTPClient()
        let stalled = Task {
            try await client.send(HTTPRequest(url: server.url("/stall?seconds=600"), timeout: 600, connectTimeout: 600))
        }
        // Waiting as long as a busy machine may take to send the stalled request.
        let waited = try await client.send(
            HTTPRequest(url: server.url("/wait?target=%2Fstall%3Fseconds%3D600&timeout=120"), timeout: 150, connectTimeout: 150))
        #expect(waited.status == 200)
        server.stop()
        // The connection is closed 90 bytes short of the 100 announced.
        let error = await #expect(throws: HTTPClientError.self) { try await stalled.value }
        #expect(error?.kind == .truncated)
    }

    @Test func theGzipRouteInflatesToItsDocument() async throws {
        let server = try TestHTTPServer()
        let response = try await HTTPClient().send(HTTPRequest(url: server.url("/gzip?bytes=300000")))
        #expect(response.body == Data(#"{"padding": ""#.utf8 + Array(repeating: UInt8(ascii: "x"), count: 300_000) + #""}"#.utf8))
    }

    @Test func gzipDataIsFarSmallerThanWhatItInflatesTo() {
        var gzip = Gzip()
        gzip.append(Array(#"{"padding": ""#.utf8))
        gzip.appendRun(of: UInt8(ascii: "x"), count: 50_000_000)
        gzip.append(Array(#""}"#.utf8))
        let bytes = gzip.finish()
        #expect(bytes.count < 400_000)
        #expect(Array(bytes.prefix(3)) == [0x1F, 0x8B, 8])
        // ISIZE, the last four bytes: the inflated length.
        let size = bytes.suffix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
        #expect(size == 50_000_015)
    }

    @Test func theCRCOfARunEqualsTheCRCOfItsBytes() {
        #expect(Gzip.crc32(Array("123456789".utf8)) == 0xCBF4_3926)  // the standard check value
        for count in [1, 2, 3, 255, 256, 65_537, 100_003] {
            #expect(Gzip.crc32OfRun(0x78, count: count) == Gzip.crc32(Array(repeating: 0x78, count: count)), "\(count)")
        }
        let first = Array("hello, ".utf8)
        let second = Array("world".utf8)
        #expect(Gzip.crc32Combine(Gzip.crc32(first), Gzip.crc32(second), second.count) == Gzip.crc32(first + second))
    }

    @Test func shellPatternsMatchWholePaths() {
        func matches(_ text: String, _ pattern: String) -> Bool {
            TestHTTPRoute.matches(Array(text.unicodeScalars), pattern: Array(pattern.unicodeScalars))
        }
        #expect(matches("/status/503", "/status/*"))
        #expect(matches("/a/b/c", "/a/*"))
        #expect(matches("/daily/2026-11-22", "/daily/????-??-??"))
        #expect(!matches("/daily/2026-11-2", "/daily/????-??-??"))
        #expect(matches("/x/y.json", "/*/*.json"))
        #expect(!matches("/x/y.json5", "/*/*.json"))
        #expect(!matches("/json2", "/json"))
        #expect(matches("/", "*"))
    }
}

/// A client on a plain socket, for what HTTP clients do not do: a chunked request, or never reading.
private final class RawClient {
    let descriptor: Int32

    init(port: Int) throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { throw TestHTTPServerError(message: "could not connect") }
    }

    deinit {
        close(descriptor)
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard write(descriptor, bytes, bytes.count) == bytes.count else { throw TestHTTPServerError(message: "could not send") }
    }

    /// One response with a `Content-Length`: its head and body.
    func readResponse() throws -> (head: String, body: Data) {
        var received: [UInt8] = []
        var byte: UInt8 = 0
        while !received.ends(with: [13, 10, 13, 10]) {
            guard read(descriptor, &byte, 1) == 1 else { throw TestHTTPServerError(message: "the head ended early") }
            received.append(byte)
        }
        let head = String(decoding: received, as: UTF8.self)
        let length =
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        var body = [UInt8](repeating: 0, count: length)
        var count = 0
        while count < length {
            let got = body.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + count, length - count) }
            guard got > 0 else { throw TestHTTPServerError(message: "the body ended early") }
            count += got
        }
        return (head, Data(body))
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
