import Foundation
import Testing
import WidgetCore
import WidgetRuntime
import WidgetTestSupport
import WidgetTesting

/// A week of a daemon's life on a manual clock, fast-forwarded from one due time to the next: every
/// refresh instant of every widget is asserted. The week (2026-03-05 to 2026-03-12, UTC) contains New
/// York's spring-forward day.
@Suite(.timeLimit(.minutes(5)))
struct SimulatedWeekTests {
    let start = TestWidgets.date("2026-03-05T00:00:00Z")
    let config: TemporaryFolder
    let out: TemporaryFolder
    let clock: ManualClock
    let source = InMemorySource()
    let logs = LogRecorder()

    init() throws {
        config = try TemporaryFolder("widgetd-config")
        out = try TemporaryFolder("widgetd-out")
        clock = ManualClock(now: start)
    }

    var store: SnapshotStore { SnapshotStore(directory: out.url) }

    func makeDaemon() -> WidgetDaemon {
        WidgetDaemon(
            configuration: .init(
                definitions: DefinitionDirectory(path: config.path),
                store: store,
                reader: TestWidgets.reader,
                refresher: TestWidgets.refresher(source),
                clock: clock,
                log: logs.log,
                keepsEveryRefreshReport: true
            ))
    }

    /// A definition served from the in-memory source under its own id, with `extra` keys.
    func write(_ id: String, _ extra: String) throws {
        try config.write(
            "\(id).json",
            """
            {"source": {"type": "memory", "key": "\(id)"}, "parser": "json", "placeholder": {"text": "…"}, \(extra)}
            """)
    }

    /// Lets the daemon work until it idles, then jumps to the moment it waits for, until that is `end`
    /// or later.
    func fastForward(to end: Date) async {
        while true {
            await clock.waitForSleeper()
            guard let next = clock.earliestDeadline, next < end else { return }
            clock.advance(to: next)
        }
    }

    /// Runs `daemon` until the clock reaches `end`, stops it and returns every refresh it reported.
    func run(_ daemon: WidgetDaemon, until end: Date) async throws -> [WidgetDaemon.RefreshReport] {
        let task = Task { try await daemon.run() }
        await fastForward(to: end)
        task.cancel()
        try await task.value
        var reports: [WidgetDaemon.RefreshReport] = []
        for await report in daemon.refreshes { reports.append(report) }
        return reports
    }

    func offsets(_ instants: [Date]) -> [Int] {
        instants.map { Int($0.timeIntervalSince(start)) }
    }

    @Test func weekOfMixedSchedulesRefreshesAtExactlyTheScheduledInstants() async throws {
        // 96 refreshes a day, with a budget that allows them.
        try write("quarter", #""timeline": "single", "schedule": {"every": "15m", "maxPerDay": 96}"#)
        try write("twice", #""timeZone": "America/New_York", "timeline": "single", "schedule": {"at": ["08:00", "20:00"]}"#)
        try write("fourhourly", #""timeline": "single", "schedule": {"cron": "0 */4 * * *"}"#)
        try write("slides", #""timeline": {"type": "each", "every": "90m"}, "schedule": "atEnd""#)
        try write("chatty", #""timeline": "single", "schedule": {"every": "1m", "allowFrequent": true, "maxPerDay": 10}"#)
        try write("flaky", #""timeline": "single", "schedule": {"every": "1h"}"#)
        for id in ["quarter", "twice", "fourhourly", "chatty"] { source.set(id, json: #"{"ok": true}"#) }
        source.set("slides", json: #"[{"n": 1}, {"n": 2}, {"n": 3}, {"n": 4}]"#)
        source.fail("flaky", message: "api.example.com answered 503 Service Unavailable", retryAfter: 600)

        let end = start.addingTimeInterval(7 * 86_400)
        let reports = try await run(makeDaemon(), until: end)
        func instants(_ id: String) -> [Date] { reports.filter { $0.id == id }.map(\.snapshot.generatedAt) }

        // every 15m: elapsed time, from the start-up refresh.
        #expect(instants("quarter") == (0..<672).map { start.addingTimeInterval(Double($0) * 900) })

        // at 08:00 and 20:00 in New York: 13:00Z and 01:00Z until the clocks change on Sunday 8 March,
        // 12:00Z and 00:00Z after; the first refresh is the start-up one.
        #expect(
            instants("twice").map(Timestamp.string) == [
                "2026-03-05T00:00:00Z", "2026-03-05T01:00:00Z", "2026-03-05T13:00:00Z", "2026-03-06T01:00:00Z",
                "2026-03-06T13:00:00Z", "2026-03-07T01:00:00Z", "2026-03-07T13:00:00Z", "2026-03-08T01:00:00Z",
                "2026-03-08T12:00:00Z", "2026-03-09T00:00:00Z", "2026-03-09T12:00:00Z", "2026-03-10T00:00:00Z",
                "2026-03-10T12:00:00Z", "2026-03-11T00:00:00Z", "2026-03-11T12:00:00Z",
            ])

        #expect(instants("fourhourly") == (0..<42).map { start.addingTimeInterval(Double($0) * 14_400) })

        // atEnd: four entries 90 minutes apart, so the last one is 4 h 30 min after each refresh.
        #expect(instants("slides") == (0..<38).map { start.addingTimeInterval(Double($0) * 16_200) })
        let slides = try #require(reports.last { $0.id == "slides" })
        #expect(slides.snapshot.entries.map(\.date) == (0..<4).map { slides.snapshot.generatedAt.addingTimeInterval(Double($0) * 5_400) })
        #expect(slides.snapshot.nextRefreshAt == slides.snapshot.generatedAt.addingTimeInterval(16_200))

        // maxPerDay 10 on a 1-minute schedule: ten refreshes from midnight, the eleventh is refused and
        // the snapshot says until when; then nothing until the next midnight.
        let chatty = reports.filter { $0.id == "chatty" }
        let ran = chatty.filter { $0.error == nil }
        let refused = chatty.filter { $0.error != nil }
        let ranExpected: [Int] = (0..<7).flatMap { (day: Int) -> [Int] in
            (0..<10).map { (minute: Int) -> Int in day * 86_400 + minute * 60 }
        }
        #expect(offsets(ran.map(\.snapshot.generatedAt)) == ranExpected)
        let refusedExpected: [Int] = (0..<7).map { (day: Int) -> Int in day * 86_400 + 600 }
        #expect(offsets(refused.map(\.snapshot.generatedAt)) == refusedExpected)
        let messages: [String?] = (1...7).map { (day: Int) -> String? in
            let midnight = start.addingTimeInterval(Double(day) * 86_400)
            return "schedule: the daily budget of 10 refreshes is used up; the next refresh waits until " + Timestamp.string(midnight)
        }
        #expect(refused.map(\.snapshot.error) == messages)
        #expect(refused.allSatisfy { $0.snapshot.status == .cached })
        #expect(source.fetchCount("chatty") == 70)

        // A failing source that asks for 10 minutes (Retry-After: 600): backoff 30 s, 1 m, 2 m, 4 m and 8 m
        // all wait the 10 minutes, then 16 m, 32 m, and the schedule's interval (1 h) caps the rest.
        let flaky = offsets(instants("flaky"))
        let hourly: [Int] = (0...165).map { (hour: Int) -> Int in 9_480 + hour * 3_600 }
        let flakyExpected: [Int] = [0, 600, 1_200, 1_800, 2_400, 3_000, 3_960, 5_880] + hourly
        #expect(flaky == flakyExpected)
        #expect(
            reports.filter { $0.id == "flaky" }.allSatisfy {
                $0.snapshot.status == .placeholder && $0.snapshot.error == "source: api.example.com answered 503 Service Unavailable"
            })
        #expect(source.fetchCount("flaky") == flaky.count)

        let expectedCount: Int = 672 + 15 + 42 + 38 + 77 + 174
        #expect(reports.count == expectedCount)
        #expect(store.state(for: "chatty").budgetUsed == 10)
    }

    @Test func aPlainQuarterHourWidgetRefreshesAllDayWithoutADailyCap() async throws {
        // No maxPerDay: no budget stops it at the 70th refresh (17:30), as WidgetKit's would.
        try write("plain", #""timeline": "single", "schedule": {"every": "15m"}"#)
        source.set("plain", json: #"{"ok": true}"#)
        let reports = try await run(makeDaemon(), until: start.addingTimeInterval(2 * 86_400))
        #expect(offsets(reports.map(\.snapshot.generatedAt)) == (0..<192).map { $0 * 900 })
        #expect(reports.allSatisfy { $0.error == nil && $0.snapshot.status == .fresh })
        #expect(source.fetchCount("plain") == 192)
        // The day's refreshes are still counted, for status.
        #expect(store.state(for: "plain").budgetUsed == 96)
    }

    @Test func daemonDownForAWeekCatchesUpWithExactlyOneRefreshPerWidget() async throws {
        try write("hourly", #""timeline": "single", "schedule": {"every": "1h"}, "staleAfter": "30d""#)
        try write("morning", #""timeZone": "America/New_York", "timeline": "single", "schedule": {"at": ["08:00"]}, "staleAfter": "30d""#)
        try write("fourhourly", #""timeline": "single", "schedule": {"cron": "0 */4 * * *"}, "staleAfter": "30d""#)
        for id in ["hourly", "morning", "fourhourly"] { source.set(id, json: #"{"ok": true}"#) }

        // A first run of a few hours, then the machine is off for a week.
        let first = try await run(makeDaemon(), until: start.addingTimeInterval(3 * 3_600))
        #expect(first.filter { $0.id == "hourly" }.count == 3)
        #expect(first.filter { $0.id == "morning" }.count == 1)
        #expect(first.filter { $0.id == "fourhourly" }.count == 1)
        let restart = TestWidgets.date("2026-03-12T00:10:00Z")
        clock.advance(to: restart)

        let daemon = makeDaemon()
        let task = Task { try await daemon.run() }
        var iterator = daemon.refreshes.makeAsyncIterator()
        var caughtUp: [String: Date] = [:]
        for _ in 0..<3 {
            let report = try #require(await iterator.next())
            caughtUp[report.id] = report.snapshot.generatedAt
        }
        await clock.waitForSleeper()
        #expect(caughtUp == ["hourly": restart, "morning": restart, "fourhourly": restart])
        #expect(source.fetchCount("hourly") == 4)
        #expect(source.fetchCount("morning") == 2)
        #expect(source.fetchCount("fourhourly") == 2)
        #expect(store.state(for: "hourly").nextDueAt == TestWidgets.date("2026-03-12T01:10:00Z"))
        #expect(store.state(for: "fourhourly").nextDueAt == TestWidgets.date("2026-03-12T04:00:00Z"))
        #expect(store.state(for: "morning").nextDueAt == TestWidgets.date("2026-03-12T12:00:00Z"))
        #expect(clock.earliestDeadline == TestWidgets.date("2026-03-12T01:10:00Z"))

        clock.advance(to: TestWidgets.date("2026-03-12T01:10:00Z"))
        let next = try #require(await iterator.next())
        #expect(next.id == "hourly")
        await clock.waitForSleeper()
        #expect(source.fetchCount("morning") == 2)
        #expect(source.fetchCount("fourhourly") == 2)

        task.cancel()
        try await task.value
    }
}
