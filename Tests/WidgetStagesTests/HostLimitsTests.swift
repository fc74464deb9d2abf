import Foundation
import Synchronization
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTesting

/// Limits that every widget keeps to for a host: a `Retry-After` holds back the whole host, and a host's
/// `perMinute` makes requests over it wait. Counted at a server on 127.0.0.1, on a manual clock.
@Suite(.timeLimit(.minutes(5)))
struct HostLimitsTests {
    let now = Date(timeIntervalSince1970: 1_795_340_203)

    private func fetcher(_ url: URL, timeout: String = "10s") throws -> HTTPFetcher {
        let options: WidgetValue = ["url": .string(url.absoluteString), "timeout": .string(timeout)]
        let stage = try StageRegistry.builtIn.makeStage(.fetcher, typeName: "http", options: options, decoder: OptionsDecoder())
        return try #require(stage as? HTTPFetcher)
    }

    private func context(_ widget: String, limits: HostLimits) -> StageContext {
        var resources = StageResources()
        resources.insert(limits)
        return StageContext(widgetID: widget, now: limits.clock.now(), resources: resources)
    }

    /// The error `fetcher` throws, or `nil` when it succeeds.
    private func failure(_ fetcher: HTTPFetcher, _ context: StageContext) async -> StageError? {
        do {
            _ = try await fetcher.fetch(context: context)
            return nil
        } catch {
            return error as? StageError
        }
    }

    @Test func tenWidgetsOnOneHostMakeNoRequestBeforeRetryAfter() async throws {
        // The first request is told to come back in two minutes; after it, the host answers.
        let answered = ManagedCount()
        let server = try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/api/*") { _ in
                answered.increment() == 1
                    ? .json(["error": "slow down"], status: 429, headers: ["Retry-After": "120"]) : .json(["ok": true])
            }
        ])
        let clock = ManualClock(now: now)
        let limits = HostLimits(clock: clock)
        let widgets = try (0..<10).map { try fetcher(server.url("/api/widget\($0)")) }

        let first = await failure(widgets[0], context("w0", limits: limits))
        #expect(first?.retryAfter == 120)
        #expect(server.requests.count == 1)

        // Every widget, the first too, fails at once without a request until the two minutes are over.
        for (index, widget) in widgets.enumerated() {
            let error = await failure(widget, context("w\(index)", limits: limits))
            #expect(
                error?.message
                    == "held back by 127.0.0.1:\(server.port) until 2026-11-22T09:38:43Z (Retry-After): it asked every widget to wait, so no request was sent"
            )
            #expect(error?.retryAfter == 120)
        }
        clock.advance(by: 119)
        for (index, widget) in widgets.enumerated() {
            #expect(await failure(widget, context("w\(index)", limits: limits))?.retryAfter == 1)
        }
        #expect(server.requests.count == 1)

        clock.advance(by: 1)
        for (index, widget) in widgets.enumerated() {
            #expect(await failure(widget, context("w\(index)", limits: limits)) == nil)
        }
        #expect(server.requests.count == 11)
    }

    @Test func aHoldIsPerOriginSoAnotherPortIsNotHeldBack() async throws {
        let busy = try TestHTTPServer(routes: [TestHTTPRoute("GET", "/*") { _ in .json([:], status: 503, headers: ["Retry-After": "60"]) }])
        let calm = try TestHTTPServer(routes: [TestHTTPRoute("GET", "/*") { _ in .json(["ok": true]) }])
        let limits = HostLimits(clock: ManualClock(now: now))
        #expect(await failure(try fetcher(busy.url("/a")), context("a", limits: limits))?.retryAfter == 60)
        #expect(await failure(try fetcher(calm.url("/b")), context("b", limits: limits)) == nil)
        #expect(limits.heldUntil(busy.url("/other")) == now.addingTimeInterval(60))
        #expect(limits.heldUntil(calm.url("/other")) == nil)
    }

    @Test func requestsOverAHostsRateWaitForAFreeSlot() async throws {
        let server = try TestHTTPServer(routes: [TestHTTPRoute("GET", "/*") { _ in .json(["ok": true]) }])
        let clock = ManualClock(now: now)
        let limits = HostLimits(
            clock: clock, settings: HostSettings(hosts: ["127.0.0.1:\(server.port)": HostSettings.Host(perMinute: 3)]))
        for index in 0..<3 {
            #expect(await failure(try fetcher(server.url("/r\(index)")), context("r\(index)", limits: limits)) == nil)
        }
        #expect(server.requests.count == 3)

        // The fourth in the minute waits for the first's slot to free, a minute after it: within its timeout.
        let fourth = try fetcher(server.url("/r3"), timeout: "2m")
        let context = context("r3", limits: limits)
        let task = Task { await failure(fourth, context) }
        await clock.waitForSleeper()
        #expect(clock.earliestDeadline == now.addingTimeInterval(60))
        #expect(server.requests.count == 3)
        clock.advance(by: 60)
        #expect(await task.value == nil)
        #expect(server.requests.count == 4)
    }

    @Test func aSlotPastTheDeadlineFailsAtOnce() async throws {
        let server = try TestHTTPServer(routes: [TestHTTPRoute("GET", "/*") { _ in .json(["ok": true]) }])
        let limits = HostLimits(
            clock: ManualClock(now: now), settings: HostSettings(hosts: ["127.0.0.1": HostSettings.Host(perMinute: 1)]))
        #expect(await failure(try fetcher(server.url("/one")), context("one", limits: limits)) == nil)
        let error = await failure(try fetcher(server.url("/two"), timeout: "30s"), context("two", limits: limits))
        #expect(
            error?.message
                == "127.0.0.1 allows 1 requests a minute (hosts.settings) and its next free slot is after this fetch's deadline; raise its perMinute or refresh less often"
        )
        #expect(server.requests.count == 1)
    }
}

/// A counter the server's handlers share.
private final class ManagedCount: Sendable {
    private let count = Mutex(0)

    /// Adds one and returns the new count.
    func increment() -> Int {
        count.withLock {
            $0 += 1
            return $0
        }
    }
}
