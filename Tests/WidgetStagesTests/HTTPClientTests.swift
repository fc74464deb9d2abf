import Foundation
import Testing
import WidgetTesting

@testable import WidgetStages

struct HTTPClientTests {
    // MARK: - Responses

    @Test func sendsMethodHeadersAndBodyAndReturnsTheResponse() async throws {
        let server = try TestHTTPServer()
        let client = HTTPClient()
        let request = HTTPRequest(
            url: server.url("/echo?page=2"),
            method: "POST",
            headers: ["X-Widget": "news", "Content-Type": "text/plain"],
            body: Data("hello".utf8)
        )
        let response = try await client.send(request)
        #expect(response.status == 200)
        #expect(response.isSuccess)
        #expect(response.contentType == "application/json")
        #expect(response.headers["content-length"] == String(response.body.count))
        #expect(response.finalURL == server.url("/echo?page=2"))
        let echo = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(echo["method"] as? String == "POST")
        #expect(echo["query"] as? String == "page=2")
        #expect(echo["body"] as? String == "hello")
        let headers = try #require(echo["headers"] as? [String: String])
        #expect(headers["x-widget"] == "news")
        #expect(headers["user-agent"] == "widgetd")
        #expect(client.trackedExchanges == 0)
    }

    @Test func errorStatusesAreResponsesWithTheirRetryAfter() async throws {
        let server = try TestHTTPServer()
        let response = try await HTTPClient().send(HTTPRequest(url: server.url("/status/503?retry-after=120")))
        #expect(response.status == 503)
        #expect(!response.isSuccess)
        #expect(response.retryAfter(now: Date()) == 120)
    }

    @Test func contentTypeAndCharsetAreParsed() async throws {
        let server = try TestHTTPServer()
        let url = server.url("/content?type=Text/Plain;%20Charset=%22ISO-8859-1%22&body=caf%C3%A9&latin1=1")
        let response = try await HTTPClient().send(HTTPRequest(url: url))
        #expect(response.contentType == "text/plain")
        #expect(response.charset == "iso-8859-1")
        #expect(response.body == Data([0x63, 0x61, 0x66, 0xE9]))
    }

    @Test func notModifiedIsAnEmptyResponseNotATruncatedOne() async throws {
        let server = try TestHTTPServer()
        let client = HTTPClient()
        let first = try await client.send(HTTPRequest(url: server.url("/etag")))
        #expect(first.status == 200)
        let etag = try #require(first.headers["ETag"])
        #expect(etag == "\"v1\"")
        let second = try await client.send(
            HTTPRequest(url: server.url("/etag"), headers: ["If-None-Match": etag])
        )
        #expect(second.status == 304)
        #expect(second.body.isEmpty)
    }

    // MARK: - Connections

    #if os(Linux)
    /// Requests to one host reuse a connection, and nothing of one request carries over to the next
    /// sent through the same libcurl handle: not its method, body, header fields or user agent.
    @Test func requestsReuseAConnectionAndNothingOfTheLastRequest() async throws {
        let server = try TestHTTPServer()
        let client = HTTPClient()
        let post = HTTPRequest(
            url: server.url("/echo?first"), method: "POST",
            headers: ["X-Secret": "token", "User-Agent": "custom/1", "Content-Type": "text/plain"],
            body: Data("a body".utf8))
        #expect(try await client.send(post).status == 200)
        let response = try await client.send(HTTPRequest(url: server.url("/echo?second")))
        let echo = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(echo["method"] as? String == "GET")
        #expect(echo["query"] as? String == "second")
        #expect((echo["body"] as? String ?? "").isEmpty)
        let headers = try #require(echo["headers"] as? [String: String])
        #expect(headers["x-secret"] == nil)
        #expect(headers["content-type"] == nil)
        #expect(headers["user-agent"] == "widgetd")
        #expect(try await client.send(HTTPRequest(url: server.url("/echo?third"))).status == 200)
        #expect(server.connectionCount == 1)

        // Closed: the next request opens a new one.
        client.closeIdleConnections()
        #expect(try await client.send(HTTPRequest(url: server.url("/echo?fourth"))).status == 200)
        #expect(server.connectionCount == 2)
    }

    /// Transfers that wait on slow servers hold no other transfer back: 64 requests held by the server
    /// until all 64 have arrived are all in flight at once. (Run on one concurrent Dispatch queue, at
    /// most 39 were, on 2 cores, and the others waited until those ended.)
    @Test(.timeLimit(.minutes(5))) func manySlowTransfersAreAllInFlightAtOnce() async throws {
        let count = 64
        let arrived = NSCondition()
        nonisolated(unsafe) var waiting = 0
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/held") { _ in
                arrived.lock()
                defer { arrived.unlock() }
                waiting += 1
                arrived.broadcast()
                let deadline = Date().addingTimeInterval(40)
                while waiting < count, arrived.wait(until: deadline) {}
                return TestHTTPResponse(status: waiting >= count ? 200 : 504)
            }
        ])
        let client = HTTPClient(maximumConnectionsPerHost: count)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<count {
                group.addTask { try await client.send(HTTPRequest(url: server.url("/held"), timeout: 50, connectTimeout: 50)).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: count))
    }

    /// A connection the server closes, or one a transfer abandoned (a body over the cap), is not reused.
    @Test func aClosedOrAbandonedConnectionIsNotReused() async throws {
        let server = try TestHTTPServer(
            routes: [
                TestHTTPRoute("GET", "/close") { _ in
                    var response = TestHTTPResponse(body: Data("bye".utf8))
                    response.closesConnection = true
                    return response
                },
                TestHTTPRoute("GET", "/big") { _ in TestHTTPResponse(body: Data(repeating: 0x61, count: 100_000)) },
            ] + TestHTTPRoute.builtIn(root: nil))
        let client = HTTPClient()
        #expect(try await client.send(HTTPRequest(url: server.url("/close"))).body == Data("bye".utf8))
        #expect(try await client.send(HTTPRequest(url: server.url("/echo"))).status == 200)
        #expect(server.connectionCount == 2)
        await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPRequest(url: server.url("/big"), maxBytes: 1_000))
        }
        #expect(try await client.send(HTTPRequest(url: server.url("/echo"))).status == 200)
        #expect(server.connectionCount == 3)
    }
    #endif

    // MARK: - Deadlines

    @Test func aTimeoutTooLongToCountIsNoDeadline() async throws {
        let server = try TestHTTPServer()
        for timeout in [1e300, .infinity] {
            #expect(try await HTTPClient().send(HTTPRequest(url: server.url("/echo"), timeout: timeout)).status == 200)
        }
    }

    @Test func aServerThatDoesNotAnswerFailsAtTheDeadline() async throws {
        let server = try TestHTTPServer()
        let request = HTTPRequest(url: server.url("/slow?delay=10&token=SECRET"), timeout: 0.5)
        let error = try #require(await failure(of: request))
        #expect(error.kind == .timedOut)
        #expect(error.message == "127.0.0.1:\(server.port) did not answer within 0.5 s")
        #expect(!error.message.contains("SECRET"))
    }

    @Test func aTricklingBodyFailsAtTheDeadlineNotWhenItEnds() async throws {
        let server = try TestHTTPServer()
        // The whole body would take 40 × 0.25 s = 10 s.
        // Bytes keep arriving every 0.25 s, well within the 10 s silence limit, so only the client's own
        // total deadline can end this exchange as "timed out".
        let request = HTTPRequest(url: server.url("/trickle?bytes=40&interval=0.25"), timeout: 1)
        let error = try #require(await failure(of: request))
        #expect(error.kind == .timedOut)
        #expect(error.message == "127.0.0.1:\(server.port) did not answer within 1 s")
    }

    /// A server that trickles gives the transfer's place back after one window of the minimum rate,
    /// long before the deadline.
    @Test(arguments: [HTTPClient.Transport.automatic, .urlSession])
    func aTricklingResponseFailsAfterOneWindowOfTheMinimumRate(_ transport: HTTPClient.Transport) async throws {
        let server = try TestHTTPServer()
        let request = HTTPRequest(
            url: server.url("/trickle?bytes=1000&interval=0.2"), timeout: 60, connectTimeout: 2,
            minimumRate: HTTPRequest.MinimumRate(bytes: 100, seconds: 2))
        let error = try #require(await failure(of: request, client: HTTPClient(transport: transport)))
        #expect(error.kind == .timedOut)
        #expect(error.message.hasPrefix("127.0.0.1:\(server.port) sent "), "\(error.message)")
        #expect(
            error.message.hasSuffix(
                #" bytes in 2 s, less than the minimum of 100 bytes in 2 s; if the server is that slow, lower or turn off "minimumRate" ({"bytes": 0})"#
            ), "\(error.message)")
    }

    /// A response at a steady rate well above the minimum is received whole; with the check off, a
    /// trickle runs until its deadline.
    @Test func aSteadyResponseAboveTheMinimumRateIsReceivedWhole() async throws {
        let server = try TestHTTPServer()
        let steady = HTTPRequest(
            url: server.url("/huge?bytes=30000&rate=20000"), connectTimeout: 1, minimumRate: HTTPRequest.MinimumRate(bytes: 100, seconds: 1)
        )
        #expect(try await HTTPClient().send(steady).body.count == 30000)
        let unchecked = HTTPRequest(
            url: server.url("/trickle?bytes=40&interval=0.2"), timeout: 1.5, connectTimeout: 2,
            minimumRate: HTTPRequest.MinimumRate(bytes: 0, seconds: 1))
        let message = try #require(await failure(of: unchecked)).message
        #expect(message == "127.0.0.1:\(server.port) did not answer within 1.5 s")
    }

    @Test func aSilentServerFailsAfterTheConnectTimeout() async throws {
        let server = try TestHTTPServer()
        let request = HTTPRequest(url: server.url("/slow?delay=10"), timeout: 30, connectTimeout: 1)
        let error = try #require(await failure(of: request))
        #expect(error.kind == .timedOut)
        #expect(error.message == "127.0.0.1:\(server.port) did not answer within 1 s")
    }

    // MARK: - Byte cap

    @Test func aBodyAnnouncedLargerThanTheCapIsRefused() async throws {
        let server = try TestHTTPServer()
        let request = HTTPRequest(url: server.url("/huge?bytes=2000000"), maxBytes: 1_048_576)
        let error = try #require(await failure(of: request))
        #expect(error.kind == .tooLarge)
        #expect(
            error.message
                == "the response from 127.0.0.1:\(server.port) announced 2000000 bytes, more than the 1048576-byte limit"
        )
    }

    @Test func aChunkedBodyIsStoppedWhenItPassesTheCap() async throws {
        let server = try TestHTTPServer()
        let client = HTTPClient()
        let request = HTTPRequest(url: server.url("/huge?bytes=50000000&chunked=1"), maxBytes: 1_048_576)
        let error = try #require(await failure(of: request, client: client))
        #expect(error.kind == .tooLarge)
        #expect(error.message == "the response from 127.0.0.1:\(server.port) exceeded the 1048576-byte limit")
        #expect(client.trackedExchanges == 0)
    }

    @Test func aBodyOfExactlyTheCapIsAccepted() async throws {
        let server = try TestHTTPServer()
        for chunked in ["0", "1"] {
            let url = server.url("/huge?bytes=1048576&chunked=\(chunked)")
            let response = try await HTTPClient().send(HTTPRequest(url: url, maxBytes: 1_048_576))
            #expect(response.body.count == 1_048_576)
        }
    }

    // MARK: - Redirects

    @Test func fiveRedirectsAreFollowed() async throws {
        let server = try TestHTTPServer()
        let response = try await HTTPClient().send(HTTPRequest(url: server.url("/redirect/5")))
        #expect(response.status == 200)
        #expect(response.finalURL.path == "/redirect/0")
    }

    @Test func aSixthRedirectFails() async throws {
        let server = try TestHTTPServer()
        let error = try #require(await failure(of: HTTPRequest(url: server.url("/redirect/6"))))
        #expect(error.kind == .tooManyRedirects)
        #expect(error.message == "the request to 127.0.0.1:\(server.port) was redirected more than 5 times, the limit")
    }

    @Test func noRedirectIsFollowedWhenTheLimitIsZero() async throws {
        let server = try TestHTTPServer()
        let error = try #require(await failure(of: HTTPRequest(url: server.url("/redirect/1"), maxRedirects: 0)))
        #expect(error.kind == .tooManyRedirects)
    }

    // MARK: - Broken exchanges

    @Test func aBodyShorterThanAnnouncedIsTruncated() async throws {
        let server = try TestHTTPServer()
        let error = try #require(await failure(of: HTTPRequest(url: server.url("/truncated"))))
        #expect(error.kind == .truncated)
        #expect(error.message.hasPrefix("the response from 127.0.0.1:\(server.port) ended after"))
    }

    #if canImport(FoundationNetworking)
    // The words below are the Linux transport's (libcurl); Apple's URLSession reports these cases in its own.

    @Test func aPeerThatDoesNotSpeakHTTPIsNamedSo() async throws {
        let server = try TestHTTPServer()
        let error = try #require(await failure(of: HTTPRequest(url: server.url("/not-http"))))
        #expect(error.kind == .invalidResponse)
        #expect(error.message.hasPrefix("127.0.0.1:\(server.port) did not speak HTTP"))
    }

    @Test func aHeaderFloodFailsAtTheHeaderLimit() async throws {
        let server = try TestHTTPServer()
        let url = server.url("/header-flood?count=20000&token=hunter2")
        let error = try #require(await failure(of: HTTPRequest(url: url)))
        #expect(
            error.message
                == "the response from 127.0.0.1:\(server.port) sent more than 262144 bytes of header and trailer fields, the limit (fixed)")
        #expect(!error.message.contains("hunter2"))
    }
    #endif

    @Test func aNotModifiedAnnouncingAnEnormousLengthIsAnsweredNotTrapped() async throws {
        // A 304 sends no body, so its Content-Length is not held to the cap; room is made for the cap at most.
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/huge-304") { _ in
                .raw { connection in
                    try connection.write("HTTP/1.1 304 Not Modified\r\nContent-Length: 9223372036854775807\r\n\r\n")
                }
            }
        ])
        let response = try await HTTPClient().send(HTTPRequest(url: server.url("/huge-304")))
        #expect(response.status == 304)
        #expect(response.body.isEmpty)
    }

    @Test func aClosedPortIsARefusedConnection() async throws {
        // A port held, not listening (a stopped server's port could be given to another test's server).
        let closed = try #require(ClosedPort.make())
        defer { withExtendedLifetime(closed) {} }
        let port = closed.port
        let error = try #require(await failure(of: HTTPRequest(url: URL(string: "http://127.0.0.1:\(port)/json")!)))
        #expect(error.kind == .connectionFailed)
        #expect(error.message == "the connection to 127.0.0.1:\(port) was refused")
    }

    @Test func aURLThatIsNotHTTPIsRefusedBeforeSending() async throws {
        let request = HTTPRequest(url: URL(string: "ftp://files.example.com/feed.json")!)
        let error = try #require(await failure(of: request))
        #expect(error.kind == .invalidRequest)
        #expect(error.message.contains("\"ftp\" URLs are not supported for files.example.com"))
    }

    // MARK: - Concurrency

    @Test func requestsToOneHostWaitForTheClientsOwnLimit() async throws {
        let server = try TestHTTPServer()
        let client = HTTPClient(maximumConnectionsPerHost: 2)
        let request = HTTPRequest(url: server.url("/slow?delay=0.2"), timeout: 5)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 {
                group.addTask { try await client.send(request).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 20))
        let stats = try await client.send(HTTPRequest(url: server.url("/stats")))
        let object = try #require(try JSONSerialization.jsonObject(with: stats.body) as? [String: Any])
        let maximum = try #require(object["maxConcurrent"] as? Int)
        #expect(maximum >= 1 && maximum <= 2)
        #expect(object["total"] as? Int == 20)
        #expect(client.slotsInUse(request.url) == 0)
        #expect(client.trackedExchanges == 0)
    }

    @Test func theLimitIsPerSchemeHostAndPort() async throws {
        let stalled = try TestHTTPServer()
        let other = try TestHTTPServer()
        let client = HTTPClient(maximumConnectionsPerHost: 1)
        // Silent for a minute, and allowed to be: it holds its slot however slow the rest of the test is.
        let slow = stalled.url("/slow?delay=60")
        let waiting = Task { try await client.send(HTTPRequest(url: slow, timeout: 60, connectTimeout: 60)) }
        defer { waiting.cancel() }
        while client.slotsInUse(slow) == 0 { await Task.yield() }
        // Same address, another port: not held up by the stalled request.
        let response = try await client.send(HTTPRequest(url: other.url("/json")))
        #expect(response.status == 200)
        #expect(client.slotsInUse(slow) == 1)
        #expect(HTTPClient.origin(of: URL(string: "HTTPS://Example.com/x")!) == "https://example.com:443")
        #expect(HTTPClient.origin(of: URL(string: "http://example.com:8080/x")!) == "http://example.com:8080")
    }

    @Test func cancellingTheCallerCancelsTheRequest() async throws {
        let server = try TestHTTPServer()
        let client = HTTPClient()
        let task = Task {
            try await client.send(HTTPRequest(url: server.url("/slow?delay=10"), timeout: 30))
        }
        task.cancel()
        let result = await task.result
        let error = try #require(result.failure as? HTTPClientError)
        #expect(error.kind == .cancelled)
        #expect(client.slotsInUse(server.url("/slow?delay=10")) == 0)
    }

    @Test func aCancelledWaiterLeavesTheHostQueue() async {
        let limiter = HostLimiter(limit: 1)
        #expect(await limiter.acquire("example.com"))
        let waiter = Task { await limiter.acquire("example.com") }
        waiter.cancel()
        #expect(await waiter.value == false)
        limiter.release("example.com")
        #expect(limiter.holders("example.com") == 0)
    }

    @Test func waitersGetTheSlotInOrder() async {
        let limiter = HostLimiter(limit: 1)
        #expect(await limiter.acquire("example.com"))
        let next = Task { await limiter.acquire("example.com") }
        limiter.release("example.com")
        #expect(await next.value)
        #expect(limiter.holders("example.com") == 1)
        limiter.release("example.com")
        #expect(limiter.holders("example.com") == 0)
    }

    // MARK: - Redirects and both transports

    @Test func aSeeOtherAfterAPostIsAGetAndCredentialsStayWithTheirOrigin() async throws {
        let first = try TestHTTPServer()
        let second = try TestHTTPServer()
        let target = second.url("/echo").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let request = HTTPRequest(
            url: first.url("/goto?status=303&to=\(target)"), method: "POST",
            headers: ["Authorization": "Bearer hunter2", "X-Kept": "yes"], body: Data("hello".utf8))
        let response = try await HTTPClient().send(request)
        #expect(response.finalURL == second.url("/echo"))
        let echo = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(echo["method"] as? String == "GET")
        #expect(echo["body"] as? String == "")
        let headers = try #require(echo["headers"] as? [String: String])
        // Another port is another origin: the credential stays behind, the plain header goes on.
        #expect(headers["authorization"] == nil)
        #expect(headers["x-kept"] == "yes")

        let elsewhere = second.url("/echo").absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let moved = try await HTTPClient().send(
            HTTPRequest(
                url: first.url("/goto?status=307&to=\(elsewhere.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"),
                method: "POST", headers: ["Authorization": "Bearer hunter2"], body: Data("hello".utf8)))
        let kept = try #require(try JSONSerialization.jsonObject(with: moved.body) as? [String: Any])
        #expect(kept["method"] as? String == "POST")
        #expect(kept["body"] as? String == "hello")
        #expect((kept["headers"] as? [String: String])?["authorization"] == nil)
    }

    /// Headers filled from a secret are known by construction (``HTTPHeaders/Field/isSecret``), not by
    /// their names: a redirect to another origin drops them with the credential fields, one within the
    /// origin keeps them.
    @Test(arguments: [HTTPClient.Transport.automatic, .urlSession])
    func headersFromSecretsStayWithTheirOrigin(_ transport: HTTPClient.Transport) async throws {
        let first = try TestHTTPServer()
        let second = try TestHTTPServer()
        var headers = HTTPHeaders()
        headers.add(name: "X-Api-Key", value: "hunter2", isSecret: true)
        headers.add(name: "X-Plain", value: "yes")
        headers.add(name: "Cookie", value: "session=1")
        headers.add(name: "Proxy-Authorization", value: "Basic eA==")
        let target = second.url("/echo").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let client = HTTPClient(transport: transport)
        for status in [301, 302, 307, 308] {
            let response = try await client.send(HTTPRequest(url: first.url("/goto?status=\(status)&to=\(target)"), headers: headers))
            let echo = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            let sent = try #require(echo["headers"] as? [String: String])
            #expect(sent["x-plain"] == "yes", "\(status)")
            #expect(sent["x-api-key"] == nil, "\(status)")
            #expect(sent["cookie"] == nil, "\(status)")
            #expect(sent["proxy-authorization"] == nil, "\(status)")
            #expect(!String(decoding: response.body, as: UTF8.self).contains("hunter2"))
        }
        let within = try await client.send(HTTPRequest(url: first.url("/goto?status=307&to=%2Fecho"), headers: headers))
        let echo = try #require(try JSONSerialization.jsonObject(with: within.body) as? [String: Any])
        #expect((echo["headers"] as? [String: String])?["x-api-key"] == "hunter2")
    }

    /// A 307 or 308 keeps the method and body: one holding a secret is not carried to another origin, and
    /// the exchange says so; within the origin, or after a 303, it goes on.
    @Test(arguments: [HTTPClient.Transport.automatic, .urlSession])
    func aBodyHoldingASecretIsNotRedirectedToAnotherOrigin(_ transport: HTTPClient.Transport) async throws {
        let first = try TestHTTPServer()
        let second = try TestHTTPServer()
        let target = second.url("/echo").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let client = HTTPClient(transport: transport)
        func request(_ status: Int, to target: String) -> HTTPRequest {
            HTTPRequest(
                url: first.url("/goto?status=\(status)&to=\(target)"), method: "POST", body: Data("token=hunter2".utf8),
                bodyIsSecret: true)
        }
        for status in [307, 308] {
            let error = try #require(await failure(of: request(status, to: target), client: client), "\(status)")
            #expect(
                error.message
                    == "127.0.0.1:\(first.port) redirected the request to another origin, http://127.0.0.1:\(second.port), which would have been sent the body and the secret in it; a secret goes only to the origin it was written for: if http://127.0.0.1:\(second.port) is meant to have it, write its address in the url"
            )
        }
        let recorded = try JSONSerialization.jsonObject(with: try await client.send(HTTPRequest(url: second.url("/count"))).body)
        #expect((recorded as? [String: [String: Int]])?["paths"]?["/echo"] == nil)

        let within = try await client.send(request(307, to: "%2Fecho"))
        let echo = try JSONSerialization.jsonObject(with: within.body) as? [String: Any]
        #expect(echo?["method"] as? String == "POST")
        if transport == .automatic {
            // (FoundationNetworking's URLSession sends a 307's repeated POST without its body.)
            #expect(echo?["body"] as? String == "token=hunter2")
        }
        let seeOther = try await client.send(request(303, to: target))
        #expect((try JSONSerialization.jsonObject(with: seeOther.body) as? [String: Any])?["method"] as? String == "GET")
    }

    @Test func aRedirectToAnotherSchemeIsRefused() async throws {
        let server = try TestHTTPServer()
        let error = try #require(await failure(of: HTTPRequest(url: server.url("/goto?to=ftp%3A%2F%2Fexample.com%2Fx"))))
        #expect(error.kind == .invalidResponse)
        #expect(error.message == "127.0.0.1:\(server.port) redirected to a location that is not an http:// or https:// URL")
    }

    /// URLSession carries the requests on macOS (and on Linux when asked): the same limits hold through it.
    @Test(arguments: [HTTPClient.Transport.automatic, .urlSession])
    func theLimitsHoldWithEitherTransport(_ transport: HTTPClient.Transport) async throws {
        let server = try TestHTTPServer()
        let client = HTTPClient(transport: transport)
        let echoed = try await client.send(HTTPRequest(url: server.url("/echo"), method: "POST", body: Data("hi".utf8)))
        let echo = try #require(try JSONSerialization.jsonObject(with: echoed.body) as? [String: Any])
        #expect(echo["body"] as? String == "hi")
        #expect(try await client.send(HTTPRequest(url: server.url("/redirect/2"))).finalURL.path == "/redirect/0")
        #expect(try await client.send(HTTPRequest(url: server.url("/gzip?bytes=1000"))).body.count > 1000)

        let capped = await failure(of: HTTPRequest(url: server.url("/huge?bytes=5000000&chunked=1"), maxBytes: 100_000), client: client)
        #expect(capped?.message == "the response from 127.0.0.1:\(server.port) exceeded the 100000-byte limit")
        let truncated = await failure(of: HTTPRequest(url: server.url("/truncated")), client: client)
        #expect(truncated?.kind == .truncated)
        let looped = await failure(of: HTTPRequest(url: server.url("/loop")), client: client)
        #expect(looped?.kind == .tooManyRedirects)
        let stalled = await failure(of: HTTPRequest(url: server.url("/stall?seconds=5"), timeout: 0.3), client: client)
        #expect(stalled?.message == "127.0.0.1:\(server.port) did not answer within 0.3 s")
        #expect(client.trackedExchanges == 0)
    }

    // MARK: - The test server

    @Test func theTestServerServesFilesAndCountsRequests() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("{\"ok\": true}".utf8).write(to: folder.appendingPathComponent("feed.json"))
        let server = try TestHTTPServer(root: folder)
        let client = HTTPClient()

        let file = try await client.send(HTTPRequest(url: server.url("/file/feed.json")))
        #expect(file.status == 200)
        #expect(file.contentType == "application/json")
        #expect(file.body == Data("{\"ok\": true}".utf8))
        let missing = try await client.send(HTTPRequest(url: server.url("/file/../secret")))
        #expect(missing.status == 404)
        _ = try await client.send(HTTPRequest(url: server.url("/json?size=1")))
        _ = try await client.send(HTTPRequest(url: server.url("/json?size=2")))

        let counts = try await client.send(HTTPRequest(url: server.url("/count")))
        let object = try #require(try JSONSerialization.jsonObject(with: counts.body) as? [String: [String: Int]])
        #expect(object["paths"]?["/json"] == 2)
        #expect(object["targets"]?["/json?size=2"] == 1)
        #expect(object["paths"]?["/count"] == nil)
    }

    // MARK: - Helpers

    private func failure(of request: HTTPRequest, client: HTTPClient = HTTPClient()) async -> HTTPClientError? {
        do {
            _ = try await client.send(request)
            return nil
        } catch {
            return error
        }
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
