import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetLiquid
import WidgetTesting

@testable import WidgetRuntime

struct WidgetRefresherTests {
    static let hourly = """
        {"title": "News", "source": {"type": "memory", "key": "news"}, "parser": "json", "timeline": "single",
         "schedule": {"every": "1h"}, "staleAfter": "6h", "placeholder": {"text": "Loading news…"}}
        """

    let start = TestWidgets.date("2026-11-22T15:00:00Z")

    // MARK: - Secrets

    /// Whatever stage fails and however it words it, the widget's secrets are masked before the error
    /// reaches the snapshot or the state: a stage that echoes a two-character secret included.
    @Test func everyErrorLosesTheWidgetsSecretsWhateverItsStage() async throws {
        let widget = try TestWidgets.pipeline(
            """
            {"inputs": {"auth": {"url": "https://api.example.com/?key={{ env.SHORT }}", "when": "{{ false }}"}},
             "source": {"type": "memory", "key": "news"}, "parser": "json", "timeline": "single"}
            """, file: "widgets.d/news.json")
        #expect(widget.definition.secretUses == [Template.SecretUse(namespace: .env, name: .literal("SHORT"))])
        let source = InMemorySource()
        source.fail("news", message: "the server said ab, and YWI= in base64")
        var refresher = TestWidgets.refresher(source)
        refresher.secrets = SecretStore(environment: ["SHORT": "ab"])
        let outcome = await refresher.refresh(widget, state: WidgetState(), now: start)
        #expect(outcome.snapshot.error == "source: the server said ***, and *** in base64")
        #expect(outcome.state.lastError == "source: the server said ***, and *** in base64")
        #expect(outcome.error?.description == "source: the server said ***, and *** in base64")
    }

    /// The budget's day ends at the next local midnight; from then on its count is yesterday's, which
    /// `status` reads without knowing the widget's zone.
    @Test func theBudgetCountBelongsToItsLocalDayOnly() async throws {
        let source = InMemorySource()
        source.set("news", json: #"{"headline": "Rain tomorrow"}"#)
        let widget = try TestWidgets.pipeline(Self.hourly, file: "widgets.d/news.json")
        let outcome = await TestWidgets.refresher(source).refresh(widget, state: WidgetState(), now: start)
        let midnight = TestWidgets.date("2026-11-23T00:00:00Z")
        #expect(outcome.state.budgetDayEndsAt == midnight)
        #expect(outcome.state.refreshesToday(at: midnight.addingTimeInterval(-1)) == 1)
        #expect(outcome.state.refreshesToday(at: midnight) == 0)
        #expect(WidgetState(value: outcome.state.value).budgetDayEndsAt == midnight)
        #expect(WidgetState().refreshesToday(at: start) == 0)
    }

    // MARK: - Status

    @Test func successfulRefreshIsFreshWithTheNewEntriesAndTheNextScheduledTime() async throws {
        let source = InMemorySource()
        source.set("news", json: #"{"headline": "Rain tomorrow"}"#)
        let widget = try TestWidgets.pipeline(Self.hourly, file: "widgets.d/news.json")
        let outcome = await TestWidgets.refresher(source).refresh(widget, state: WidgetState(), now: start)

        #expect(outcome.ran)
        #expect(outcome.error == nil)
        let snapshot = outcome.snapshot
        #expect(snapshot.id == "news")
        #expect(snapshot.title == "News")
        #expect(snapshot.status == .fresh)
        #expect(snapshot.generatedAt == start)
        #expect(snapshot.lastSuccessAt == start)
        #expect(snapshot.nextRefreshAt == TestWidgets.date("2026-11-22T16:00:00Z"))
        #expect(snapshot.entries == [TimelineEntry(date: start, content: ["headline": "Rain tomorrow"])])
        #expect(snapshot.error == nil)
        #expect(outcome.state.lastGoodEntries == snapshot.entries)
        #expect(outcome.state.fallbackItems == [["headline": "Rain tomorrow"]])
        #expect(outcome.state.consecutiveFailures == 0)
        #expect(outcome.state.budgetDay == "2026-11-22")
        #expect(outcome.state.budgetUsed == 1)
    }

    @Test func failedRefreshServesTheLastGoodEntriesAsCachedAndNamesTheStage() async throws {
        let source = InMemorySource()
        source.set("news", json: #"{"headline": "Rain tomorrow"}"#)
        let widget = try TestWidgets.pipeline(Self.hourly, file: "widgets.d/news.json")
        let refresher = TestWidgets.refresher(source)
        let good = await refresher.refresh(widget, state: WidgetState(), now: start)

        source.fail("news", message: "the feed is down")
        let later = start.addingTimeInterval(3_600)
        let outcome = await refresher.refresh(widget, state: good.state, now: later)

        #expect(outcome.ran)
        #expect(outcome.error?.stageError?.stage == .source)
        let snapshot = outcome.snapshot
        #expect(snapshot.status == .cached)
        #expect(snapshot.error == "source: the feed is down")
        #expect(snapshot.entries == good.snapshot.entries)
        #expect(snapshot.lastSuccessAt == start)
        #expect(snapshot.generatedAt == later)
        #expect(snapshot.nextRefreshAt == later.addingTimeInterval(30))
        #expect(outcome.state.lastError == "source: the feed is down")
        #expect(outcome.state.lastGoodEntries == good.snapshot.entries)
    }

    @Test func failedRefreshIsStaleOnceTheLastGoodDataIsOlderThanStaleAfter() async throws {
        let source = InMemorySource()
        source.set("news", json: #"{"headline": "Rain tomorrow"}"#)
        let widget = try TestWidgets.pipeline(Self.hourly)
        let refresher = TestWidgets.refresher(source)
        let good = await refresher.refresh(widget, state: WidgetState(), now: start)
        source.fail("news", message: "the feed is down")

        let justInTime = await refresher.refresh(widget, state: good.state, now: start.addingTimeInterval(6 * 3_600))
        #expect(justInTime.snapshot.status == .cached)
        let tooOld = await refresher.refresh(widget, state: justInTime.state, now: start.addingTimeInterval(6 * 3_600 + 1))
        #expect(tooOld.snapshot.status == .stale)
        #expect(tooOld.snapshot.entries == good.snapshot.entries)
        #expect(tooOld.snapshot.error == "source: the feed is down")
    }

    @Test func widgetThatNeverSucceededServesItsPlaceholder() async throws {
        let source = InMemorySource()
        source.fail("news", message: "the feed is down")
        let widget = try TestWidgets.pipeline(Self.hourly)
        let outcome = await TestWidgets.refresher(source).refresh(widget, state: WidgetState(), now: start)

        #expect(outcome.snapshot.status == .placeholder)
        #expect(outcome.snapshot.entries == [TimelineEntry(date: start, content: ["text": "Loading news…"])])
        #expect(outcome.snapshot.lastSuccessAt == nil)
        #expect(outcome.snapshot.error == "source: the feed is down")
    }

    @Test func widgetWithoutPlaceholderServesNoEntriesWhenItNeverSucceeded() async throws {
        let source = InMemorySource()
        let widget = try TestWidgets.pipeline(#"{"source": {"type": "memory", "key": "news"}, "parser": "json"}"#)
        let outcome = await TestWidgets.refresher(source).refresh(widget, state: WidgetState(), now: start)

        #expect(outcome.snapshot.status == .placeholder)
        #expect(outcome.snapshot.entries == [])
        #expect(outcome.snapshot.error == "source: the in-memory source has no payload for 'news'")
    }

    // MARK: - Fallback

    /// Three good refreshes (A, B, C on 21 November in New York), then failures on later local days.
    private func dailyFallback(keep: Int) async throws -> (WidgetPipeline, WidgetRefresher, InMemorySource, WidgetState) {
        let widget = try TestWidgets.pipeline(
            """
            {"timeZone": "America/New_York", "source": {"type": "memory", "key": "jokes"}, "parser": "json",
             "schedule": {"at": ["00:00"]}, "fallback": {"keep": \(keep), "pick": "daily"}}
            """,
            file: "widgets.d/jotd.json"
        )
        let source = InMemorySource()
        let refresher = TestWidgets.refresher(source)
        var state = WidgetState()
        for (hour, joke) in [(12, "A"), (13, "B"), (14, "C")] {
            source.set("jokes", json: #"{"joke": "\#(joke)"}"#)
            let outcome = await refresher.refresh(widget, state: state, now: TestWidgets.date("2026-11-21T\(hour):00:00Z"))
            #expect(outcome.snapshot.status == .fresh)
            state = outcome.state
        }
        source.fail("jokes", message: "the joke server is down")
        return (widget, refresher, source, state)
    }

    @Test func dailyFallbackPicksTheSameKeptItemAllDayAndTheNextItemTheNextLocalDay() async throws {
        let (widget, refresher, _, state) = try await dailyFallback(keep: 20)
        #expect(state.fallbackItems == [["joke": "C"], ["joke": "B"], ["joke": "A"]])

        func served(_ moment: String) async -> WidgetValue? {
            let outcome = await refresher.refresh(widget, state: state, now: TestWidgets.date(moment))
            #expect(outcome.snapshot.status == .cached)
            #expect(outcome.snapshot.entries.map(\.date) == [TestWidgets.date(moment)])
            return outcome.snapshot.entries.first?.content
        }
        // 21 November in New York: 10:00 and 23:30 local.
        #expect(await served("2026-11-21T15:00:00Z") == ["joke": "C"])
        #expect(await served("2026-11-22T04:30:00Z") == ["joke": "C"])
        // 22 November in New York starts at 05:00 UTC.
        #expect(await served("2026-11-22T05:30:00Z") == ["joke": "B"])
        #expect(await served("2026-11-22T23:00:00Z") == ["joke": "B"])
        #expect(await served("2026-11-23T12:00:00Z") == ["joke": "A"])
        #expect(await served("2026-11-24T12:00:00Z") == ["joke": "C"])
    }

    @Test func fallbackKeepsOnlyTheNewestItems() async throws {
        let (widget, refresher, _, state) = try await dailyFallback(keep: 2)
        #expect(state.fallbackItems == [["joke": "C"], ["joke": "B"]])
        let outcome = await refresher.refresh(widget, state: state, now: TestWidgets.date("2026-11-22T12:00:00Z"))
        #expect(outcome.snapshot.entries.map(\.content) == [["joke": "B"]])
        let nextDay = await refresher.refresh(widget, state: state, now: TestWidgets.date("2026-11-23T12:00:00Z"))
        #expect(nextDay.snapshot.entries.map(\.content) == [["joke": "C"]])
    }

    // MARK: - Budget

    @Test func refreshBeyondTheDailyBudgetDoesNotRunAndWaitsForLocalMidnight() async throws {
        let widget = try TestWidgets.pipeline(
            """
            {"timeZone": "America/New_York", "source": {"type": "memory", "key": "news"}, "parser": "json",
             "schedule": {"every": "1h", "maxPerDay": 2}}
            """,
            file: "widgets.d/news.json"
        )
        let source = InMemorySource()
        source.set("news", json: #"{"headline": "Rain tomorrow"}"#)
        let refresher = TestWidgets.refresher(source)
        var state = WidgetState()
        for moment in ["2026-11-22T15:00:00Z", "2026-11-22T16:00:00Z"] {
            let outcome = await refresher.refresh(widget, state: state, now: TestWidgets.date(moment))
            #expect(outcome.snapshot.status == .fresh)
            state = outcome.state
        }
        #expect(state.budgetDay == "2026-11-22")
        #expect(state.budgetUsed == 2)

        let refused = await refresher.refresh(widget, state: state, now: TestWidgets.date("2026-11-22T17:00:00Z"))
        #expect(!refused.ran)
        #expect(source.fetchCount("news") == 2)
        let midnight = TestWidgets.date("2026-11-23T05:00:00Z")
        #expect(
            refused.snapshot.error
                == "schedule: the daily budget of 2 refreshes is used up; the next refresh waits until 2026-11-23T05:00:00Z")
        #expect(refused.snapshot.nextRefreshAt == midnight)
        #expect(refused.state.nextDueAt == midnight)
        #expect(refused.snapshot.entries.map(\.content) == [["headline": "Rain tomorrow"]])

        let unlimited = await refresher.refresh(widget, state: state, now: TestWidgets.date("2026-11-22T17:00:00Z"), respectBudget: false)
        #expect(unlimited.ran)
        #expect(unlimited.snapshot.status == .fresh)

        let nextDay = await refresher.refresh(widget, state: refused.state, now: midnight)
        #expect(nextDay.ran)
        #expect(nextDay.snapshot.status == .fresh)
        #expect(nextDay.state.budgetDay == "2026-11-23")
        #expect(nextDay.state.budgetUsed == 1)
    }

    // MARK: - Outcomes

    /// A used-up budget is an outcome of the refresh, not a failed stage: it names the budget and the
    /// moment the next refresh waits for, and the snapshot words it as before.
    @Test func aUsedUpBudgetComesBackAsItsOwnOutcome() async throws {
        let widget = try TestWidgets.pipeline(
            """
            {"source": {"type": "memory", "key": "news"}, "parser": "json", "schedule": {"every": "1h", "maxPerDay": 1}}
            """, file: "widgets.d/news.json")
        let source = InMemorySource()
        source.set("news", json: #"{"headline": "Rain tomorrow"}"#)
        let refresher = TestWidgets.refresher(source)
        let first = await refresher.refresh(widget, state: WidgetState(), now: start)
        #expect(first.error == nil)

        let refused = await refresher.refresh(widget, state: first.state, now: start.addingTimeInterval(3_600))
        let midnight = TestWidgets.date("2026-11-23T00:00:00Z")
        guard case .budgetUsedUp(let limit, let next) = refused.error else {
            Issue.record("expected a used-up budget, got \(String(describing: refused.error))")
            return
        }
        #expect(limit == 1)
        #expect(next == midnight)
        #expect(!refused.ran)
        let error = try #require(refused.error)
        #expect(error.stageError == nil)
        #expect(error.retryAfter == nil)
        #expect(!error.isCancellation)
        #expect(error.metricsLabel == "schedule")
        #expect(
            error.description
                == "schedule: the daily budget of 1 refreshes is used up; the next refresh waits until 2026-11-23T00:00:00Z")
        #expect(refused.snapshot.error == error.description)
    }

    /// A pipeline run stopped at its deadline comes back as the deadline, with its length; a run whose
    /// task was cancelled as a cancellation; a stage's error as that stage's.
    @Test func aDeadlineComesBackAsItsOwnOutcome() throws {
        let deadline = WidgetRefresher.failure(Deadline.Exceeded(), deadline: WidgetDuration(seconds: 30))
        guard case .deadline(let length) = deadline else {
            Issue.record("expected the deadline, got \(deadline)")
            return
        }
        #expect(length == WidgetDuration(seconds: 30))
        #expect(!deadline.isCancellation)
        #expect(deadline.metricsLabel == "deadline")
        #expect(
            deadline.description
                == #"refresh: stopped at its 30s deadline; the last good data stays (set "deadline" in the definition to allow longer)"#)

        let cancelled = WidgetRefresher.failure(CancellationError(), deadline: WidgetDuration(seconds: 30))
        #expect(cancelled.isCancellation)
        #expect(cancelled.description == "refresh: the refresh was cancelled")

        let stage = PipelineError(stage: .source, kind: .fetcher, underlying: StageError("down", retryAfter: 60))
        let failed = WidgetRefresher.failure(stage, deadline: WidgetDuration(seconds: 30))
        #expect(failed.stageError?.stage == .source)
        #expect(failed.retryAfter == 60)
        #expect(failed.metricsLabel == "source")
        #expect(failed.description == "source: down")
    }

    // MARK: - Retries

    @Test func failuresRetryAfter30sThenDoubleUpToTheScheduleInterval() async throws {
        let widget = try TestWidgets.pipeline(
            #"{"source": {"type": "memory", "key": "news"}, "parser": "json", "schedule": {"every": "5m"}}"#
        )
        let source = InMemorySource()
        source.fail("news", message: "the feed is down")
        let refresher = TestWidgets.refresher(source)
        var state = WidgetState()
        var now = start
        var delays: [TimeInterval] = []
        for _ in 0..<6 {
            let outcome = await refresher.refresh(widget, state: state, now: now)
            let next = try #require(outcome.snapshot.nextRefreshAt)
            delays.append(next.timeIntervalSince(now))
            state = outcome.state
            now = next
        }
        #expect(delays == [30, 60, 120, 240, 300, 300])
        #expect(state.consecutiveFailures == 6)

        source.set("news", json: "{}")
        let recovered = await refresher.refresh(widget, state: state, now: now)
        #expect(recovered.state.consecutiveFailures == 0)
        #expect(recovered.snapshot.nextRefreshAt == now.addingTimeInterval(300))
    }

    @Test func retryWaitsAtLeastAsLongAsTheSourcesRetryAfter() async throws {
        let widget = try TestWidgets.pipeline(Self.hourly)
        let source = InMemorySource()
        let refresher = TestWidgets.refresher(source)

        source.fail("news", message: "the server answered 503", retryAfter: 600)
        let asked = await refresher.refresh(widget, state: WidgetState(), now: start)
        #expect(asked.snapshot.nextRefreshAt == start.addingTimeInterval(600))

        source.fail("news", message: "the server answered 429", retryAfter: 5)
        let short = await refresher.refresh(widget, state: WidgetState(), now: start)
        #expect(short.snapshot.nextRefreshAt == start.addingTimeInterval(30))

        source.fail("news", message: "the server answered 503", retryAfter: 10 * 86_400)
        let capped = await refresher.refresh(widget, state: WidgetState(), now: start)
        #expect(capped.snapshot.nextRefreshAt == start.addingTimeInterval(86_400))
    }
}
