import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetTestSupport
import WidgetTesting

/// The daemon's loop, driven by a manual clock: no test here sleeps. A test waits for a refresh on the
/// daemon's `refreshes` stream, or for the loop to go idle with `ManualClock.waitForSleeper()`.
@Suite(.timeLimit(.minutes(5)))
struct WidgetDaemonTests {
    let start = TestWidgets.date("2026-11-22T15:00:00Z")
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

    /// A definition served from the in-memory source under `key`.
    static func definition(key: String, every: String = "1h", staleAfter: String = "24h") -> String {
        """
        {"title": "Widget \(key)", "source": {"type": "memory", "key": "\(key)"}, "parser": "json",
         "timeline": "single", "schedule": {"every": "\(every)"}, "staleAfter": "\(staleAfter)",
         "placeholder": {"text": "…"}}
        """
    }

    func makeDaemon(started: HangingFetcher.Started? = nil, gate: StubbornFetcher.Gate? = nil) -> WidgetDaemon {
        WidgetDaemon(
            configuration: .init(
                definitions: DefinitionDirectory(path: config.path),
                store: store,
                reader: TestWidgets.reader,
                refresher: TestWidgets.refresher(source, started: started, gate: gate),
                clock: clock,
                log: logs.log,
                keepsEveryRefreshReport: true
            ))
    }

    /// Leaves what an earlier daemon run would have left for `id`: a snapshot and state.
    func remember(_ id: String, lastSuccessAt: Date, nextDueAt: Date) throws {
        let entries = [TimelineEntry(date: lastSuccessAt, content: ["old": true])]
        try FolderOutput(folder: store.directory).prepareFolder()
        try store.write(
            Snapshot(
                id: id, title: "Widget \(id)", status: .fresh, generatedAt: lastSuccessAt, lastSuccessAt: lastSuccessAt,
                nextRefreshAt: nextDueAt, entries: entries, error: nil
            ))
        var state = WidgetState()
        state.lastGoodEntries = entries
        state.lastSuccessAt = lastSuccessAt
        state.nextDueAt = nextDueAt
        try store.writeState(state, for: id)
    }

    // MARK: - Start-up

    @Test func widgetWithoutSnapshotRefreshesAtStartAndAgainWhenItsScheduleComes() async throws {
        try config.write("news.json", Self.definition(key: "news"))
        source.set("news", json: #"{"headline": "first"}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }

        let first = try #require(await reports.next())
        #expect(first.id == "news")
        #expect(first.snapshot.status == .fresh)
        #expect(first.snapshot.generatedAt == start)
        #expect(first.snapshot.nextRefreshAt == start.addingTimeInterval(3_600))
        #expect(store.snapshot(for: "news")?.entries.map(\.content) == [["headline": "first"]])

        await clock.waitForSleeper()
        #expect(source.fetchCount("news") == 1)
        source.set("news", json: #"{"headline": "second"}"#)
        clock.advance(by: 3_600)
        let second = try #require(await reports.next())
        #expect(second.snapshot.generatedAt == start.addingTimeInterval(3_600))
        #expect(second.snapshot.entries.map(\.content) == [["headline": "second"]])
        #expect(store.snapshot(for: "news")?.entries.map(\.content) == [["headline": "second"]])
        #expect(store.state(for: "news").nextDueAt == start.addingTimeInterval(7_200))

        task.cancel()
        try await task.value
    }

    @Test func refreshMissedWhileTheDaemonWasDownRunsOnceAtStart() async throws {
        try config.write("news.json", Self.definition(key: "news"))
        try remember("news", lastSuccessAt: start.addingTimeInterval(-3 * 3_600), nextDueAt: start.addingTimeInterval(-2 * 3_600))
        source.set("news", json: #"{"headline": "caught up"}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }

        let report = try #require(await reports.next())
        #expect(report.snapshot.generatedAt == start)
        #expect(report.snapshot.entries.map(\.content) == [["headline": "caught up"]])
        await clock.waitForSleeper()
        #expect(source.fetchCount("news") == 1)
        #expect(store.state(for: "news").nextDueAt == start.addingTimeInterval(3_600))

        task.cancel()
        try await task.value
    }

    @Test func staleWidgetRefreshesAtStartEvenWhenItsNextRunIsLater() async throws {
        try config.write("news.json", Self.definition(key: "news", staleAfter: "2h"))
        try remember("news", lastSuccessAt: start.addingTimeInterval(-3 * 3_600), nextDueAt: start.addingTimeInterval(1_800))
        source.set("news", json: #"{"headline": "renewed"}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }

        let report = try #require(await reports.next())
        #expect(report.snapshot.generatedAt == start)
        #expect(report.snapshot.status == .fresh)

        task.cancel()
        try await task.value
    }

    @Test func freshWidgetWaitsForItsNextDueTimeAtStart() async throws {
        try config.write("news.json", Self.definition(key: "news"))
        try remember("news", lastSuccessAt: start.addingTimeInterval(-1_800), nextDueAt: start.addingTimeInterval(1_800))
        source.set("news", json: #"{"headline": "on time"}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }

        await clock.waitForSleeper()
        #expect(source.fetchCount("news") == 0)
        #expect(store.snapshot(for: "news")?.entries.map(\.content) == [["old": true]])
        // The index and metrics describe the widgets from the start, before any refresh.
        let index = try JSONReader.read(try Data(contentsOf: store.indexFile))
        #expect(index["widgets"]?.array?.map { $0["id"] } == ["news"])
        #expect(try out.read("widgetd.prom").hasSuffix("widgetd_widgets 1\n"))

        clock.advance(by: 1_800)
        let report = try #require(await reports.next())
        #expect(report.snapshot.generatedAt == start.addingTimeInterval(1_800))
        #expect(source.fetchCount("news") == 1)

        task.cancel()
        try await task.value
    }

    // MARK: - Staleness

    /// Data that passes its `staleAfter` is rewritten `stale` at that second, not at the next refresh: the
    /// loop sleeps until then, and wakes then without fetching.
    @Test func aSnapshotTurnsStaleAtTheSecondItsDataPassesStaleAfter() async throws {
        try config.write("news.json", Self.definition(key: "news", every: "2h", staleAfter: "90m"))
        source.set("news", json: #"{"headline": "first"}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }

        let first = try #require(await reports.next())
        #expect(first.snapshot.status == .fresh)
        await clock.waitForSleeper()
        let staleMoment = start.addingTimeInterval(90 * 60)
        #expect(clock.earliestDeadline == staleMoment)

        // A second before: still fresh.
        clock.advance(to: staleMoment.addingTimeInterval(-1))
        await clock.waitForSleeper()
        #expect(store.snapshot(for: "news")?.status == .fresh)

        // At the second: stale, written then, with its data and next refresh unchanged and nothing fetched.
        clock.advance(to: staleMoment)
        await clock.waitForSleeper()
        let stale = try #require(store.snapshot(for: "news"))
        #expect(stale.status == .stale)
        #expect(stale.generatedAt == staleMoment)
        #expect(stale.lastSuccessAt == start)
        #expect(stale.nextRefreshAt == start.addingTimeInterval(7_200))
        #expect(stale.entries.map(\.content) == [["headline": "first"]])
        #expect(source.fetchCount("news") == 1)
        let index = try JSONReader.read(try Data(contentsOf: store.indexFile))
        #expect(index["widgets"]?[0]?["status"] == "stale")
        // The gallery and the widget's page show it stale too, and the index carries the new card's generation.
        let card = try #require(store.card(for: "news"))
        #expect(card.html.contains(#"data-status="stale""#))
        #expect(try out.read("index.html").contains(#"data-status="stale""#))
        #expect(try out.read("news.html").contains(#"data-status="stale""#))
        #expect(index["widgets"]?[0]?["generation"] == .string(card.generation))
        #expect(logs.records.contains { $0.event == "stale" && $0.widget == "news" })
        #expect(clock.earliestDeadline == start.addingTimeInterval(7_200))

        // The next refresh makes it fresh again, and the next stale moment is 90 minutes after it.
        clock.advance(to: start.addingTimeInterval(7_200))
        let second = try #require(await reports.next())
        #expect(second.snapshot.status == .fresh)
        await clock.waitForSleeper()
        #expect(clock.earliestDeadline == start.addingTimeInterval(7_200 + 90 * 60))
        #expect(try out.read("index.html").contains(#"data-status="fresh""#))

        task.cancel()
        try await task.value
    }

    /// A `cached` snapshot (the source failed) turns stale on time too, between two retries.
    @Test func aCachedSnapshotTurnsStaleBetweenRetries() async throws {
        try config.write("news.json", Self.definition(key: "news", every: "1h", staleAfter: "65m"))
        source.set("news", json: #"{"headline": "kept"}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        _ = try #require(await reports.next())
        await clock.waitForSleeper()

        source.fail("news", message: "the server answered 503")
        clock.advance(to: start.addingTimeInterval(3_600))
        #expect(try #require(await reports.next()).snapshot.status == .cached)
        await clock.waitForSleeper()
        // Retries at +30 s, +1 m, +2 m, +4 m after the hour; the data turns stale at 65 minutes, between
        // the retry at 1:03:30 and the one at 1:07:30.
        var retries = 0
        while let next = clock.earliestDeadline, next < start.addingTimeInterval(65 * 60) {
            clock.advance(to: next)
            #expect(try #require(await reports.next()).snapshot.status == .cached)
            retries += 1
            await clock.waitForSleeper()
        }
        #expect(retries == 3)
        #expect(clock.earliestDeadline == start.addingTimeInterval(65 * 60))
        clock.advance(to: start.addingTimeInterval(65 * 60))
        await clock.waitForSleeper()
        let stale = try #require(store.snapshot(for: "news"))
        #expect(stale.status == .stale)
        #expect(stale.generatedAt == start.addingTimeInterval(65 * 60))
        #expect(stale.error == "source: the server answered 503")
        #expect(stale.entries.map(\.content) == [["headline": "kept"]])

        task.cancel()
        try await task.value
    }

    // MARK: - Faults

    @Test func failingWidgetNeverStopsAnotherAndRetriesOnItsOwn() async throws {
        try config.write("bad.json", Self.definition(key: "bad"))
        try config.write("good.json", Self.definition(key: "good"))
        source.fail("bad", message: "the server answered 500")
        source.set("good", json: #"{"ok": true}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }

        var statuses: [String: Snapshot.Status] = [:]
        for _ in 0..<2 {
            let report = try #require(await reports.next())
            statuses[report.id] = report.snapshot.status
        }
        #expect(statuses == ["bad": .placeholder, "good": .fresh])
        #expect(store.snapshot(for: "bad")?.error == "source: the server answered 500")
        #expect(store.snapshot(for: "good")?.status == .fresh)

        await clock.waitForSleeper()
        clock.advance(by: 30)
        let retry = try #require(await reports.next())
        #expect(retry.id == "bad")
        #expect(retry.snapshot.generatedAt == start.addingTimeInterval(30))
        #expect(retry.snapshot.nextRefreshAt == start.addingTimeInterval(90))
        await clock.waitForSleeper()
        #expect(source.fetchCount("good") == 1)
        #expect(source.fetchCount("bad") == 2)

        task.cancel()
        try await task.value
    }

    // MARK: - Reloads

    @Test func reloadPicksUpAnEditedDefinitionAndRefreshesIt() async throws {
        try config.write("greeting.json", Self.definition(key: "one"))
        source.set("one", json: #"{"word": "hello"}"#)
        source.set("two", json: #"{"word": "bonjour"}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }

        let first = try #require(await reports.next())
        #expect(first.snapshot.entries.map(\.content) == [["word": "hello"]])
        await clock.waitForSleeper()

        try config.write("greeting.json", Self.definition(key: "two"))
        await daemon.reloadDefinitions()
        let second = try #require(await reports.next())
        #expect(second.id == "greeting")
        #expect(second.snapshot.generatedAt == start)
        #expect(second.snapshot.entries.map(\.content) == [["word": "bonjour"]])
        #expect(logs.lines.contains("greeting: definition changed"))

        task.cancel()
        try await task.value
    }

    @Test func aPartialEditedInViewsShowsInTheGalleryAfterAReload() async throws {
        try config.write(
            "greeting.json",
            #"{"title": "Greeting", "source": {"type": "memory", "key": "one"}, "parser": "json", "view": "{% render 'card' %}"}"#)
        try config.write("views/card.liquid", #"<p class="one">{{ entry.content.word }}</p>"#)
        source.set("one", json: #"{"word": "hello"}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }

        _ = try #require(await reports.next())
        await clock.waitForSleeper()
        #expect(try out.read("index.html").contains(#"<p class="one">hello</p>"#))

        try config.write("views/card.liquid", #"<p class="two">{{ entry.content.word | upcase }}</p>"#)
        await daemon.reloadDefinitions()
        _ = try #require(await reports.next())
        await clock.waitForSleeper()
        #expect(logs.lines.contains("greeting: definition changed"))
        #expect(try out.read("index.html").contains(#"<p class="two">HELLO</p>"#))
        #expect(try out.read("greeting.html").contains(#"<p class="two">HELLO</p>"#))

        task.cancel()
        try await task.value
    }

    @Test func aViewEditedWhileStoppedShowsAtTheNextStartWithoutARefresh() async throws {
        try config.write(
            "greeting.json",
            #"{"title": "Greeting", "source": {"type": "memory", "key": "one"}, "parser": "json", "view": "{% render 'card' %}", "schedule": {"every": "1h"}}"#
        )
        try config.write("views/card.liquid", #"<p class="one">{{ entry.content.word }}</p>"#)
        source.set("one", json: #"{"word": "hello"}"#)
        let first = makeDaemon()
        var reports = first.refreshes.makeAsyncIterator()
        let task = Task { try await first.run() }
        _ = try #require(await reports.next())
        await clock.waitForSleeper()
        task.cancel()
        try await task.value
        #expect(try out.read("greeting.html").contains(#"<p class="one">hello</p>"#))

        // Not due for an hour: the card kept in its page was rendered with the old view, so the gallery
        // written at the start renders it again from the snapshot.
        try config.write("views/card.liquid", #"<p class="two">{{ entry.content.word | upcase }}</p>"#)
        let second = makeDaemon()
        let again = Task { try await second.run() }
        await clock.waitForSleeper()
        #expect(source.fetchCount("one") == 1)
        #expect(try out.read("index.html").contains(#"<p class="two">HELLO</p>"#))
        #expect(try out.read("greeting.html").contains(#"<p class="two">HELLO</p>"#))
        again.cancel()
        try await again.value
    }

    @Test func imagesTheDataNoLongerUsesAreDeletedAndTheOthersKept() async throws {
        try config.write("pics.json", Self.definition(key: "pics"))
        source.set("pics", json: #"{"image": "assets/kept.png", "more": [{"thumb": "assets/nested.png"}]}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        _ = try #require(await reports.next())
        await clock.waitForSleeper()

        // Images the snapshot refers to, nested or not, stay; the rest go once what is used changes.
        for name in ["kept.png", "nested.png", "unused.png"] { try out.write("assets/\(name)", "png") }
        source.set("pics", json: #"{"image": "assets/kept.png", "more": [{"thumb": "https://example.com/t.png"}]}"#)
        clock.advance(by: 3_600)
        _ = try #require(await reports.next())
        await clock.waitForSleeper()
        #expect(out.names(in: "assets") == ["kept.png"])
        task.cancel()
        try await task.value
    }

    @Test func invalidEditKeepsTheLastValidDefinitionRunningUntilTheFileIsFixed() async throws {
        let file = try config.write("greeting.json", Self.definition(key: "one"))
        source.set("one", json: #"{"word": "hello"}"#)
        source.set("two", json: #"{"word": "bonjour"}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        _ = try #require(await reports.next())
        await clock.waitForSleeper()

        try config.write(
            "greeting.json", #"{"source": {"type": "memory", "key": "two"}, "parser": "json", "schedule": {"every": "15 minutes"}}"#)
        await daemon.reloadDefinitions()
        clock.advance(by: 3_600)
        let scheduled = try #require(await reports.next())
        #expect(scheduled.snapshot.generatedAt == start.addingTimeInterval(3_600))
        #expect(scheduled.snapshot.entries.map(\.content) == [["word": "hello"]])
        #expect(source.fetchCount("two") == 0)
        #expect(
            logs.lines.contains(
                "invalid definition: \(file.path):1:86: $.schedule.every: \"15 minutes\" is not a duration; write e.g. \"15m\", \"24h\" or \"1h30m\""
            ))
        #expect(logs.lines.contains("greeting: keeps running its last valid definition until \(file.path) is fixed"))
        #expect(store.snapshot(for: "greeting") != nil)

        await clock.waitForSleeper()
        try config.write("greeting.json", Self.definition(key: "two"))
        await daemon.reloadDefinitions()
        let fixed = try #require(await reports.next())
        #expect(fixed.snapshot.entries.map(\.content) == [["word": "bonjour"]])

        task.cancel()
        try await task.value
    }

    @Test func removedDefinitionStopsTheWidgetAndDeletesItsSnapshot() async throws {
        try config.write("news.json", Self.definition(key: "news"))
        try config.write("weather.json", Self.definition(key: "weather"))
        source.set("news", json: "{}")
        source.set("weather", json: "{}")
        let daemon = makeDaemon()
        let task = Task { try await daemon.run() }
        var reports = daemon.refreshes.makeAsyncIterator()
        _ = await reports.next()
        _ = await reports.next()
        await clock.waitForSleeper()
        #expect(store.snapshotIDs() == ["news", "weather"])

        try FileManager.default.removeItem(at: config.file("weather.json"))
        await daemon.reloadDefinitions()
        // The reload is handled before the loop sleeps again; a sleeper from before the reload is gone
        // once the reload has been posted.
        await clock.waitForSleeper()
        clock.advance(by: 3_600)
        let report = try #require(await reports.next())
        #expect(report.id == "news")
        #expect(store.snapshotIDs() == ["news"])
        #expect(logs.lines.contains("weather: definition removed"))
        #expect(source.fetchCount("weather") == 1)

        task.cancel()
        try await task.value
    }

    @Test func vanishedDefinitionsFolderKeepsEveryWidgetRunning() async throws {
        try config.write("news.json", Self.definition(key: "news"))
        source.set("news", json: "{}")
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        _ = try #require(await reports.next())
        await clock.waitForSleeper()

        try FileManager.default.removeItem(at: config.url)
        await daemon.reloadDefinitions()
        await clock.waitForSleeper()
        #expect(store.snapshotIDs() == ["news"])
        #expect(
            logs.lines.contains(
                "invalid definition: \(config.path): no folder of definitions at this path; create it or pass the right one with --config"
            ))
        #expect(logs.lines.contains("keeping every widget running until \(config.path) can be read again"))
        clock.advance(by: 3_600)
        let report = try #require(await reports.next())
        #expect(report.id == "news")
        #expect(report.snapshot.status == .fresh)

        task.cancel()
        try await task.value
    }

    @Test func unreadableDefinitionKeepsItsWidgetRunning() async throws {
        try config.write("news.json", Self.definition(key: "news"))
        source.set("news", json: "{}")
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        _ = try #require(await reports.next())
        await clock.waitForSleeper()

        // A folder where the file was: it cannot be read as a file.
        try FileManager.default.removeItem(at: config.file("news.json"))
        try FileManager.default.createDirectory(at: config.file("news.json"), withIntermediateDirectories: false)
        await daemon.reloadDefinitions()
        await clock.waitForSleeper()
        #expect(store.snapshotIDs() == ["news"])
        #expect(logs.lines.contains("news: keeps running its last valid definition until \(config.path)/news.json is fixed"))

        task.cancel()
        try await task.value
    }

    @Test func reloadRequestRefreshesTheWidgetNowAndIgnoresUnknownIDs() async throws {
        try config.write("news.json", Self.definition(key: "news"))
        source.set("news", json: #"{"headline": "first"}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        _ = try #require(await reports.next())
        await clock.waitForSleeper()

        let requests = store.stateDirectory.appendingPathComponent("requests")
        try FileManager.default.createDirectory(at: requests, withIntermediateDirectories: true)
        for id in ["news", "ghost"] {
            try Data().write(to: requests.appendingPathComponent(id))
        }
        // A request `widgetd reload` is writing right now: its temporary file is not a request yet.
        try Data().write(to: requests.appendingPathComponent(".news.tmp-7"))
        source.set("news", json: #"{"headline": "on request"}"#)
        await daemon.checkReloadRequests()
        let report = try #require(await reports.next())
        #expect(report.id == "news")
        #expect(report.snapshot.generatedAt == start)
        #expect(report.snapshot.entries.map(\.content) == [["headline": "on request"]])
        #expect(logs.lines.contains("news: reload requested"))
        #expect(logs.lines.contains("ghost: reload requested for an unknown widget; ignored"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: requests.path) == [".news.tmp-7"])
        #expect(store.state(for: "news").budgetUsed == 2)

        task.cancel()
        try await task.value
    }

    // MARK: - Stopping

    @Test func cancellationStopsTheLoopAndEndsTheRefreshStream() async throws {
        try config.write("news.json", Self.definition(key: "news"))
        source.set("news", json: "{}")
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        _ = try #require(await reports.next())
        await clock.waitForSleeper()

        task.cancel()
        try await task.value
        #expect(await reports.next() == nil)
        #expect(logs.lines.last == "stopping")
        #expect(clock.sleeperCount == 0)
    }

    @Test func stoppingDuringARefreshKeepsTheLastGoodSnapshotAndState() async throws {
        try config.write("slow.json", #"{"source": {"type": "hang"}, "parser": "json", "schedule": {"every": "1h"}}"#)
        try remember("slow", lastSuccessAt: start.addingTimeInterval(-3_600), nextDueAt: start.addingTimeInterval(-60))
        let before = try out.read("slow.json")
        let stateBefore = store.state(for: "slow")
        let started = HangingFetcher.Started()
        let daemon = makeDaemon(started: started)
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        var fetches = started.fetches.makeAsyncIterator()
        _ = await fetches.next()

        task.cancel()
        try await task.value
        #expect(await reports.next() == nil)
        #expect(try out.read("slow.json") == before)
        #expect(store.state(for: "slow") == stateBefore)
        #expect(logs.lines.contains("slow: refresh interrupted by the stop; its last snapshot stays"))
    }

    // MARK: - Independence and deadlines

    @Test func aRefreshUnderWayHoldsUpNoOtherWidget() async throws {
        try config.write("slow.json", #"{"source": {"type": "hang"}, "parser": "json", "schedule": {"every": "15m"}, "deadline": "1h"}"#)
        try config.write("fast.json", Self.definition(key: "fast", every: "15m"))
        source.set("fast", json: #"{"ok": true}"#)
        let started = HangingFetcher.Started()
        let daemon = makeDaemon(started: started)
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        var fetches = started.fetches.makeAsyncIterator()
        _ = await fetches.next()

        // Four quarters of an hour with slow's first refresh still under way: fast keeps its schedule.
        for quarter in 0..<4 {
            let report = try #require(await reports.next())
            #expect(report.id == "fast")
            #expect(report.snapshot.generatedAt == start.addingTimeInterval(Double(quarter) * 900))
            clock.advance(by: 900)
        }
        _ = try #require(await reports.next())
        #expect(source.fetchCount("fast") == 5)
        // Slow has no data yet: it is listed as refreshing since its first refresh started.
        #expect(store.snapshot(for: "slow")?.status == .refreshing)
        #expect(store.snapshot(for: "slow")?.refreshStartedAt == start)

        task.cancel()
        try await task.value
        #expect(logs.lines.contains("slow: refresh interrupted by the stop; its last snapshot stays"))
    }

    @Test func aStageThatIgnoresCancellationIsStoppedAtItsDeadline() async throws {
        let gate = StubbornFetcher.Gate()
        defer { gate.open() }
        let pipeline = try TestWidgets.pipeline(
            #"{"source": {"type": "stubborn"}, "parser": "json", "schedule": {"every": "1h"}, "deadline": "1s"}"#)
        var state = WidgetState()
        state.lastSuccessAt = start.addingTimeInterval(-60)
        state.lastGoodEntries = [TimelineEntry(date: start.addingTimeInterval(-60), content: ["old": true])]
        let outcome = await TestWidgets.refresher(source, gate: gate).refresh(pipeline, state: state, now: start)
        #expect(gate.started == 1)
        #expect(outcome.snapshot.status == .cached)
        #expect(outcome.snapshot.entries.map(\.content) == [["old": true]])
        #expect(
            outcome.error?.description
                == #"refresh: stopped at its 1s deadline; the last good data stays (set "deadline" in the definition to allow longer)"#)
        #expect(outcome.state.consecutiveFailures == 1)
        if case .deadline(let length) = outcome.error {
            #expect(length == WidgetDuration(seconds: 1))
        } else {
            Issue.record("expected the deadline, got \(String(describing: outcome.error))")
        }
    }

    @Test func aStopDoesNotWaitForAStageThatIgnoresCancellation() async throws {
        let gate = StubbornFetcher.Gate()
        defer { gate.open() }
        try config.write(
            "stuck.json", #"{"source": {"type": "stubborn"}, "parser": "json", "schedule": {"every": "1h"}, "deadline": "1h"}"#)
        try config.write("fast.json", Self.definition(key: "fast"))
        source.set("fast", json: #"{"ok": true}"#)
        let daemon = makeDaemon(gate: gate)
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        #expect(await reports.next()?.id == "fast")
        task.cancel()
        // Returns although the stuck stage goes on until the gate opens.
        try await task.value
        #expect(logs.lines.contains("stuck: refresh interrupted by the stop; its last snapshot stays"))
        #expect(!FileManager.default.fileExists(atPath: out.file("stuck.json").path))
    }

    // MARK: - Files

    @Test func indexAndMetricsDescribeEveryWidget() async throws {
        try config.write("bad.json", Self.definition(key: "bad"))
        try config.write("good.json", Self.definition(key: "good"))
        source.fail("bad", message: "the server answered 500")
        source.set("good", json: #"{"ok": true}"#)
        let daemon = makeDaemon()
        var reports = daemon.refreshes.makeAsyncIterator()
        let task = Task { try await daemon.run() }
        _ = await reports.next()
        _ = await reports.next()
        await clock.waitForSleeper()

        // The gallery's generation, and each widget's card's, as the pages written with the index carry them.
        let bad = try #require(store.card(for: "bad")).generation
        let good = try #require(store.card(for: "good")).generation
        let gallery = GalleryPage.generation(of: [bad, good])
        #expect(try out.read("index.html").contains(#"<meta name="widgetd-generation" content="\#(gallery)">"#))
        #expect(
            try out.read("index.json") == """
                {
                  "schemaVersion": 1,
                  "generatedAt": "2026-11-22T15:00:00Z",
                  "generation": "\(gallery)",
                  "widgets": [
                    {
                      "id": "bad",
                      "title": "Widget bad",
                      "status": "placeholder",
                      "file": "bad.json",
                      "nextRefreshAt": "2026-11-22T15:00:30Z",
                      "page": "bad.html",
                      "generation": "\(bad)"
                    },
                    {
                      "id": "good",
                      "title": "Widget good",
                      "status": "fresh",
                      "file": "good.json",
                      "nextRefreshAt": "2026-11-22T16:00:00Z",
                      "page": "good.html",
                      "generation": "\(good)"
                    }
                  ]
                }

                """)
        let metrics = try out.read("widgetd.prom").split(separator: "\n").map { line in
            line.hasPrefix("widgetd_refresh_duration_seconds{") || line.hasPrefix("widgetd_fetch_duration_seconds{")
                ? line.split(separator: " ")[0] + " SECONDS" : line
        }
        #expect(
            metrics == [
                "# HELP widgetd_refreshes_total Refreshes run since the daemon started, by resulting status.",
                "# TYPE widgetd_refreshes_total counter",
                #"widgetd_refreshes_total{widget="bad",status="fresh"} 0"#,
                #"widgetd_refreshes_total{widget="bad",status="cached"} 0"#,
                #"widgetd_refreshes_total{widget="bad",status="stale"} 0"#,
                #"widgetd_refreshes_total{widget="bad",status="placeholder"} 1"#,
                #"widgetd_refreshes_total{widget="good",status="fresh"} 1"#,
                #"widgetd_refreshes_total{widget="good",status="cached"} 0"#,
                #"widgetd_refreshes_total{widget="good",status="stale"} 0"#,
                #"widgetd_refreshes_total{widget="good",status="placeholder"} 0"#,
                "# HELP widgetd_widget_status Current status of each widget (1 for the current status).",
                "# TYPE widgetd_widget_status gauge",
                #"widgetd_widget_status{widget="bad",status="fresh"} 0"#,
                #"widgetd_widget_status{widget="bad",status="cached"} 0"#,
                #"widgetd_widget_status{widget="bad",status="stale"} 0"#,
                #"widgetd_widget_status{widget="bad",status="placeholder"} 1"#,
                #"widgetd_widget_status{widget="good",status="fresh"} 1"#,
                #"widgetd_widget_status{widget="good",status="cached"} 0"#,
                #"widgetd_widget_status{widget="good",status="stale"} 0"#,
                #"widgetd_widget_status{widget="good",status="placeholder"} 0"#,
                "# HELP widgetd_last_success_timestamp_seconds When each widget last refreshed successfully.",
                "# TYPE widgetd_last_success_timestamp_seconds gauge",
                #"widgetd_last_success_timestamp_seconds{widget="good"} 1795359600"#,
                "# HELP widgetd_refresh_duration_seconds How long each widget's last refresh took.",
                "# TYPE widgetd_refresh_duration_seconds gauge",
                #"widgetd_refresh_duration_seconds{widget="bad"} SECONDS"#,
                #"widgetd_refresh_duration_seconds{widget="good"} SECONDS"#,
                "# HELP widgetd_refresh_failures_total Failed refreshes since the daemon started, by failing stage.",
                "# TYPE widgetd_refresh_failures_total counter",
                #"widgetd_refresh_failures_total{widget="bad",stage="source"} 1"#,
                "# HELP widgetd_write_failures_total Snapshot or state writes that failed since the daemon started.",
                "# TYPE widgetd_write_failures_total counter",
                "# HELP widgetd_fetch_duration_seconds Time spent fetching in each widget's last successful refresh.",
                "# TYPE widgetd_fetch_duration_seconds gauge",
                #"widgetd_fetch_duration_seconds{widget="good"} SECONDS"#,
                "# HELP widgetd_fetch_bytes Bytes fetched in each widget's last successful refresh.",
                "# TYPE widgetd_fetch_bytes gauge",
                #"widgetd_fetch_bytes{widget="good"} 12"#,
                "# HELP widgetd_budget_used Refreshes used today, in the widget's zone.",
                "# TYPE widgetd_budget_used gauge",
                #"widgetd_budget_used{widget="bad"} 1"#,
                #"widgetd_budget_used{widget="good"} 1"#,
                "# HELP widgetd_budget_limit The most refreshes a day (maxPerDay), for widgets that set it.",
                "# TYPE widgetd_budget_limit gauge",
                "# HELP widgetd_snapshot_age_seconds Age of the data each widget serves.",
                "# TYPE widgetd_snapshot_age_seconds gauge",
                #"widgetd_snapshot_age_seconds{widget="good"} 0"#,
                "# HELP widgetd_refresh_lateness_seconds How long after its due time each refresh started.",
                "# TYPE widgetd_refresh_lateness_seconds histogram",
                #"widgetd_refresh_lateness_seconds_bucket{le="0.005"} 2"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="0.01"} 2"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="0.025"} 2"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="0.05"} 2"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="0.1"} 2"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="0.25"} 2"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="0.5"} 2"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="1.0"} 2"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="2.5"} 2"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="5.0"} 2"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="10.0"} 2"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="30.0"} 2"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="60.0"} 2"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="300.0"} 2"#,
                #"widgetd_refresh_lateness_seconds_bucket{le="+Inf"} 2"#,
                "widgetd_refresh_lateness_seconds_sum 0.000000",
                "widgetd_refresh_lateness_seconds_count 2",
                "# HELP widgetd_widgets Widgets loaded.",
                "# TYPE widgetd_widgets gauge",
                "widgetd_widgets 2",
            ])

        task.cancel()
        try await task.value
    }

    @Test func runOnceRefreshesEveryWidgetRegardlessOfScheduleAndReportsProblems() async throws {
        try config.write("news.json", Self.definition(key: "news"))
        try config.write("broken.json", #"{"source": {"type": "memory", "key": "x"}, "colour": "red"}"#)
        try remember("news", lastSuccessAt: start.addingTimeInterval(-60), nextDueAt: start.addingTimeInterval(3_540))
        source.set("news", json: #"{"headline": "once"}"#)
        let report = try await makeDaemon().runOnce()

        #expect(report.outcomes.map(\.snapshot.id) == ["news"])
        #expect(report.outcomes.map(\.snapshot.status) == [.fresh])
        #expect(
            report.diagnostics.map(\.description) == [
                "\(config.path)/broken.json:1:44: $.colour: unknown key 'colour'; known keys: 'id', 'title', 'description', "
                    + "'timeZone', 'inputs', 'source', 'parser', 'transforms', 'timeline', 'schedule', 'staleAfter', 'deadline', 'fallback', "
                    + "'placeholder', 'instances', 'view', 'notify', 'history'"
            ])
        #expect(store.snapshot(for: "news")?.entries.map(\.content) == [["headline": "once"]])
        #expect(out.names().contains("index.json"))
        #expect(out.names().contains("widgetd.prom"))
    }

    @Test func imagesNoSnapshotOrFallbackItemUsesAreDeletedAfterARefresh() async throws {
        try config.write("news.json", Self.definition(key: "news"))
        try config.write("kept.json", Self.definition(key: "kept"))
        source.set("news", json: #"{"image": "assets/new.png"}"#)
        source.fail("kept", message: "down")
        // An earlier run left two images: one the "kept" widget still serves from its fallback items, one
        // nothing refers to any more.
        try remember("kept", lastSuccessAt: start.addingTimeInterval(-60), nextDueAt: start)
        var state = store.state(for: "kept")
        state.fallbackItems = [["image": "assets/fallback.png"]]
        try store.writeState(state, for: "kept")
        let assets = store.assetsDirectory
        try FileManager.default.createDirectory(at: assets, withIntermediateDirectories: true)
        for name in ["new.png", "fallback.png", "orphan.png"] {
            try Data([0x89, 0x50, 0x4E, 0x47]).write(to: assets.appendingPathComponent(name))
        }

        _ = try await makeDaemon().runOnce()

        #expect(out.names(in: "assets") == ["fallback.png", "new.png"])
    }
}
