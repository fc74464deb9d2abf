import Foundation
import Synchronization
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages
import WidgetTestSupport
import WidgetTesting

/// A 429 with `Retry-After` seen by one widget holds back the nine others on the same host: the daemon
/// sends that host no request before the time it asked for, counted at a server on 127.0.0.1, on a
/// manual clock.
@Suite(.timeLimit(.minutes(2)))
struct HostHoldDaemonTests {
    let start = TestWidgets.date("2026-11-22T15:00:00Z")

    @Test func tenWidgetsOnOneHostMakeNoRequestBeforeRetryAfter() async throws {
        let answered = Answered()
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/api/*") { request in
                let count = answered.next()
                return count == 1
                    ? .json(["error": "rate limited"], status: 429, headers: ["Retry-After": "600"])
                    : .json(["widget": .string(request.path)])
            }
        ])
        let config = try TemporaryFolder("widgetd-config")
        let out = try TemporaryFolder("widgetd-out")
        let store = SnapshotStore(directory: out.url)
        try await store.prepare()
        let clock = ManualClock(now: start)
        for index in 0..<10 {
            try config.write(
                "w\(index).json",
                #"{"source": {"url": "\#(server.url("/api/w\(index)").absoluteString)"}, "parser": "json", "timeline": "single", "schedule": {"every": "1h"}}"#
            )
            // w0 refreshes at start; the nine others are due two minutes later, within the hold.
            guard index > 0 else { continue }
            let lastSuccess = start.addingTimeInterval(-3_480)
            let entries = [TimelineEntry(date: lastSuccess, content: ["old": true])]
            try store.write(
                Snapshot(
                    id: "w\(index)", title: nil, status: .fresh, generatedAt: lastSuccess, lastSuccessAt: lastSuccess,
                    nextRefreshAt: start.addingTimeInterval(120), entries: entries, error: nil))
            var state = WidgetState()
            state.lastGoodEntries = entries
            state.lastSuccessAt = lastSuccess
            state.nextDueAt = start.addingTimeInterval(120)
            try store.writeState(state, for: "w\(index)")
        }
        let daemon = WidgetDaemon(
            configuration: .init(
                definitions: DefinitionDirectory(path: config.path), store: store, reader: DefinitionReader(registry: .builtIn),
                refresher: WidgetRefresher(secrets: SecretStore()), clock: clock, keepsEveryRefreshReport: true))
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }

        let first = try #require(await reports.next())
        #expect(first.id == "w0")
        #expect(first.error?.retryAfter == 600)
        await clock.waitForSleeper()
        #expect(server.requests.count == 1)

        // The nine come due while the host holds everyone back: each fails at once, with no request.
        clock.advance(to: start.addingTimeInterval(120))
        var held: [String] = []
        for _ in 0..<9 {
            let report = try #require(await reports.next())
            #expect(
                "\(report.error.map { "\($0)" } ?? "")".contains(
                    "held back by 127.0.0.1:\(server.port) until 2026-11-22T15:10:00Z (Retry-After)"))
            #expect(report.error?.retryAfter == 480)
            held.append(report.id)
        }
        #expect(held.sorted() == (1..<10).map { "w\($0)" })
        await clock.waitForSleeper()
        #expect(server.requests.count == 1)

        // At the time the server asked for, all ten are sent, and all ten are fresh.
        clock.advance(to: start.addingTimeInterval(600))
        var fresh: [String] = []
        for _ in 0..<10 {
            let report = try #require(await reports.next())
            #expect(report.error == nil)
            #expect(report.snapshot.status == .fresh)
            fresh.append(report.id)
        }
        #expect(fresh.sorted() == (0..<10).map { "w\($0)" })
        #expect(server.requests.count == 11)

        task.cancel()
        try await task.value
    }
}

/// How many requests the server answered.
private final class Answered: Sendable {
    private let count = Mutex(0)

    /// Counts one more and returns the count.
    func next() -> Int {
        count.withLock {
            $0 += 1
            return $0
        }
    }
}
