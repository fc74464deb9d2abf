import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages
import WidgetTestSupport
import WidgetTesting

/// What the built `widgetd` asks of a server, counted at the server: shared fetches, conditional
/// requests, `Cache-Control`, `Retry-After` and the session handshake.
@Suite(.timeLimit(.minutes(5)))
struct PoliteHTTPTests {
    private static let sharedServer = Result { try TestHTTPServer() }

    /// How many requests the server received for the full target `pathAndQuery`.
    static func requests(to pathAndQuery: String, on server: TestHTTPServer) async throws -> Int {
        let response = try await HTTPClient().send(HTTPRequest(url: server.url("/count")))
        let counts = try JSONReader.read(response.body)
        return counts["targets"]?[pathAndQuery]?.number.flatMap { Int($0.description) } ?? 0
    }

    static func runOnce(_ folder: TemporaryFolder) async throws -> Widgetd.Output {
        try await Widgetd.run(["run", "--config", "widgets.d", "--out", "out", "--once"], in: folder.url)
    }

    static func snapshot(_ id: String, _ folder: TemporaryFolder) throws -> WidgetValue {
        try OutputFolder.snapshot(id, in: folder.file("out"))
    }

    static func date(_ value: WidgetValue?) throws -> Date {
        try #require(value?.string.flatMap(Timestamp.date))
    }

    static func widget(_ url: URL, _ extra: String = "", schedule: String = #"{"every": "1h"}"#) -> String {
        #"{"source": {"url": "\#(url.absoluteString)"\#(extra)}, "parser": "json", "timeline": "single", "schedule": \#(schedule)}"#
    }

    // MARK: - Shared fetches

    @Test func twoWidgetsWithTheSameRequestMakeOneRequestAtTheServer() async throws {
        let server = try Self.sharedServer.get()
        let target = "/json?size=2&tag=\(UUID().uuidString)"
        let other = "/json?size=2&tag=\(UUID().uuidString)"
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/first.json", Self.widget(server.url(target)))
        try folder.write("widgets.d/second.json", Self.widget(server.url(target)))
        // The same URL with a header of its own is another request.
        try folder.write("widgets.d/third.json", Self.widget(server.url(other), #", "headers": {"Accept": "application/json"}"#))
        try folder.write("widgets.d/fourth.json", Self.widget(server.url(other)))

        let output = try await Self.runOnce(folder)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(try await Self.requests(to: target, on: server) == 1)
        #expect(try await Self.requests(to: other, on: server) == 2)
        let first = try Self.snapshot("first", folder)
        let second = try Self.snapshot("second", folder)
        #expect(first["status"] == "fresh")
        #expect(second["status"] == "fresh")
        #expect(first["entries"]?[0]?["content"] == second["entries"]?[0]?["content"])
        #expect(first["entries"]?[0]?["content"]?["count"] == 2)
    }

    // MARK: - Conditional requests

    @Test func unchangedResourceAnswers304ToTheStoredETagAndTheWidgetKeepsItsContentWithoutParsing() async throws {
        let server = try Self.sharedServer.get()
        let target = "/conditional?etag=\(UUID().uuidString)"
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/tagged.json", Self.widget(server.url(target)))

        #expect(try await Self.runOnce(folder).status == 0)
        let first = try Self.snapshot("tagged", folder)
        #expect(first["entries"]?[0]?["content"]?["served"]?.number != nil)

        let output = try await Self.runOnce(folder)
        #expect(output.status == 0, "\(output.stderr)")
        // Two requests, one 200: the second carried the ETag and got a 304 with no body, so the widget
        // shows the value parsed the first time, not a newer "served" count.
        #expect(try await Self.requests(to: target, on: server) == 2)
        let second = try Self.snapshot("tagged", folder)
        #expect(second["status"] == "fresh")
        #expect(second["error"] == .null)
        #expect(second["entries"]?.array?.map { $0["content"] } == first["entries"]?.array?.map { $0["content"] })
        #expect(try Self.date(second["lastSuccessAt"]) >= Self.date(first["lastSuccessAt"]))
    }

    /// The running daemon keeps a widget's state without the parsed value its conditional requests reuse
    /// (that value is in the state journal): each 304 must still show the value parsed the first time.
    @Test func aRunningDaemonReadsTheCachedValueBackForEach304() async throws {
        let server = try Self.sharedServer.get()
        let target = "/conditional?etag=\(UUID().uuidString)"
        let folder = try TemporaryFolder()
        try folder.write(
            "widgets.d/tagged.json",
            Self.widget(
                server.url(target), schedule: #"{"every": "1s", "allowFrequent": true, "maxPerDay": 100000}"#))
        let daemon = try RunningWidgetd(["run", "--config", "widgets.d", "--out", "out"], in: folder.url)
        _ = try #require(await daemon.line(containing: "tagged: fresh, 1 entry in "), "\(daemon.log)")
        let first = try Self.snapshot("tagged", folder)["entries"]?[0]?["content"]
        #expect(first?["served"]?.number != nil)
        for _ in 0..<3 {
            _ = try #require(await daemon.line(containing: "tagged: fresh, 1 entry in "), "\(daemon.log)")
        }
        #expect(await daemon.stop() == 0)
        #expect(try await Self.requests(to: target, on: server) >= 4)
        let last = try Self.snapshot("tagged", folder)
        #expect(last["status"] == "fresh")
        #expect(last["entries"]?[0]?["content"] == first, "\(last)")
    }

    @Test func unchangedResourceAnswers304ToTheStoredLastModified() async throws {
        let server = try Self.sharedServer.get()
        let target = "/conditional?modified=Sun,%2006%20Nov%201994%2008:49:37%20GMT&tag=\(UUID().uuidString)"
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/dated.json", Self.widget(server.url(target)))

        #expect(try await Self.runOnce(folder).status == 0)
        let first = try Self.snapshot("dated", folder)["entries"]?[0]?["content"]
        #expect(first?["served"]?.number != nil)
        #expect(try await Self.runOnce(folder).status == 0)
        #expect(try await Self.requests(to: target, on: server) == 2)
        let second = try Self.snapshot("dated", folder)
        #expect(second["status"] == "fresh")
        #expect(second["entries"]?[0]?["content"] == first)
    }

    @Test func changedResourceIsFetchedAndParsedAgain() async throws {
        let server = try Self.sharedServer.get()
        let tag = UUID().uuidString
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/tagged.json", Self.widget(server.url("/conditional?etag=\(tag)")))
        #expect(try await Self.runOnce(folder).status == 0)
        let first = try Self.snapshot("tagged", folder)["entries"]?[0]?["content"]
        // The resource changes its ETag: the old one no longer matches, so the server sends a new body.
        try folder.write("widgets.d/tagged.json", Self.widget(server.url("/conditional?etag=\(tag)-2")))
        #expect(try await Self.runOnce(folder).status == 0)
        let second = try Self.snapshot("tagged", folder)["entries"]?[0]?["content"]
        #expect(second?["served"]?.number != nil)
        #expect(second != first)
        #expect(try await Self.requests(to: "/conditional?etag=\(tag)-2", on: server) == 1)
    }

    @Test func validatorsOfAnotherURLAreNeverSent() async throws {
        let server = try Self.sharedServer.get()
        let modified = "Sun,%2006%20Nov%201994%2008:49:37%20GMT"
        let resource = UUID().uuidString
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/joke.json", Self.widget(server.url("/conditional?modified=\(modified)&joke=\(resource)-1")))
        #expect(try await Self.runOnce(folder).status == 0)
        let first = try Self.snapshot("joke", folder)["entries"]?[0]?["content"]
        // Another resource, as old as the first: sent the first one's If-Modified-Since, it would answer 304
        // and the widget would go on showing the first resource.
        try folder.write("widgets.d/joke.json", Self.widget(server.url("/conditional?modified=\(modified)&joke=\(resource)-2")))
        #expect(try await Self.runOnce(folder).status == 0)
        let second = try Self.snapshot("joke", folder)["entries"]?[0]?["content"]
        #expect(second?["served"]?.number != nil)
        #expect(second != first)
    }

    @Test func valueCachedByAnotherParserIsNotReusedAfterAnEdit() async throws {
        let server = try Self.sharedServer.get()
        let url = server.url("/conditional?etag=\(UUID().uuidString)")
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/edited.json", Self.widget(url))
        #expect(try await Self.runOnce(folder).status == 0)
        #expect(try Self.snapshot("edited", folder)["entries"]?[0]?["content"]?["served"]?.number != nil)
        // The same request, now read as text: a 304 would hand the text parser the JSON parser's value.
        try folder.write(
            "widgets.d/edited.json", Self.widget(url).replacingOccurrences(of: #""parser": "json""#, with: #""parser": "text""#))
        #expect(try await Self.runOnce(folder).status == 0)
        let text = try Self.snapshot("edited", folder)["entries"]?[0]?["content"]?.string
        #expect(text?.hasPrefix(#"{"served": "#) == true, "\(text ?? "not a string")")
    }

    // MARK: - Cache-Control

    @Test func maxAgeMinusAgeIsTheEarliestNextRefresh() async throws {
        let server = try Self.sharedServer.get()
        let folder = try TemporaryFolder()
        let fiveMinutes = #"{"every": "5m"}"#
        try folder.write("widgets.d/long.json", Self.widget(server.url("/cache-control?value=max-age=900&age=100"), schedule: fiveMinutes))
        try folder.write("widgets.d/short.json", Self.widget(server.url("/cache-control?value=max-age=60"), schedule: fiveMinutes))
        try folder.write(
            "widgets.d/nocache.json", Self.widget(server.url("/cache-control?value=no-cache,%20max-age=900"), schedule: fiveMinutes))

        #expect(try await Self.runOnce(folder).status == 0)
        for (id, seconds) in [("long", 800.0), ("short", 300), ("nocache", 300)] {
            let snapshot = try Self.snapshot(id, folder)
            #expect(try Self.date(snapshot["nextRefreshAt"]).timeIntervalSince(Self.date(snapshot["generatedAt"])) == seconds, "\(id)")
        }
    }

    // MARK: - Retry-After

    @Test func retryAfterOn503And429SetsTheNextRefreshInBothFormsCappedAtADay() async throws {
        let server = try Self.sharedServer.get()
        let folder = try TemporaryFolder()
        let inThreeHours = Date().addingTimeInterval(3 * 3600)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let httpDate = formatter.string(from: inThreeHours)
        let encodedDate = try #require(httpDate.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        // A Retry-After holds back every widget on its host (scheme, host and port): each widget that asks
        // for one has a server of its own, so that none is held back by another's answer.
        let own = try (0..<3).map { _ in try TestHTTPServer() }
        defer { for server in own { server.stop() } }
        try folder.write("widgets.d/seconds.json", Self.widget(own[0].url("/status/503?retry-after=7200")))
        try folder.write("widgets.d/date.json", Self.widget(own[1].url("/status/503?retry-after=\(encodedDate)")))
        try folder.write("widgets.d/capped.json", Self.widget(own[2].url("/status/429?retry-after=200000")))
        try folder.write("widgets.d/plain.json", Self.widget(server.url("/status/503")))

        #expect(try await Self.runOnce(folder).status == 1)
        func delay(_ id: String) throws -> Double {
            let snapshot = try Self.snapshot(id, folder)
            return try Self.date(snapshot["nextRefreshAt"]).timeIntervalSince(Self.date(snapshot["generatedAt"]))
        }
        #expect(try delay("seconds") == 7200)
        #expect(try delay("capped") == 86_400)
        #expect(try delay("plain") == 30)
        let date = try Self.snapshot("date", folder)
        #expect(abs(try Self.date(date["nextRefreshAt"]).timeIntervalSince(Timestamp.date(Timestamp.string(inThreeHours))!)) <= 1)
        #expect(date["error"] == .string("source: 127.0.0.1:\(own[1].port) answered 503 Service Unavailable: {\"status\": 503}"))
    }

    // MARK: - Handshake

    @Test func transmissionHandshakeEchoesTheSessionHeaderAndRetriesOnce() async throws {
        let server = try Self.sharedServer.get()
        let token = UUID().uuidString
        let target = "/handshake?token=\(token)"
        let folder = try TemporaryFolder()
        try folder.write(
            "widgets.d/transmission.json",
            Self.widget(
                server.url(target),
                #", "method": "POST", "body": {"method": "session-stats"}, "handshake": {"status": 409, "header": "X-Transmission-Session-Id"}"#
            )
        )
        try folder.write("widgets.d/plain.json", Self.widget(server.url(target + "&plain=1")))

        let output = try await Self.runOnce(folder)
        #expect(output.status == 1)
        #expect(try await Self.requests(to: target, on: server) == 2)
        let transmission = try Self.snapshot("transmission", folder)
        #expect(transmission["status"] == "fresh")
        #expect(transmission["entries"]?[0]?["content"] == ["session": .string(token)])
        let plain = try Self.snapshot("plain", folder)
        #expect(plain["error"] == .string("source: 127.0.0.1:\(server.port) answered 409 Conflict: {\"error\": \"missing session id\"}"))
        #expect(try await Self.requests(to: target + "&plain=1", on: server) == 1)
    }
}
