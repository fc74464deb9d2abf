import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages
import WidgetTestSupport
import WidgetTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The built `widgetd run --once` against a server that fails in every way a real one does, one faulty
/// widget per fault beside a healthy one. Every fault must end in the expected status and error sentence,
/// leave the other widgets fresh and every written file valid JSON.
@Suite(.timeLimit(.minutes(3)))
struct FaultMatrixTests {
    /// Whether this build's stages include the XML parser, as `widgetd` runs them.
    static let xmlParserIsBuiltIn = (try? StageRegistry.Builder.builtIn().build())?.entry(.parser, named: "xml") != nil

    /// One row of the matrix: a widget whose source fails in one way.
    struct Fault: Sendable {
        /// The widget id, and the fault's name in the table.
        var id: String
        /// The `source` object of the definition.
        var source: String
        var parser = "json"
        /// The snapshot's `error`; `nil` for a row that must stay fresh.
        var error: String?
    }

    private static let sharedServer = Result { try TestHTTPServer() }

    /// The faults, with the errors they must produce, for a server on `server` and a closed port.
    static func faults(_ server: TestHTTPServer, closedPort: Int) -> [Fault] {
        let host = "127.0.0.1:\(server.port)"
        func url(_ path: String) -> String { server.url(path).absoluteString }
        func http(_ path: String, _ extra: String = "") -> String { #"{"url": "\#(url(path))"\#(extra)}"# }
        var faults = [
            Fault(
                id: "refused", source: #"{"url": "http://127.0.0.1:\#(closedPort)/json"}"#,
                error: "source: the connection to 127.0.0.1:\(closedPort) was refused"
            ),
            Fault(
                id: "stall", source: http("/stall?seconds=30", #", "timeout": "1s""#),
                error: "source: \(host) did not answer within 1 s"
            ),
            // One byte every 200 ms keeps the connection from ever falling silent; the deadline still ends it.
            Fault(
                id: "trickle", source: http("/trickle?bytes=100&interval=0.2", #", "timeout": "2s""#),
                error: "source: \(host) did not answer within 2 s"
            ),
            Fault(id: "not-found", source: http("/status/404"), error: "source: \(host) answered 404 Not Found: {\"status\": 404}"),
            Fault(
                id: "server-error", source: http("/status/500"),
                error: "source: \(host) answered 500 Internal Server Error: {\"status\": 500}"),
            // A 503 with Retry-After holds back every widget on its host (scheme, host and port): it is
            // asked for through another name of the same server, so that it holds back none of the others.
            Fault(
                id: "unavailable", source: #"{"url": "http://localhost:\#(server.port)/status/503?retry-after=3600"}"#,
                error: "source: localhost:\(server.port) answered 503 Service Unavailable: {\"status\": 503}"
            ),
            Fault(
                id: "rate-limited", source: http("/status/429"), error: "source: \(host) answered 429 Too Many Requests: {\"status\": 429}"),
            Fault(
                id: "truncated", source: http("/truncated"),
                error: "source: the response from \(host) ended after 10 of the 100 announced bytes"
            ),
            Fault(
                id: "invalid-json", source: http("/content?type=application/json&body=%7B%22items%22%3A%20%5B1%2C"),
                error:
                    "parser: the payload from \(url("/content")) is not valid JSON: line 1, column 14: unexpected end of the document; expected a value"
            ),
            Fault(
                id: "html-200", source: http("/html-error"),
                error: "parser: \(url("/html-error")) sent an HTML page (text/html) where JSON was expected"
            ),
            Fault(
                id: "over-cap", source: http("/huge?bytes=2000", #", "maxBytes": 1000"#),
                error: "source: the response from \(host) announced 2000 bytes, more than the 1000-byte limit"
            ),
            Fault(
                id: "over-cap-chunked", source: http("/huge?bytes=2000&chunked=1", #", "maxBytes": 1000"#),
                error: "source: the response from \(host) exceeded the 1000-byte limit"
            ),
            // About 60 bytes on the wire, 5,015 once inflated: the cap counts inflated bytes.
            Fault(
                id: "gzip-over-cap", source: http("/gzip?bytes=5000", #", "maxBytes": 1000"#),
                error: "source: the response from \(host) exceeded the 1000-byte limit"
            ),
            // The same, small enough once inflated: compressed bodies are read, and their inflated size counts.
            Fault(id: "gzip-under-cap", source: http("/gzip?bytes=500", #", "maxBytes": 1000"#), error: nil),
            Fault(
                id: "redirect-loop", source: http("/loop"),
                error: "source: the request to \(host) was redirected more than 5 times, the limit"
            ),
            Fault(
                // Empty is "no data", not broken JSON: the error says so and names the option that accepts it.
                id: "empty-200", source: http("/content?type=application/json&body="),
                error:
                    "parser: \(url("/content")) sent an empty body (HTTP 200) where JSON was expected; if that means \"no data\", add \"empty\": \"null\" to the parser to read it as null"
            ),
            // The JSON parser reads the body whatever its label; only a body that fails and looks like HTML
            // is reported as a page.
            Fault(id: "json-as-text-plain", source: http("/content?type=text/plain&body=%7B%22a%22%3A%201%7D"), error: nil),
            Fault(id: "json-as-text-html", source: http("/content?type=text/html&body=%7B%22a%22%3A%201%7D"), error: nil),
        ]
        if Self.xmlParserIsBuiltIn {
            faults.append(
                Fault(
                    id: "invalid-xml", source: http("/content?type=application/xml&body=%3Ca%3E%3Cb%3E%3C%2Fa%3E"),
                    parser: "xml", error: "parser: "
                )
            )
        }
        return faults
    }

    static func definition(_ fault: Fault) -> String {
        """
        {"source": \(fault.source), "parser": "\(fault.parser)", "timeline": "single",
         "placeholder": {"text": "Loading…"}}
        """
    }

    static func healthy(_ server: TestHTTPServer) -> String {
        """
        {"source": {"url": "\(server.url("/json?size=2&widget=healthy").absoluteString)"}, "parser": "json",
         "transforms": [{"type": "map", "fields": {"total": "{{ count }}"}}], "timeline": "single"}
        """
    }

    /// Checks `error` against `expected`; an expected sentence ending in ": " is a prefix (a parser's own
    /// words follow: the xml row, whose parser this suite does not know).
    static func matches(_ error: String?, _ expected: String?) -> Bool {
        guard let expected else { return error == nil }
        guard let error else { return false }
        return expected.hasSuffix(": ") ? error.hasPrefix(expected) && error.count > expected.count : error == expected
    }

    // MARK: - First run

    @Test func everyFaultEndsInItsPlaceholderAndErrorWhileTheHealthyWidgetStaysFresh() async throws {
        let server = try Self.sharedServer.get()
        let closed = try #require(ClosedPort.make())
        defer { withExtendedLifetime(closed) {} }
        let closedPort = closed.port
        let faults = Self.faults(server, closedPort: closedPort)
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/healthy.json", Self.healthy(server))
        for fault in faults { try folder.write("widgets.d/\(fault.id).json", Self.definition(fault)) }

        let output = try await Widgetd.run(["run", "--config", "widgets.d", "--out", "out", "--once"], in: folder.url)
        let failing = faults.filter { $0.error != nil }.count
        #expect(output.status == 1)
        #expect(
            output.stderrLines.last
                == "\(faults.count + 1) widgets refreshed into out: \(faults.count + 1 - failing) fresh, \(failing) not fresh")

        let out = folder.file("out")
        #expect(OutputFolder.unreadableJSON(in: out) == [])
        let healthy = try OutputFolder.snapshot("healthy", in: out)
        #expect(healthy["status"] == "fresh")
        #expect(healthy["entries"]?[0]?["content"] == ["total": 2])

        var table = ["| fault | status | error |", "|---|---|---|"]
        for fault in faults {
            let snapshot = try OutputFolder.snapshot(fault.id, in: out)
            let status = snapshot["status"]?.string
            let error = snapshot["error"]?.string
            table.append("| \(fault.id) | \(status ?? "?") | \(error ?? "–") |")
            #expect(Self.matches(error, fault.error), "\(fault.id): \(error ?? "no error")")
            if fault.error == nil {
                #expect(status == "fresh", "\(fault.id)")
                #expect(snapshot["entries"]?.array?.count == 1, "\(fault.id)")
            } else {
                #expect(status == "placeholder", "\(fault.id)")
                #expect(snapshot["entries"]?.array?.map { $0["content"] } == [["text": "Loading…"]], "\(fault.id)")
                #expect(snapshot["lastSuccessAt"] == .null, "\(fault.id)")
            }
        }
        if !Self.xmlParserIsBuiltIn {
            table.append("| invalid-xml | (skipped) | no \"xml\" parser is registered |")
        }
        print(table.joined(separator: "\n"))

        // Retry-After: 3600 on the 503 puts the next attempt an hour away, past the 30 s backoff.
        let unavailable = try OutputFolder.snapshot("unavailable", in: out)
        let generated = try #require(unavailable["generatedAt"]?.string.flatMap(Timestamp.date))
        let next = try #require(unavailable["nextRefreshAt"]?.string.flatMap(Timestamp.date))
        #expect(next.timeIntervalSince(generated) == 3600)

        let index = try OutputFolder.snapshot("index", in: out)
        #expect(index["widgets"]?.array?.count == faults.count + 1)
    }

    @Test func daemonSurvivesEveryFaultAndStopsCleanly() async throws {
        let server = try Self.sharedServer.get()
        let closed = try #require(ClosedPort.make())
        defer { withExtendedLifetime(closed) {} }
        let closedPort = closed.port
        let faults = Self.faults(server, closedPort: closedPort)
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/healthy.json", Self.healthy(server))
        for fault in faults { try folder.write("widgets.d/\(fault.id).json", Self.definition(fault)) }
        let daemon = try RunningWidgetd(["run", "--config", "widgets.d", "--out", "out"], in: folder.url)

        // Every widget logs one line per refresh: "<time> <id>: <status>, …".
        var waiting = Set(faults.map(\.id) + ["healthy"])
        while !waiting.isEmpty, let line = await daemon.line(containing: ": ") {
            let words = line.split(separator: " ")
            if words.count > 2, words[1].hasSuffix(":") { waiting.remove(String(words[1].dropLast())) }
        }
        #expect(waiting == [], "\(daemon.log)")
        #expect(daemon.log.contains { $0.contains(" healthy: fresh, 1 entry in ") })
        for fault in faults where fault.error != nil {
            #expect(daemon.log.contains { $0.contains(" \(fault.id): placeholder, 1 entry — \(fault.error!)") }, "\(fault.id)")
        }
        #expect(OutputFolder.unreadableJSON(in: folder.file("out")) == [])

        daemon.send(SIGTERM)
        #expect(await daemon.line(containing: "stopping") != nil)
        #expect(await daemon.waitForExit() == 0)
    }

    @Test(.timeLimit(.minutes(5))) func stopDuringAStalledFetchEndsTheDaemonWithoutWaitingForTheServer() async throws {
        let server = try Self.sharedServer.get()
        let target = "/stall?seconds=600&tag=\(UUID().uuidString)"
        let source = #"{"url": "\#(server.url(target).absoluteString)", "timeout": "600s", "connectTimeout": "600s"}"#
        let folder = try TemporaryFolder()
        // Two widgets with the same request: they share one fetch.
        try folder.write("widgets.d/first.json", Self.definition(Fault(id: "first", source: source)))
        try folder.write("widgets.d/second.json", Self.definition(Fault(id: "second", source: source)))
        let daemon = try RunningWidgetd(["run", "--config", "widgets.d", "--out", "out"], in: folder.url)
        #expect(await daemon.line(containing: "widgetd running") != nil)
        let encoded = try #require(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let waited = try await HTTPClient().send(HTTPRequest(url: server.url("/wait?target=\(encoded)&count=1")))
        #expect(waited.status == 200)

        // The server would hold the request for ten minutes; the stop must not wait for it.
        daemon.send(SIGTERM)
        #expect(await daemon.line(containing: "stopping") != nil)
        #expect(await daemon.waitForExit() == 0)
        #expect(daemon.log.contains { $0.hasSuffix("first: refresh interrupted by the stop; its last snapshot stays") })
        #expect(daemon.log.contains { $0.hasSuffix("second: refresh interrupted by the stop; its last snapshot stays") })
    }

    // MARK: - After a good run

    @Test func faultAfterAGoodRunServesTheLastGoodEntriesAsCached() async throws {
        let server = try Self.sharedServer.get()
        let closed = try #require(ClosedPort.make())
        defer { withExtendedLifetime(closed) {} }
        let closedPort = closed.port
        let chosen = ["stall", "unavailable", "truncated", "html-200", "gzip-over-cap", "redirect-loop", "refused"]
        let faults = Self.faults(server, closedPort: closedPort).filter { chosen.contains($0.id) }
        #expect(faults.count == chosen.count)
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/healthy.json", Self.healthy(server))
        for fault in faults {
            let good = Fault(id: fault.id, source: #"{"url": "\#(server.url("/json?size=1&widget=\(fault.id)").absoluteString)"}"#)
            try folder.write("widgets.d/\(fault.id).json", Self.definition(good))
        }
        let first = try await Widgetd.run(["run", "--config", "widgets.d", "--out", "out", "--once"], in: folder.url)
        #expect(first.status == 0, "\(first.stderr)")
        let out = folder.file("out")
        var before: [String: WidgetValue] = [:]
        for fault in faults { before[fault.id] = try OutputFolder.snapshot(fault.id, in: out) }

        for fault in faults { try folder.write("widgets.d/\(fault.id).json", Self.definition(fault)) }
        let second = try await Widgetd.run(["run", "--config", "widgets.d", "--out", "out", "--once"], in: folder.url)
        #expect(second.status == 1)
        #expect(second.stderrLines.last == "\(faults.count + 1) widgets refreshed into out: 1 fresh, \(faults.count) not fresh")
        #expect(OutputFolder.unreadableJSON(in: out) == [])
        #expect(try OutputFolder.snapshot("healthy", in: out)["status"] == "fresh")

        var table = ["| fault (after a good run) | status | error |", "|---|---|---|"]
        for fault in faults {
            let snapshot = try OutputFolder.snapshot(fault.id, in: out)
            let error = snapshot["error"]?.string
            table.append("| \(fault.id) | \(snapshot["status"]?.string ?? "?") | \(error ?? "–") |")
            #expect(snapshot["status"] == "cached", "\(fault.id)")
            #expect(Self.matches(error, fault.error), "\(fault.id): \(error ?? "no error")")
            #expect(snapshot["entries"] == before[fault.id]?["entries"], "\(fault.id)")
            #expect(snapshot["lastSuccessAt"] == before[fault.id]?["lastSuccessAt"], "\(fault.id)")
        }
        print(table.joined(separator: "\n"))
    }
}
