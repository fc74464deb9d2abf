import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTesting

/// An `http` source with `pages`: each kind of paged API, served on 127.0.0.1, read whole; loops and
/// endless APIs stopped with a warning; counted at the server.
@Suite(.timeLimit(.minutes(5)))
struct HTTPPagesTests {
    let now = Date(timeIntervalSince1970: 1_795_340_203)

    private func context(resources: StageResources = StageResources()) -> StageContext {
        StageContext(widgetID: "paged", now: now, resources: resources)
    }

    private func fetcher(_ options: WidgetValue) throws -> HTTPFetcher {
        let stage = try StageRegistry.builtIn.makeStage(.fetcher, typeName: "http", options: options, decoder: OptionsDecoder())
        return try #require(stage as? HTTPFetcher)
    }

    private func optionsError(_ options: WidgetValue) -> String? {
        do {
            _ = try StageRegistry.builtIn.makeStage(.fetcher, typeName: "http", options: options, decoder: OptionsDecoder())
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// `count` items numbered from `first`: `[{"n": first}, …]`.
    private static func items(_ first: Int, _ count: Int) -> WidgetValue {
        .array((first..<first + count).map { .object(["n": .number(WidgetNumber($0))]) })
    }

    /// The `n` of each item of the payload's array.
    private func numbers(_ payload: Payload) throws -> [Int] {
        let value = try JSONReader.read(payload.data)
        return try #require(value.array).map { Int($0["n"]?.number?.text ?? "") ?? -1 }
    }

    private static func page(_ request: TestHTTPRequest) -> Int {
        request.query("page").flatMap { Int($0) } ?? 1
    }

    // MARK: - Each kind of paged API

    @Test func aSevenPageLinkAPIIsReadWhole() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/repos/issues") { request in
                let page = Self.page(request)
                var headers: HTTPHeaders = [:]
                var links = [#"<http://127.0.0.1/repos/issues?per_page=5&page=7>; rel="last""#]
                // Relative to the page, as RFC 8288 allows; GitHub writes absolute ones.
                if page < 7 { links.insert(#"</repos/issues?per_page=5&page=\#(page + 1)>; rel="next""#, at: 0) }
                headers.add(name: "Link", value: links.joined(separator: ", "))
                return .json(Self.items((page - 1) * 5, 5), headers: headers)
            }
        ])
        let payload = try await fetcher([
            "url": .string(server.url("/repos/issues?per_page=5").absoluteString), "pages": ["next": "link"],
        ]).fetch(context: context())
        #expect(try numbers(payload) == Array(0..<35))
        #expect(server.requestCount(path: "/repos/issues") == 7)
        #expect(payload.contentType == "application/json")
        #expect(payload.pages.count == 7)
        #expect(payload.pages.last?.hasPrefix("page 7: GET http://127.0.0.1:\(server.port)/repos/issues?per_page=5&page=7, 200") == true)
        #expect(payload.warnings.isEmpty)
    }

    @Test func aCursorInTheBodyIsSentAsAQueryParameter() async throws {
        let cursors = ["": "c2", "c2": "c3", "c3": nil] as [String: String?]
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/events") { request in
                let cursor = request.query("cursor") ?? ""
                let index = ["", "c2", "c3"].firstIndex(of: cursor) ?? 9
                let next = cursors[cursor].flatMap { $0 }.map(WidgetValue.string) ?? .null
                return .json(["data": Self.items(index * 2, 2), "next_cursor": next])
            }
        ])
        let payload = try await fetcher([
            "url": .string(server.url("/events?limit=2").absoluteString),
            "pages": ["next": "$.next_cursor", "param": "cursor", "items": "$.data"],
        ]).fetch(context: context())
        #expect(try numbers(payload) == [0, 1, 2, 3, 4, 5])
        #expect(server.requests.map(\.target) == ["/events?limit=2", "/events?limit=2&cursor=c2", "/events?limit=2&cursor=c3"])
    }

    @Test func aNextURLInTheBodyIsFollowed() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/api/results") { request in
                let page = Int(request.query("p") ?? "1") ?? 1
                let next: WidgetValue = page < 3 ? .string("/api/results?p=\(page + 1)") : .null
                return .json(["results": Self.items(page * 10, 1), "links": ["next": next]])
            }
        ])
        let payload = try await fetcher([
            "url": .string(server.url("/api/results").absoluteString), "pages": ["next": "$.links.next", "items": "$.results"],
        ]).fetch(context: context())
        #expect(try numbers(payload) == [10, 20, 30])
        #expect(server.requestCount(path: "/api/results") == 3)
    }

    @Test func numberedPagesAreReadUntilAnEmptyPage() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/numbered") { request in
                let page = Self.page(request)
                return .json(page <= 4 ? Self.items(page * 100, 3) : [])
            }
        ])
        let payload = try await fetcher([
            "url": .string(server.url("/numbered").absoluteString), "pages": ["page": "page", "start": 1],
        ]).fetch(context: context())
        #expect(try numbers(payload).count == 12)
        #expect(server.requests.map(\.target) == (1...5).map { $0 == 1 ? "/numbered" : "/numbered?page=\($0)" })
        #expect(payload.warnings.isEmpty)
    }

    @Test func offsetsCountTheItemsReadSoFar() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/offset") { request in
                let offset = Int(request.query("offset") ?? "0") ?? 0
                return .json(["items": offset < 7 ? Self.items(offset, min(3, 7 - offset)) : []])
            }
        ])
        let payload = try await fetcher([
            "url": .string(server.url("/offset").absoluteString), "pages": ["offset": "offset", "items": "$.items[*]"],
        ]).fetch(context: context())
        #expect(try numbers(payload) == Array(0..<7))
        #expect(server.requests.map(\.target) == ["/offset", "/offset?offset=3", "/offset?offset=6", "/offset?offset=7"])
    }

    // MARK: - Walks that would not end

    @Test func aLoopingLinkAPIStopsWithAWarningNamingThePage() async throws {
        // Page 2 says page 2 comes next: without a check, a walk that never ends.
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/loop") { request in
                let page = Self.page(request)
                return .json(Self.items(page * 10, 2), headers: ["Link": #"</loop?page=2>; rel="next""#])
            }
        ])
        let payload = try await fetcher([
            "url": .string(server.url("/loop").absoluteString), "pages": ["next": "link"],
        ]).fetch(context: context())
        #expect(try numbers(payload) == [10, 11, 20, 21])
        #expect(server.requestCount(path: "/loop") == 2)
        #expect(payload.warnings == [#"page 3 would repeat page 2 (the same next link), so the pages stopped at page 2; check "pages""#])
    }

    @Test func aPageWhoseBodyRepeatsAnEarlierOneStopsTheWalk() async throws {
        // An API that ignores the page parameter answers page 1 again and again.
        let server = try TestHTTPServer(routes: [TestHTTPRoute("GET", "/same") { _ in .json(Self.items(0, 3)) }])
        let payload = try await fetcher([
            "url": .string(server.url("/same").absoluteString), "pages": ["page": "page"],
        ]).fetch(context: context())
        #expect(try numbers(payload) == [0, 1, 2])
        #expect(server.requestCount(path: "/same") == 2)
        #expect(
            payload.warnings == [
                #"page 2 (GET http://127.0.0.1:\#(server.port)/same?page=2) repeats page 1, so the pages stopped there; check "pages""#
            ])
    }

    @Test func maxPagesCapsAnEndlessAPIWithAWarning() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/endless") { request in
                let page = Self.page(request)
                return .json(Self.items(page, 1), headers: ["Link": "</endless?page=\(page + 1)>; rel=next"])
            }
        ])
        let payload = try await fetcher([
            "url": .string(server.url("/endless").absoluteString), "pages": ["next": "link", "maxPages": 3],
        ]).fetch(context: context())
        #expect(try numbers(payload) == [1, 2, 3])
        #expect(server.requestCount(path: "/endless") == 3)
        #expect(payload.warnings == [#"more pages existed after page 3: "maxPages" is 3; raise it (at most 100) to read them"#])

        // The default bounds it too.
        server.resetRecording()
        let unbounded = try await fetcher(["url": .string(server.url("/endless").absoluteString), "pages": ["next": "link"]])
            .fetch(context: context())
        #expect(try numbers(unbounded).count == HTTPPages.defaultMaxPages)
        #expect(server.requestCount(path: "/endless") == 10)
    }

    @Test func theDelayBetweenPagesIsWaitedOnTheRuntimeClock() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/slow") { request in
                let page = Self.page(request)
                return .json(page <= 2 ? Self.items(page, 1) : [])
            }
        ])
        let clock = ManualClock(now: now)
        var resources = StageResources()
        resources.insert(HostLimits(clock: clock))
        let fetcher = try fetcher([
            "url": .string(server.url("/slow").absoluteString), "pages": ["page": "page", "delay": "30s"], "timeout": "2m",
        ])
        let context = context(resources: resources)
        let task = Task { try await fetcher.fetch(context: context) }
        await clock.waitForSleeper()
        #expect(server.requestCount(path: "/slow") == 1)
        #expect(clock.earliestDeadline == now.addingTimeInterval(30))
        clock.advance(by: 30)
        await clock.waitForSleeper()
        #expect(server.requestCount(path: "/slow") == 2)
        clock.advance(by: 30)
        #expect(try numbers(try await task.value) == [1, 2])
        #expect(server.requestCount(path: "/slow") == 3)
    }

    // MARK: - Limits and failures

    @Test func aNextPageOnAnotherOriginFailsTheFetch() async throws {
        let other = try TestHTTPServer(routes: [TestHTTPRoute("GET", "/*") { _ in .json([]) }])
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/away") { _ in
                .json(["items": [1], "next": .string(other.url("/steal").absoluteString)])
            }
        ])
        let fetcher = try fetcher([
            "url": .string(server.url("/away").absoluteString), "headers": ["Authorization": "Bearer token"],
            "pages": ["next": "$.next", "items": "$.items"],
        ])
        await #expect {
            _ = try await fetcher.fetch(context: context())
        } throws: { error in
            "\(error)".contains("page 2 is on another origin, 127.0.0.1:\(other.port)")
        }
        #expect(other.requests.isEmpty)
    }

    @Test func aFailedLaterPageFailsTheFetchNamingThePage() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/broken") { request in
                Self.page(request) == 1 ? .json([1]) : .json(["error": "gone"], status: 500)
            }
        ])
        let fetcher = try fetcher(["url": .string(server.url("/broken").absoluteString), "pages": ["page": "page"]])
        await #expect {
            _ = try await fetcher.fetch(context: context())
        } throws: { error in
            "\(error)".contains("answered 500 Internal Server Error to the request for page 2")
        }
    }

    @Test func thePagesTogetherKeepToMaxBytes() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/big") { request in .json(Self.items(Self.page(request) * 100, 20)) }
        ])
        let fetcher = try fetcher(["url": .string(server.url("/big").absoluteString), "pages": ["page": "page"], "maxBytes": 450])
        await #expect {
            _ = try await fetcher.fetch(context: context())
        } throws: { error in
            "\(error)".contains(#"came to more than "maxBytes" (450 bytes) by page 3"#)
        }
        #expect(server.requestCount(path: "/big") == 3)
    }

    @Test func pagesNeedExactlyOneWayToTheNextPage() {
        let url: WidgetValue = "http://127.0.0.1:9/x"
        #expect(optionsError(["url": url, "pages": [:]])?.contains(#"needs exactly one of "next", "page" or "offset""#) == true)
        #expect(optionsError(["url": url, "pages": ["next": "link", "page": "page"]])?.contains(#"not "next" and "page""#) == true)
        #expect(optionsError(["url": url, "pages": ["page": "page", "param": "cursor"]])?.contains(#""pages.param""#) == true)
        #expect(optionsError(["url": url, "pages": ["next": "link", "maxPages": 101]])?.contains("from 1 to 100") == true)
        #expect(optionsError(["url": url, "pages": ["next": "link", "delay": "2m"]])?.contains(#"write at most "1m""#) == true)
        #expect(optionsError(["url": url, "pages": ["next": "$[", "param": "c"]])?.contains("JSONPath") == true)
    }

    @Test func theNextLinkIsFoundAmongOtherLinks() {
        #expect(HTTPFetcher.nextLink(in: #"<https://a/?page=1>; rel="prev", <https://a/?page=3>; rel="next""#) == "https://a/?page=3")
        #expect(HTTPFetcher.nextLink(in: #"<https://a/?x=1,2>; title="a, b"; rel="next last""#) == "https://a/?x=1,2")
        #expect(HTTPFetcher.nextLink(in: #"<https://a/?page=9>; rel="last""#) == nil)
    }
}
