import Foundation
import Synchronization
import Testing
import WidgetCore
import WidgetJSON
import WidgetLiquid
import WidgetTesting

@testable import WidgetStages

/// The `fetch` transform against servers of the test's own, counted at the server: one request per
/// item, 304s on the next refresh, the failure policy, the concurrency cap and clear definition errors.
@Suite(.timeLimit(.minutes(2)))
struct FetchTransformTests {
    private static let now = Date(timeIntervalSince1970: 1_795_334_400)  // 2026-11-22T08:00:00Z

    final class Log: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func append(_ line: String) { lines.withLock { $0.append(line) } }
    }

    final class Counter: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
    }

    /// `http://127.0.0.1:PORT`, to write templates after (a `URL` cannot hold `{{`).
    static func origin(_ server: TestHTTPServer) -> String {
        "http://127.0.0.1:\(server.port)"
    }

    /// A Hacker News of its own: `/v0/topstories.json` lists ids 101…108, `/v0/item/ID.json` is a story
    /// with an ETag (304 to a matching `If-None-Match`); ids in `missing` are 404, in `broken` not JSON.
    final class NewsAPI: Sendable {
        let notModified = Counter()
        let server: TestHTTPServer

        init(missing: Set<Int> = [], broken: Set<Int> = []) throws {
            let notModified = self.notModified
            server = try TestHTTPServer(routes: [
                TestHTTPRoute("GET", "/v0/topstories.json") { _ in .json([101, 102, 103, 104, 105, 106, 107, 108]) },
                TestHTTPRoute("GET", "/v0/item/*.json") { request in
                    let name = request.decodedPath.split(separator: "/").last ?? ""
                    guard let id = Int(name.dropLast(5)), !missing.contains(id) else {
                        return .json(["error": "no such item"], status: 404)
                    }
                    if broken.contains(id) { return .text("<html>Bad gateway</html>") }
                    let etag = "\"story-\(id)\""
                    if request.headers["If-None-Match"] == etag {
                        notModified.add()
                        return TestHTTPResponse(status: 304, headers: ["ETag": etag])
                    }
                    return .json(["id": .number(WidgetNumber(id)), "title": .string("Story \(id)"), "by": "pg"], headers: ["ETag": etag])
                },
            ])
        }

        var origin: String { FetchTransformTests.origin(server) }
        func itemRequests() -> [TestHTTPRequest] { server.requests.filter { $0.path.hasPrefix("/v0/item/") } }
    }

    private static func context(log: Log = Log(), client: HTTPClient = HTTPClient()) -> StageContext {
        var resources = StageResources()
        resources.insert(client)
        return StageContext(
            widgetID: "news", now: now, timeZone: TimeZone(identifier: "UTC")!, resources: resources, log: { log.append($0) })
    }

    private static func transform(_ options: WidgetValue) throws -> FetchTransform {
        try FetchTransform(options: OptionsDecoder().decode(FetchTransform.Options.self, from: options))
    }

    private static func read(_ json: String, file: String = "widgets.d/news.json") -> DefinitionReader.Result {
        DefinitionReader(registry: .builtIn, defaultTimeZone: TimeZone(identifier: "UTC")!).read(Data(json.utf8), file: file)
    }

    // MARK: - One request per item, 304s next time

    @Test func topFiveAreFiveRequestsThenFive304sThatKeepTheStories() async throws {
        let api = try NewsAPI()
        let result = Self.read(
            #"""
            {
              "source": { "url": "\#(api.origin)/v0/topstories.json" },
              "transforms": [
                { "type": "limit", "count": 5 },
                { "type": "fetch", "url": "\#(api.origin)/v0/item/{{ item }}.json", "concurrency": 5 },
                { "type": "map", "fields": { "title": "{{ title }}", "id": "{{ id }}" } }
              ],
              "schedule": { "every": "15m" }
            }
            """#)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let pipeline = try #require(result.widgets.first)

        let first = try await pipeline.run(context: Self.context(), cache: [:])
        let titles = first.entries.first?.content
        #expect(titles?.array?.map { $0["title"] } == ["Story 101", "Story 102", "Story 103", "Story 104", "Story 105"])
        #expect(api.itemRequests().count == 5)
        #expect(Set(api.itemRequests().map(\.path)).count == 5)
        #expect(api.itemRequests().allSatisfy { $0.headers["If-None-Match"] == nil })
        // Each story's validators are kept under the transform's place, one entry per URL.
        let fetchKeys = first.cache.keys.filter { $0.stage == .transform(index: 1, type: "fetch") && $0.request != nil }
        #expect(fetchKeys.count == 5)
        // The metrics count what the fan-out fetched beside the source.
        let stories: [WidgetValue] = (101...105).map { ["id": .number(WidgetNumber($0)), "title": .string("Story \($0)"), "by": "pg"] }
        let ids = JSONWriter.data([101, 102, 103, 104, 105, 106, 107, 108]).count
        let bytes = ids + stories.map { JSONWriter.data($0).count }.reduce(0, +)
        #expect(first.fetchBytes == bytes)

        let second = try await pipeline.run(context: Self.context(), cache: first.cache)
        #expect(api.itemRequests().count == 10)
        #expect(api.notModified.value == 5)
        #expect(api.itemRequests().suffix(5).allSatisfy { $0.headers["If-None-Match"]?.hasPrefix("\"story-") == true })
        #expect(second.entries.first?.content == titles)
        #expect(second.notModified.filter { $0.stage == .transform(index: 1, type: "fetch") && $0.request != nil }.count == 5)
        #expect(Set(second.cache.keys) == Set(first.cache.keys))
        // The ids again (they carry no ETag), and no story.
        #expect(second.fetchBytes == ids)
    }

    /// `Examples/hacker-news/hacker-news.json`, as shipped, against the local API: ids, then items.
    @Test func theHackerNewsExampleIsOneDefinitionForIdsThenItems() async throws {
        let api = try NewsAPI(missing: [103])
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples/hacker-news/hacker-news.json")
        let result = Self.read(String(decoding: try Data(contentsOf: file), as: UTF8.self), file: "Examples/hacker-news/hacker-news.json")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let pipeline = try #require(result.widgets.first)
        var context = Self.context()
        context.resources.insert(OriginRewrites(rules: [.init(from: "https://hacker-news.firebaseio.com", to: api.origin)]))

        let first = try await pipeline.run(context: context, cache: [:])
        #expect(api.server.requests.map(\.path).filter { !$0.hasPrefix("/v0/item/") } == ["/v0/topstories.json"])
        #expect(api.itemRequests().map(\.path).sorted() == (101...105).map { "/v0/item/\($0).json" })
        let stories = try #require(first.entries.first?.content.array)
        // 103 answers 404: dropped, the others kept in their order.
        #expect(stories.map { $0["title"] } == ["Story 101", "Story 102", "Story 104", "Story 105"])
        #expect(stories.first?["discussion"] == "https://news.ycombinator.com/item?id=101")

        var again = Self.context()
        again.resources.insert(OriginRewrites(rules: [.init(from: "https://hacker-news.firebaseio.com", to: api.origin)]))
        let second = try await pipeline.run(context: again, cache: first.cache)
        #expect(api.itemRequests().count == 10)
        #expect(api.notModified.value == 4)
        #expect(second.entries.first?.content == first.entries.first?.content)
    }

    @Test func validatorsOfOneItemAreNeverSentForAnother() async throws {
        let api = try NewsAPI()
        let fetch = try Self.transform(["url": .string("\(api.origin)/v0/item/{{ item }}.json")])
        let context = Self.context()
        _ = try await fetch.transform([101, 102], context: context)
        var next = Self.context()
        next.fetchCache = FetchCache(previous: context.fetchCache.kept)
        // Another list: only 102 was fetched before, so only its request is conditional.
        let value = try await fetch.transform([102, 103], context: next)
        #expect(value.array?.map { $0["id"] } == [102, 103])
        let last = api.itemRequests().suffix(2)
        #expect(last.map(\.path).sorted() == ["/v0/item/102.json", "/v0/item/103.json"])
        for request in last {
            #expect(request.headers["If-None-Match"] == (request.path == "/v0/item/102.json" ? "\"story-102\"" : nil), "\(request.path)")
        }
        // Only the URLs of this refresh are kept for the next.
        #expect(next.fetchCache.kept.count == 2)
        #expect(next.fetchCache.notModifiedKeys.count == 1)
    }

    @Test func intoAddsEachAnswerToItsItemInOrder() async throws {
        let api = try NewsAPI()
        let fetch = try Self.transform(["url": .string("\(api.origin)/v0/item/{{ id }}.json"), "into": "story", "concurrency": 2])
        let value = try await fetch.transform(
            [["id": 103, "rank": 1], ["id": 101, "rank": 2], ["id": 102, "rank": 3]], context: Self.context())
        #expect(value.array?.map { $0["rank"] } == [1, 2, 3])
        #expect(value.array?.map { $0["story"]?["title"] } == ["Story 103", "Story 101", "Story 102"])
    }

    // MARK: - Failures

    @Test func aFailingItemFailsTheRefreshByDefaultNamingTheItemAndTheFix() async throws {
        let api = try NewsAPI(missing: [102])
        let fetch = try Self.transform(["url": .string("\(api.origin)/v0/item/{{ item }}.json")])
        let error = await #expect(throws: StageError.self) {
            try await fetch.transform([101, 102, 103], context: Self.context())
        }
        #expect(
            error?.message
                == "item 1: 127.0.0.1:\(api.server.port) answered 404 Not Found: {\"error\":\"no such item\"}; set \"onError\": \"drop\" to leave failing items out"
        )
    }

    @Test func dropLeavesFailingItemsOutLogsWhyAndKeepsTheOthers() async throws {
        let api = try NewsAPI(missing: [102], broken: [104])
        let fetch = try Self.transform(["url": .string("\(api.origin)/v0/item/{{ item }}.json"), "onError": "drop"])
        let log = Log()
        let value = try await fetch.transform([101, 102, 103, 104, 105], context: Self.context(log: log))
        #expect(value.array?.map { $0["id"] } == [101, 103, 105])
        #expect(api.itemRequests().count == 5)
        let lines = log.all.sorted()
        #expect(lines.count == 2, "\(lines)")
        #expect(
            lines.first == "fetch: item 1 was left out: 127.0.0.1:\(api.server.port) answered 404 Not Found: {\"error\":\"no such item\"}")
        #expect(
            lines.last?.hasPrefix(
                "fetch: item 3 was left out: the answer of http://127.0.0.1:\(api.server.port)/v0/item/104.json could not be parsed: ")
                == true, "\(lines)")
    }

    @Test func aPipelineNamesTheFetchTransformWhenAnItemFails() async throws {
        let api = try NewsAPI(broken: [101])
        let result = Self.read(
            #"""
            { "source": { "url": "\#(api.origin)/v0/topstories.json" },
              "transforms": [ { "type": "limit", "count": 2 }, { "type": "fetch", "url": "\#(api.origin)/v0/item/{{ item }}.json" } ] }
            """#)
        let pipeline = try #require(result.widgets.first, "\(result.diagnostics)")
        let error = await #expect(throws: PipelineError.self) { try await pipeline.run(context: Self.context()) }
        #expect(error?.stage == .transform(index: 1, type: "fetch"))
        #expect(
            error?.description.hasPrefix(
                "transforms[1] (fetch): item 0: the answer of http://127.0.0.1:\(api.server.port)/v0/item/101.json could not be parsed: ")
                == true, "\(String(describing: error))")
    }

    @Test func aValueThatIsNotAListOfObjectsOrTooLongIsRefusedWithTheFix() async throws {
        let fetch = try Self.transform(["url": "https://example.com/item/{{ item }}.json", "maxItems": 3])
        let notList = await #expect(throws: StageError.self) { try await fetch.transform(["ids": [1]], context: Self.context()) }
        #expect(notList?.message.hasPrefix("fetch needs a list of items, but the value is object; select a list first") == true)
        let long = await #expect(throws: StageError.self) { try await fetch.transform([1, 2, 3, 4], context: Self.context()) }
        #expect(
            long?.message.hasPrefix("the list has 4 items, more than \"maxItems\" (3) requests for one refresh; put a limit before") == true
        )
        let into = try Self.transform(["url": "https://example.com/item/{{ id }}.json", "into": "story"])
        let notObject = await #expect(throws: StageError.self) { try await into.transform([["id": 1], 2], context: Self.context()) }
        #expect(
            notObject?.message
                == "\"into\" adds the answer to each item, but item 1 is number, not an object; leave \"into\" out to replace the items")
    }

    // MARK: - Concurrency

    /// Holds each request until `cap` are in the handler at once (or every request has arrived), so that
    /// a transform that keeps `cap` in flight is seen to, and one that sends more is caught: counted at
    /// the server. Nothing is timed: the only wait is the grace a full gate gives before it opens.
    final class Gate: @unchecked Sendable {
        private let condition = NSCondition()
        private var arrived = 0
        private var inFlight = 0
        private var releasedUpTo = 0
        private(set) var maxInFlight = 0
        let cap: Int
        let total: Int

        init(cap: Int, total: Int) {
            self.cap = cap
            self.total = total
        }

        func pass() {
            condition.lock()
            defer { condition.unlock() }
            arrived += 1
            let number = arrived
            inFlight += 1
            maxInFlight = max(maxInFlight, inFlight)
            if inFlight >= cap || arrived == total {
                // A client that breaks the cap would send more now: give it a moment to show it (a busy
                // machine can only hide such a client, never fail one that keeps to the cap).
                if arrived < total { _ = condition.wait(until: Date().addingTimeInterval(0.25)) }
                releasedUpTo = max(releasedUpTo, arrived)
                condition.broadcast()
            }
            while releasedUpTo < number { condition.wait() }
            inFlight -= 1
        }

        var most: Int {
            condition.lock()
            defer { condition.unlock() }
            return maxInFlight
        }
    }

    @Test func neverMoreThanConcurrencyRequestsAreInFlightAndThatManyAre() async throws {
        let gate = Gate(cap: 3, total: 8)
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/item/*") { request in
                gate.pass()
                return .json(["path": .string(request.path)])
            }
        ])
        let fetch = try Self.transform(["url": .string(Self.origin(server) + "/item/{{ item }}"), "concurrency": 3])
        let value = try await fetch.transform([1, 2, 3, 4, 5, 6, 7, 8], context: Self.context())
        #expect(value.array?.map { $0["path"] } == (1...8).map { .string("/item/\($0)") })
        #expect(server.requests.count == 8)
        #expect(gate.most == 3)
    }

    @Test func thePerHostLimitHoldsWhateverTheConcurrency() async throws {
        let gate = Gate(cap: 2, total: 6)
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/item/*") { request in
                gate.pass()
                return .json(["path": .string(request.path)])
            }
        ])
        let fetch = try Self.transform(["url": .string(Self.origin(server) + "/item/{{ item }}"), "concurrency": 6])
        let value = try await fetch.transform([1, 2, 3, 4, 5, 6], context: Self.context(client: HTTPClient(maximumConnectionsPerHost: 2)))
        #expect(value.array?.count == 6)
        #expect(gate.most == 2)
    }

    // MARK: - Definitions

    @Test func aURLThatDoesNotReadTheItemIsReportedAtItsPlaceWithTheFix() {
        let text = #"""
            {
              "source": { "url": "https://hacker-news.firebaseio.com/v0/topstories.json" },
              "transforms": [
                { "type": "limit", "count": 5 },
                { "type": "fetch", "url": "https://hacker-news.firebaseio.com/v0/item/{{ params.id }}.json" }
              ]
            }
            """#
        let problems = Self.read(text, file: "widgets.d/hn.json").diagnostics.map(\.description)
        #expect(
            problems == [
                // (params, in a definition without instances, are always empty: a problem of its own.)
                "widgets.d/hn.json:5:31: $.transforms[1].url: the template reads params.id, but this definition has no \"instances\" to give params, so it is always empty; add \"instances\": [{\"id\": \"home\", \"params\": {\"id\": …}}], or write the value in place of params.id",
                "widgets.d/hn.json:5:31: $.transforms[1].url: \"url\" does not read the item, so every item would fetch the same URL; put the item in it, e.g. \"https://example.com/item/{{ item }}.json\" or \"…/{{ id }}.json\" for an item's field",
            ])
    }

    @Test func badOptionsAreReportedAtTheirPlace() {
        let text = #"""
            {
              "source": { "url": "https://example.com/ids.json" },
              "transforms": [
                { "type": "fetch", "url": "https://example.com/{{ item }}", "parser": "jsn", "onError": "skip", "concurrency": 0 }
              ]
            }
            """#
        let problems = Self.read(text).diagnostics.map(\.description)
        #expect(problems.count == 1, "\(problems)")
        #expect(
            problems.first?.hasPrefix("widgets.d/news.json:4:75: $.transforms[0].parser: unknown parser type 'jsn'; did you mean 'json'?")
                == true, "\(problems)")
        let concurrency = Self.read(text.replacing(#""jsn""#, with: #""json""#)).diagnostics.map(\.description)
        #expect(concurrency == [#"widgets.d/news.json:4:117: $.transforms[0].concurrency: "concurrency" must be from 1 to 32, not 0"#])
        let policy = Self.read(text.replacing(#""jsn""#, with: #""json""#).replacing(#""concurrency": 0"#, with: #""concurrency": 2"#))
        #expect(
            policy.diagnostics.map(\.description) == [
                #"widgets.d/news.json:4:94: $.transforms[0].onError: "onError" is "skip"; use "fail" (fail the refresh) or "drop" (leave the item out)"#
            ])
        let parserOption = Self.read(text.replacing(#""jsn""#, with: #"{"type": "json", "emtpy": "null"}"#)).diagnostics.map(\.description)
        #expect(
            parserOption.first?.contains("$.transforms[0].parser.emtpy: unknown key 'emtpy'; did you mean 'empty'?") == true,
            "\(parserOption)")
    }

    @Test func secretsAreAllowedInTheRequestOnlyAndSentButNeverShown() async throws {
        let valid = Self.read(
            #"""
            { "source": { "url": "https://example.com/ids.json" },
              "transforms": [ { "type": "fetch", "url": "https://example.com/{{ item }}", "headers": { "Authorization": "Bearer {{ env.NEWS_TOKEN }}" } } ] }
            """#)
        #expect(valid.diagnostics.isEmpty, "\(valid.diagnostics)")
        #expect(valid.widgets.first?.definition.secretUses == [Template.SecretUse(namespace: .env, name: .literal("NEWS_TOKEN"))])
        let misplaced = Self.read(
            #"""
            { "source": { "url": "https://example.com/ids.json" },
              "transforms": [ { "type": "fetch", "url": "https://example.com/{{ item }}", "into": "{{ env.NEWS_TOKEN }}" } ] }
            """#)
        #expect(
            misplaced.diagnostics.map(\.message).first?.hasPrefix("{{ env.… }} may only be used in a source's") == true,
            "\(misplaced.diagnostics)")

        let server = try TestHTTPServer()
        let fetch = try Self.transform([
            "url": .string(Self.origin(server) + "/secret/{{ env.NEWS_TOKEN }}/content?body=x{{ item }}"),
            "headers": ["Authorization": "Bearer {{ env.NEWS_TOKEN }}"],
        ])
        var context = Self.context()
        context.secrets = SecretStore(environment: ["NEWS_TOKEN": "s3cret-token"])
        let error = await #expect(throws: StageError.self) { try await fetch.transform([1], context: context) }
        #expect(server.requests.count == 1)
        #expect(server.requests.first?.headers["Authorization"] == "Bearer s3cret-token")
        #expect(server.requests.first?.path == "/secret/s3cret-token/content")
        #expect(
            error?.message.hasPrefix("item 0: the answer of http://127.0.0.1:\(server.port)/secret/***/content could not be parsed: ")
                == true,
            "\(String(describing: error))")
        #expect(error?.message.contains("s3cret-token") == false)
    }
}
