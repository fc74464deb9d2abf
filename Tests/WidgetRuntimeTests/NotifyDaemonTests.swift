import Foundation
import Synchronization
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages
import WidgetTestSupport
import WidgetTesting

/// A daemon with `notify` rules, on a manual clock, sending to a webhook server on 127.0.0.1: each trigger
/// fires exactly when it should and not otherwise, and a target that keeps failing is reported while
/// every widget refreshes on time. Waits are for conditions (a refresh report, a count at the server, the
/// outbox drained), never for a time.
@Suite(.timeLimit(.minutes(2)))
struct NotifyDaemonTests {
    let start = TestWidgets.date("2026-11-29T08:00:00Z")
    let config: TemporaryFolder
    let out: TemporaryFolder
    let clock: ManualClock
    let source = InMemorySource()
    let logs = LogRecorder()
    static let token = "tok-7d41c09a2e"

    init() throws {
        config = try TemporaryFolder("widgetd-config")
        out = try TemporaryFolder("widgetd-out")
        clock = ManualClock(now: start)
    }

    var store: SnapshotStore { SnapshotStore(directory: out.url) }

    func makeDaemon() -> WidgetDaemon {
        var refresher = TestWidgets.refresher(source)
        refresher.secrets = SecretStore(files: ["hook_token": Self.token], folder: "/secrets")
        return WidgetDaemon(
            configuration: .init(
                definitions: DefinitionDirectory(path: config.path), store: store, reader: TestWidgets.reader, refresher: refresher,
                clock: clock, log: logs.log, keepsEveryRefreshReport: true))
    }

    /// A widget refreshed every minute from the in-memory source `key`, with `rules` (JSON) sending to `url`.
    func definition(key: String, notify rules: String? = nil) -> String {
        """
        {"title": "Widget \(key)", "source": {"type": "memory", "key": "\(key)"}, "parser": "json",
         "timeline": "single", "schedule": {"every": "1m", "allowFrequent": true}, "staleAfter": "1h"\(rules.map { #", "notify": [\#($0)]"# } ?? "")}
        """
    }

    /// Returns once `condition` holds (the server's threads and the sender's task work meanwhile), polling
    /// every 10 ms; fails the test after a generous minute.
    func waitUntil(
        _ what: String = "the condition", sourceLocation: Testing.SourceLocation = #_sourceLocation, _ condition: () -> Bool
    ) async throws {
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("waited 60 s for \(what) in vain", sourceLocation: sourceLocation)
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test func eachTriggerFiresExactlyWhenItShould() async throws {
        let server = try TestHTTPServer(routes: [TestHTTPRoute("POST", "/hook/*") { _ in .text("ok") }])
        let hook = server.url("/hook").absoluteString
        try config.write(
            "price.json",
            definition(
                key: "price",
                notify: """
                    {"name": "status", "on": "status", "webhook": {"url": "\(hook)/status", "body": "{{ previousStatus }} → {{ status }}"}},
                    {"name": "change", "on": "change", "path": "$.price",
                     "webhook": {"url": "\(hook)/change", "body": "{{ change.from }} → {{ change.to }}"}},
                    {"name": "cheap", "on": "condition", "if": "value.price < 10",
                     "webhook": {"url": "\(hook)/cheap", "body": {"price": "{{ value.price }}"}}}
                    """))
        source.set("price", json: #"{"price": 20}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }

        // The first refresh only records what each rule sees.
        _ = try #require(await reports.next())
        // Each minute's data, and the requests its refresh must make (nil: the refresh fails).
        let steps: [(json: String?, fired: [String])] = [
            (#"{"price": 20}"#, []),
            (#"{"price": 15}"#, ["/hook/change"]),
            (#"{"price": 5.0}"#, ["/hook/change", "/hook/cheap"]),
            // 5.0 and 5.00 are one number: no change; the condition is still true: no edge.
            (#"{"price": 5.00}"#, []),
            (#"{"price": 7}"#, ["/hook/change"]),
            (#"{"price": 12}"#, ["/hook/change"]),
            (#"{"price": 3}"#, ["/hook/change", "/hook/cheap"]),
            // A failed refresh serves the last good data: the status changes, the value does not.
            (nil, ["/hook/status"]),
            (#"{"price": 3}"#, ["/hook/status"]),
        ]
        var expected: [String] = []
        for (json, fired) in steps {
            if let json { source.set("price", json: json) } else { source.fail("price", message: "the shop is down") }
            await clock.waitForSleeper()
            clock.advance(by: 60)
            _ = try #require(await reports.next())
            expected += fired
            try await waitUntil { server.requests.count >= expected.count }
            #expect(server.requests.map(\.path).sorted() == expected.sorted(), "after \(json ?? "a failure")")
        }

        // Everything was delivered once, with its own key, and nothing more is waiting.
        try await waitUntil { store.notifications.summary(for: "price")?.pending == 0 }
        let summary = try #require(store.notifications.summary(for: "price"))
        #expect(summary.sent == expected.count)
        #expect(server.requests.count == expected.count)
        #expect(Set(server.requests.compactMap { $0.headers["Idempotency-Key"] }).count == expected.count)
        let bodies = server.requests.map(\.text)
        #expect(bodies.contains("20 → 15"))
        #expect(bodies.contains("fresh → cached"))
        #expect(bodies.contains("cached → fresh"))
        #expect(server.requests.first { $0.path == "/hook/cheap" }?.headers["Content-Type"] == "application/json")
        // The log line follows the outbox's save.
        try await waitUntil("every notify-sent line") { logs.records.count { $0.event == "notify-sent" } >= expected.count }
        #expect(logs.records.count { $0.event == "notify-sent" } == expected.count)
        let metrics = try String(contentsOf: out.file("widgetd.prom"), encoding: .utf8)
        #expect(metrics.contains("# TYPE widgetd_notifications_sent_total counter"))

        task.cancel()
        try await task.value
    }

    @Test func aFailingTargetIsReportedWhileEveryWidgetRefreshesOnTime() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("POST", "/down") { _ in TestHTTPResponse(status: 503, headers: ["Retry-After": "120"]) }
        ])
        try config.write(
            "feed.json",
            definition(
                key: "feed",
                notify: """
                    {"name": "changed", "on": "change", "path": "$.n",
                     "webhook": {"url": "\(server.url("/down").absoluteString)",
                                 "headers": {"Authorization": "Bearer {{ secret.hook_token }}"}, "body": "n={{ value.n }}"}}
                    """))
        try config.write("other.json", definition(key: "other"))
        source.set("feed", json: #"{"n": 1}"#)
        source.set("other", json: #"{"ok": true}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        _ = try #require(await reports.next())
        _ = try #require(await reports.next())

        source.set("feed", json: #"{"n": 2}"#)
        for minute in 1...5 {
            await clock.waitForSleeper()
            clock.advance(to: start.addingTimeInterval(Double(minute) * 60))
            // Both widgets refresh each minute, whatever the target does.
            let ids = [try #require(await reports.next()).id, try #require(await reports.next()).id]
            #expect(ids.sorted() == ["feed", "other"])
            #expect(store.snapshot(for: "other")?.generatedAt == start.addingTimeInterval(Double(minute) * 60))
            if minute == 1 { try await waitUntil { server.requests.count >= 1 } }
        }
        try await waitUntil { store.notifications.summary(for: "feed")?.failingSince != nil }
        // Retry-After: 120 holds the notification back two minutes each time: 3 attempts in 5 minutes.
        #expect((1...3).contains(server.requests.count))
        #expect(server.requests.first?.headers["Authorization"] == "Bearer \(Self.token)")
        let summary = try #require(store.notifications.summary(for: "feed"))
        #expect(summary.pending == 1)
        #expect(summary.sent == 0)
        #expect(summary.lastError == "127.0.0.1:\(server.port) answered 503")

        // The refresh that wrote the metrics came after the first failure.
        await clock.waitForSleeper()
        clock.advance(by: 60)
        _ = try #require(await reports.next())
        _ = try #require(await reports.next())
        let metrics = try String(contentsOf: out.file("widgetd.prom"), encoding: .utf8)
        #expect(metrics.contains(#"widgetd_notifications_pending{widget="feed"} 1"#))
        #expect(metrics.contains(#"widgetd_notifications_sent_total{widget="feed"} 0"#))
        #expect(!metrics.contains(#"widgetd_notifications_pending{widget="other"}"#))
        let failingSince = try #require(store.notifications.summary(for: "feed")?.failingSince)
        #expect(metrics.contains("# TYPE widgetd_notifications_failing_since_seconds gauge"))
        #expect(
            metrics.contains(#"widgetd_notifications_failing_since_seconds{widget="feed"} \#(Int(failingSince.timeIntervalSince1970))"#))
        #expect(logs.records.contains { $0.event == "notify-failed" && $0.widget == "feed" })

        // The secret reached the server and nothing else: no log line, no file of the output.
        #expect(!logs.records.contains { "\($0.message) \($0.error ?? "") \($0.details)".contains(Self.token) })
        let files = FileManager.default.enumerator(at: out.url, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? []
        for file in files {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            #expect(!text.contains(Self.token), "\(file.path) holds the secret")
        }
        task.cancel()
        try await task.value
    }

    @Test func aSnapshotTurningStaleBetweenRefreshesFiresAStatusRule() async throws {
        let server = try TestHTTPServer(routes: [TestHTTPRoute("POST", "/hook") { _ in .text("ok") }])
        try config.write(
            "feed.json",
            """
            {"title": "Feed", "source": {"type": "memory", "key": "feed"}, "parser": "json", "timeline": "single",
             "schedule": {"every": "1h"}, "staleAfter": "10m",
             "notify": [{"name": "stale", "on": "status", "to": ["stale"],
                         "webhook": {"url": "\(server.url("/hook").absoluteString)", "body": "{{ previousStatus }} → {{ status }}"}}]}
            """)
        source.set("feed", json: #"{"n": 1}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        _ = try #require(await reports.next())
        await clock.waitForSleeper()
        #expect(clock.earliestDeadline == start.addingTimeInterval(600))
        // No refresh runs: the daemon marks the snapshot stale at the moment its data turns stale.
        clock.advance(to: start.addingTimeInterval(600))
        try await waitUntil { server.requests.count >= 1 }
        #expect(server.requests.map(\.text) == ["fresh → stale"])
        #expect(source.fetchCount("feed") == 1)
        #expect(store.snapshot(for: "feed")?.status == .stale)
        task.cancel()
        try await task.value
    }

    @Test func aNotificationWhoseRuleAReloadRemovedIsDropped() async throws {
        let server = try TestHTTPServer(routes: [TestHTTPRoute("POST", "/down") { _ in TestHTTPResponse(status: 503) }])
        func rule(_ name: String) -> String {
            #"{"name": "\#(name)", "on": "change", "path": "$.n", "webhook": {"url": "\#(server.url("/down").absoluteString)", "body": "{{ change.to }}"}}"#
        }
        try config.write("feed.json", definition(key: "feed", notify: rule("changed")))
        source.set("feed", json: #"{"n": 1}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        _ = try #require(await reports.next())
        source.set("feed", json: #"{"n": 2}"#)
        await clock.waitForSleeper()
        clock.advance(by: 60)
        _ = try #require(await reports.next())
        try await waitUntil { store.notifications.summary(for: "feed")?.failingSince != nil }

        try config.write("feed.json", definition(key: "feed", notify: rule("renamed")))
        await daemon.reloadDefinitions()
        try await waitUntil { logs.records.contains { $0.event == "reloaded" } }
        // Past any backoff of a first failure: the sender finds the rule gone.
        clock.advance(by: 120)
        try await waitUntil { logs.records.contains { $0.event == "notify-dropped" } }
        let summary = try #require(store.notifications.summary(for: "feed"))
        #expect(summary.pending == 0)
        #expect(summary.failed == 0)
        #expect(summary.dropped == 1)
        #expect(server.requests.count == 1)
        task.cancel()
        try await task.value
    }

    @Test func runOnceDeliversWhatItsRefreshesMade() async throws {
        let server = try TestHTTPServer(routes: [TestHTTPRoute("POST", "/hook") { _ in .text("ok") }])
        try config.write(
            "feed.json",
            definition(
                key: "feed",
                notify:
                    #"{"name": "n", "on": "change", "path": "$.n", "webhook": {"url": "\#(server.url("/hook").absoluteString)", "body": "{{ change.to }}"}}"#
            ))
        source.set("feed", json: #"{"n": 1}"#)
        _ = try await makeDaemon().runOnce()
        #expect(server.requests.isEmpty)
        source.set("feed", json: #"{"n": 2}"#)
        _ = try await makeDaemon().runOnce()
        #expect(server.requests.map(\.text) == ["2"])
        #expect(store.notifications.summary(for: "feed")?.sent == 1)
    }
}
