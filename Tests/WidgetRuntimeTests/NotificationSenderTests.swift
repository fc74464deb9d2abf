import Foundation
import Synchronization
import Testing
import WidgetCore
import WidgetJSON
import WidgetLiquid
import WidgetRuntime
import WidgetStages
import WidgetTestSupport
import WidgetTesting

/// The sender against a webhook server on 127.0.0.1, draining a queue kept in memory, on a manual clock:
/// what it sends, when it tries again, when it gives up, and what it never shows.
@Suite(.timeLimit(.minutes(2)))
struct NotificationSenderTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let token = "tok-9f2c1e7b5a"

    func notification(_ id: String = "n1", rule: String = "down", createdAt: Date? = nil) -> PendingNotification {
        PendingNotification(
            id: id, widget: "shop", rule: rule, reason: "status fresh → stale", createdAt: createdAt ?? start,
            body: #"{"text":"shop is stale"}"#, contentType: "application/json")
    }

    func target(_ server: TestHTTPServer, path: String = "/hook/{{ notification.rule }}", method: String = "POST") throws
        -> WidgetDefinition
    {
        var definition = WidgetDefinition(id: "shop", source: StageSpec(typeName: "http", path: ValuePath.root.appending("source")))
        definition.params = ["room": "ops"]
        let rule = NotifyRule(
            name: "down", trigger: .status(to: []),
            webhook: .init(
                url: try Template(server.url("").absoluteString.dropLast() + path), method: method,
                headers: [
                    .init(name: "Authorization", value: try Template("Bearer {{ secret.hook_token }}")),
                    .init(name: "X-Room", value: try Template("{{ params.room }}/{{ widget.id }}")),
                ],
                body: .text(try Template("unused: the body is the one rendered when the rule fired"))))
        definition.document.notify = [rule]
        definition.secretUses = rule.webhook.headers.flatMap(\.value.secretUses.uses) + rule.webhook.url.secretUses.uses
        return definition
    }

    /// A webhook server whose first answer is `status`, and every later one 200.
    static func failingOnce(method: String, status: Int) throws -> TestHTTPServer {
        let answers = Mutex(0)
        return try TestHTTPServer(routes: [
            TestHTTPRoute(method, "/hook/*") { _ in
                let count = answers.withLock {
                    $0 += 1
                    return $0
                }
                return count == 1 ? TestHTTPResponse(status: status) : .text("ok")
            }
        ])
    }

    func sender(_ queue: MemoryNotificationQueue, clock: ManualClock, log: LogRecorder = LogRecorder()) -> NotificationSender {
        NotificationSender(
            queue: queue, secrets: SecretStore(files: ["hook_token": Self.token], folder: "/secrets"), clock: clock, log: log.log,
            random: { 0.5 })
    }

    @Test func deliversTheBodyWithItsIdempotencyKeyAndHeadersRenderedWithSecrets() async throws {
        let server = try TestHTTPServer(routes: [TestHTTPRoute("POST", "/hook/*") { _ in .text("ok") }])
        let queue = MemoryNotificationQueue([notification()])
        let log = LogRecorder()
        let sender = sender(queue, clock: ManualClock(now: start), log: log)
        sender.update(definitions: ["shop": try target(server)])

        #expect(await sender.sendDue() == 1)
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/hook/down")
        #expect(request.headers["Idempotency-Key"] == "n1")
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.headers["Authorization"] == "Bearer \(Self.token)")
        #expect(request.headers["X-Room"] == "ops/shop")
        #expect(request.headers["User-Agent"]?.hasPrefix("widgetd") == true)
        #expect(request.text == #"{"text":"shop is stale"}"#)
        #expect(queue.delivered.map(\.id) == ["n1"])
        #expect(queue.pending.isEmpty)
        #expect(log.records.map(\.event) == ["notify-sent"])
        #expect(!log.records.contains { "\($0)".contains(Self.token) })
    }

    @Test func aServerErrorIsTriedAgainAfterTheBackoff() async throws {
        let server = try Self.failingOnce(method: "PUT", status: 503)
        let queue = MemoryNotificationQueue([notification()])
        let clock = ManualClock(now: start)
        let log = LogRecorder()
        let sender = sender(queue, clock: clock, log: log)
        sender.update(definitions: ["shop": try target(server, method: "PUT")])

        await sender.sendDue()
        // Full jitter with a random half: 15 s of the first 30 s.
        let failure = try #require(queue.failures.first)
        #expect(failure.retryAt == start.addingTimeInterval(15))
        #expect(failure.error == "127.0.0.1:\(server.port) answered 503")
        #expect(await sender.sendDue() == 0)
        clock.advance(by: 15)
        #expect(await sender.sendDue() == 1)
        #expect(queue.delivered.map(\.id) == ["n1"])
        #expect(server.requests.map { $0.headers["Idempotency-Key"] } == ["n1", "n1"])
        #expect(log.records.map(\.event) == ["notify-failed", "notify-sent"])
        let failed = try #require(log.records.first)
        #expect(failed.error == "127.0.0.1:\(server.port) answered 503")
        #expect(!"\(failed)".contains("/hook/"))
    }

    @Test func retryAfterIsHonouredWhenLaterThanTheBackoff() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("POST", "/late/*") { _ in TestHTTPResponse(status: 429, headers: ["Retry-After": "120"]) },
            TestHTTPRoute("POST", "/soon/*") { _ in TestHTTPResponse(status: 503, headers: ["Retry-After": "2"]) },
        ])
        let clock = ManualClock(now: start)
        let late = MemoryNotificationQueue([notification()])
        let lateSender = sender(late, clock: clock)
        lateSender.update(definitions: ["shop": try target(server, path: "/late/x")])
        await lateSender.sendDue()
        #expect(late.failures.map(\.retryAt) == [start.addingTimeInterval(120)])

        let soon = MemoryNotificationQueue([notification()])
        let soonSender = sender(soon, clock: clock)
        soonSender.update(definitions: ["shop": try target(server, path: "/soon/x")])
        await soonSender.sendDue()
        #expect(soon.failures.map(\.retryAt) == [start.addingTimeInterval(15)])
    }

    @Test func theBackoffDoublesUpToAnHour() {
        let ceilings = (1...10).map { NotificationSender.retryDelay(afterFailedAttempts: $0, random: 0.999_999) }
        #expect(ceilings.map { Int($0.rounded()) } == [30, 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600])
        #expect(NotificationSender.retryDelay(afterFailedAttempts: 1, random: 0) == 1)
        #expect(NotificationSender.retryDelay(afterFailedAttempts: 1_000, random: 0.5) == 1800)
    }

    @Test func aRequestTheServerRejectsIsTriedAgainHourly() async throws {
        let server = try TestHTTPServer(routes: [TestHTTPRoute("POST", "/hook/*") { _ in TestHTTPResponse(status: 401) }])
        let queue = MemoryNotificationQueue([notification()])
        let sender = sender(queue, clock: ManualClock(now: start))
        sender.update(definitions: ["shop": try target(server)])
        await sender.sendDue()
        #expect(queue.failures.map(\.retryAt) == [start.addingTimeInterval(3600)])
        #expect(queue.pending.first?.lastError == "127.0.0.1:\(server.port) answered 401")
    }

    @Test func anUnreachableTargetFailsWithItsHostOnly() async throws {
        let closed = try #require(ClosedPort.make())
        let queue = MemoryNotificationQueue([notification()])
        let sender = sender(queue, clock: ManualClock(now: start))
        var target = try target(try TestHTTPServer(routes: []))
        let url = try Template("http://127.0.0.1:\(closed.port)/secret-path/{{ secret.hook_token }}")
        target.document.notify[0].webhook.url = url
        target.secretUses += url.secretUses.uses
        sender.update(definitions: ["shop": target])
        await sender.sendDue()
        let failure = try #require(queue.failures.first)
        #expect(failure.retryAt == start.addingTimeInterval(15))
        #expect(failure.error.contains("127.0.0.1:\(closed.port)"))
        #expect(!failure.error.contains("secret-path"))
        #expect(!failure.error.contains(Self.token))
    }

    @Test func aNotificationIsGivenUpADayAfterItsRuleFired() async throws {
        let server = try TestHTTPServer(routes: [TestHTTPRoute("POST", "/hook/*") { _ in TestHTTPResponse(status: 500) }])
        let queue = MemoryNotificationQueue([notification(createdAt: start.addingTimeInterval(-24 * 3600 + 5))])
        let log = LogRecorder()
        let sender = sender(queue, clock: ManualClock(now: start), log: log)
        sender.update(definitions: ["shop": try target(server)])
        await sender.sendDue()
        #expect(queue.failures.map(\.retryAt) == [nil])
        #expect(queue.givenUp.map(\.id) == ["n1"])
        #expect(log.records.map(\.level) == [.error])
        #expect(log.records.first?.message.contains("given up after 24 h") == true)
    }

    @Test func aNotificationWhoseRuleWasRemovedIsDropped() async throws {
        let server = try TestHTTPServer(routes: [TestHTTPRoute("POST", "/hook/*") { _ in .text("ok") }])
        let queue = MemoryNotificationQueue([notification(rule: "gone"), notification("n2")])
        let log = LogRecorder()
        let sender = sender(queue, clock: ManualClock(now: start), log: log)
        sender.update(definitions: ["shop": try target(server)])
        await sender.sendDue()
        #expect(server.requests.count == 1)
        #expect(queue.dropped.map(\.id) == ["n1"])
        #expect(queue.givenUp.isEmpty)
        #expect(queue.failures.isEmpty)
        #expect(queue.delivered.map(\.id) == ["n2"])
        #expect(log.records.map(\.event).sorted() == ["notify-dropped", "notify-sent"])
    }

    @Test func aNotificationOfAWidgetNotLoadedStaysPending() async throws {
        let server = try TestHTTPServer(routes: [TestHTTPRoute("POST", "/hook/*") { _ in .text("ok") }])
        let queue = MemoryNotificationQueue([notification()])
        let log = LogRecorder()
        let sender = sender(queue, clock: ManualClock(now: start), log: log)
        // Its definition is broken, say: the daemon loaded no `shop`.
        sender.update(definitions: [:])
        #expect(await sender.sendDue() == 0)
        #expect(queue.pending.map(\.id) == ["n1"])
        #expect(queue.dropped.isEmpty && queue.failures.isEmpty)
        #expect(server.requests.isEmpty)
        // Loaded again, it is sent.
        sender.update(definitions: ["shop": try target(server)])
        #expect(await sender.sendDue() == 1)
        #expect(queue.delivered.map(\.id) == ["n1"])
    }

    @Test func aTargetThatAnswers429IsNotTriedAgainInThePass() async throws {
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("POST", "/hook/*") { _ in TestHTTPResponse(status: 429, headers: ["Retry-After": "120"]) }
        ])
        let queue = MemoryNotificationQueue((1...10).map { notification("n\($0)") })
        let sender = sender(queue, clock: ManualClock(now: start))
        sender.update(definitions: ["shop": try target(server)])
        await sender.sendDue()
        // Only those already in flight when the first answer came reached the target.
        #expect(server.requests.count <= NotificationSender.maximumInFlight)
        #expect(queue.pending.count == 10)
        // All wait for the target's Retry-After, not only the ones it answered.
        #expect(queue.pending.allSatisfy { $0.nextAttemptAt == start.addingTimeInterval(120) }, "\(queue.pending)")
        // Those it answered count an attempt; the others were postponed, not failed: no attempt, no error.
        let answered = Set(queue.failures.map(\.id))
        #expect(answered.count == server.requests.count)
        #expect(Set(queue.postponed.map(\.id)) == Set((1...10).map { "n\($0)" }).subtracting(answered))
        #expect(queue.postponed.allSatisfy { $0.until == start.addingTimeInterval(120) })
        for pending in queue.pending {
            #expect(pending.attempts == (answered.contains(pending.id) ? 1 : 0), "\(pending.id)")
            #expect((pending.lastError != nil) == answered.contains(pending.id), "\(pending.id)")
        }
    }

    @Test func atMostFourRequestsAreInFlight() async throws {
        let inFlight = Mutex((now: 0, most: 0))
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("POST", "/hook/*") { _ in
                inFlight.withLock {
                    $0.now += 1
                    $0.most = max($0.most, $0.now)
                }
                defer { inFlight.withLock { $0.now -= 1 } }
                // A slow receiver: the exchange stays open while the handler runs (an upper bound is
                // checked, which no timing can break).
                Thread.sleep(forTimeInterval: 0.1)
                return .text("ok")
            }
        ])
        let queue = MemoryNotificationQueue((1...10).map { notification("n\($0)") })
        let sender = sender(queue, clock: ManualClock(now: start))
        sender.update(definitions: ["shop": try target(server)])
        #expect(await sender.sendDue() == 10)
        #expect(queue.delivered.count == 10)
        #expect(Set(server.requests.compactMap { $0.headers["Idempotency-Key"] }).count == 10)
        #expect(inFlight.withLock { $0.most } <= NotificationSender.maximumInFlight)
    }

    @Test func runSendsWhatIsQueuedWhenWokenAndRetriesOnTheClock() async throws {
        let server = try Self.failingOnce(method: "POST", status: 502)
        let queue = MemoryNotificationQueue()
        let clock = ManualClock(now: start)
        let sender = sender(queue, clock: clock)
        sender.update(definitions: ["shop": try target(server)])
        let task = Task { await sender.run() }
        defer { task.cancel() }

        // Idle: nothing pending, so it waits for a wake and sleeps on no clock.
        queue.add(notification())
        sender.wake()
        // The first attempt fails; the sender then sleeps until the retry 15 s later.
        await clock.waitForSleeper()
        #expect(clock.earliestDeadline == start.addingTimeInterval(15))
        #expect(server.requests.count == 1)
        clock.advance(by: 15)
        // Polled every 10 ms, for at most a generous minute.
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while queue.delivered.isEmpty {
            try #require(ContinuousClock.now < deadline, "the retry was not delivered within 60 s")
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(server.requests.count == 2)
        task.cancel()
        await task.value
    }
}
