import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages
import WidgetTestSupport

/// The rules of `notify` evaluated against what each last saw, into outboxes kept in the output's state:
/// each trigger fires exactly on its edge, a change recorded is not sent twice (even by a restarted
/// daemon), the outbox keeps at most 100, and the sender's queue saves what became of each notification.
struct NotificationOutboxesTests {
    private static let start = TestWidgets.date("2026-11-29T07:00:00Z")

    /// The widget `prices` with `notify` set to `rules`.
    private static func definition(_ rules: String, extra: String = "") throws -> WidgetDefinition {
        try TestWidgets.pipeline(
            #"{"id": "prices", "title": "Prices", "source": {"type": "memory", "key": "p"}\#(extra), "notify": \#(rules)}"#
        ).definition
    }

    private static func webhook(_ body: String = #""{{ status }}""#) -> String {
        #""webhook": {"url": "https://hooks.example/x", "body": \#(body)}"#
    }

    /// A snapshot of `prices` at `minute` past the start, serving `content`.
    private static func snapshot(_ status: Snapshot.Status, _ content: WidgetValue = [:], minute: Int = 0, error: String? = nil)
        -> Snapshot
    {
        let now = start.addingTimeInterval(Double(minute) * 60)
        return Snapshot(
            id: "prices", title: "Prices", status: status, generatedAt: now, lastSuccessAt: now, nextRefreshAt: nil,
            entries: status == .refreshing ? [] : [TimelineEntry(date: start, content: content)], error: error)
    }

    private final class Observer {
        let output = MemoryOutput(localFolder: URL(fileURLWithPath: "/nonexistent-notify-test"))
        var outboxes: NotificationOutboxes
        let definition: WidgetDefinition
        var minute = 0

        init(_ definition: WidgetDefinition) {
            self.definition = definition
            outboxes = NotificationOutboxes(output: output)
        }

        /// The reasons of the notifications observing `status` and `content` makes.
        @discardableResult
        func observe(_ status: Snapshot.Status, _ content: WidgetValue = [:], history: WidgetValue = [:]) throws -> [String] {
            minute += 1
            let made = try outboxes.observe(
                snapshot(status, content, minute: minute), definition: definition, history: history,
                now: start.addingTimeInterval(Double(minute) * 60))
            return made.map(\.reason)
        }

        /// A daemon started again on the same output.
        func restart() {
            outboxes = NotificationOutboxes(output: output)
        }
    }

    // MARK: - Status

    @Test func aStatusRuleRecordsItsFirstObservationThenFiresOnEveryChange() throws {
        let observer = Observer(try Self.definition(#"[{"name": "s", "on": "status", \#(Self.webhook())}]"#))
        #expect(try observer.observe(.fresh) == [])
        #expect(try observer.observe(.fresh) == [])
        #expect(try observer.observe(.stale) == ["status fresh → stale"])
        #expect(try observer.observe(.stale) == [])
        // Flipping back and forth is a new change each time.
        #expect(try observer.observe(.fresh) == ["status stale → fresh"])
        #expect(try observer.observe(.stale) == ["status fresh → stale"])
        #expect(try observer.observe(.cached) == ["status stale → cached"])
        #expect(observer.outboxes.summary(for: "prices")?.pending == 4)
    }

    @Test func aStatusRuleWithToFiresOnlyOnAChangeToOneOfThem() throws {
        let observer = Observer(try Self.definition(#"[{"on": "status", "to": ["stale", "placeholder"], \#(Self.webhook())}]"#))
        #expect(try observer.observe(.fresh) == [])
        #expect(try observer.observe(.cached) == [])
        #expect(try observer.observe(.stale) == ["status cached → stale"])
        #expect(try observer.observe(.fresh) == [])
        #expect(try observer.observe(.placeholder) == ["status fresh → placeholder"])
    }

    @Test func aRefreshingSnapshotIsNotObserved() throws {
        let observer = Observer(try Self.definition(#"[{"on": "status", \#(Self.webhook())}]"#))
        #expect(try observer.observe(.refreshing) == [])
        #expect(observer.outboxes.outbox(for: "prices") == nil)
        #expect(try observer.observe(.fresh) == [])
        #expect(try observer.observe(.refreshing) == [])
        #expect(try observer.observe(.fresh) == [])
    }

    // MARK: - Change

    @Test func aChangeRuleComparesValuesAsJSONWithExactDecimals() throws {
        let observer = Observer(try Self.definition(#"[{"on": "change", "path": "$.price", \#(Self.webhook())}]"#))
        #expect(try observer.observe(.fresh, ["price": 10]) == [])
        #expect(try observer.observe(.fresh, ["price": .number(WidgetNumber("10.0")!)]) == [])
        #expect(try observer.observe(.fresh, ["price": .number(WidgetNumber("10.00")!), "other": 1]) == [])
        let raised = try observer.observe(.fresh, ["price": .number(WidgetNumber("12")!)])
        // What the rule saw first stands for the equal values after it.
        #expect(raised == ["$.price changed 10 → 12"])
        // Digits beyond a Double's are compared too.
        let a = WidgetNumber("1234567890.123456789012")!
        let b = WidgetNumber("1234567890.123456789013")!
        #expect(try observer.observe(.fresh, ["price": .number(a)]).count == 1)
        #expect(try observer.observe(.fresh, ["price": .number(a)]) == [])
        #expect(
            try observer.observe(.fresh, ["price": .number(b)]) == ["$.price changed 1234567890.123456789012 → 1234567890.123456789013"])
        // A value that disappears, and comes back, changes too.
        let gone = try observer.observe(.fresh, [:])
        #expect(gone == ["$.price changed 1234567890.123456789013 → nothing"])
        let back = try observer.observe(.fresh, ["price": "n/a"])
        #expect(back == ["$.price changed nothing → n/a"])
    }

    @Test func aChangeRuleWatchesObjectsWhateverTheirMembersOrder() throws {
        let observer = Observer(try Self.definition(#"[{"on": "change", "path": "$.peer", \#(Self.webhook())}]"#))
        #expect(try observer.observe(.fresh, ["peer": ["a": 1, "b": 2]]) == [])
        #expect(try observer.observe(.fresh, ["peer": ["b": 2, "a": 1]]) == [])
        #expect(try observer.observe(.fresh, ["peer": ["b": 3, "a": 1]]).count == 1)
    }

    @Test func aPlaceholderIsNotComparedWithData() throws {
        let observer = Observer(try Self.definition(#"[{"on": "change", "path": "$.price", \#(Self.webhook())}]"#))
        #expect(try observer.observe(.placeholder, ["price": 0]) == [])
        // The first data is the first observation: recorded, not sent.
        #expect(try observer.observe(.fresh, ["price": 5]) == [])
        #expect(try observer.observe(.placeholder, ["price": 0]) == [])
        #expect(try observer.observe(.cached, ["price": 5]) == [])
        #expect(try observer.observe(.fresh, ["price": 6]) == ["$.price changed 5 → 6"])
    }

    // MARK: - Condition

    @Test func aConditionFiresWhenItBecomesTrue() throws {
        let observer = Observer(
            try Self.definition(#"[{"on": "condition", "if": "value.total < 1000 and status == 'fresh'", \#(Self.webhook())}]"#))
        // True at its first evaluation: it was never evaluated before.
        #expect(try observer.observe(.fresh, ["total": 900]) == ["condition is true (first evaluation)"])
        #expect(try observer.observe(.fresh, ["total": 800]) == [])
        #expect(try observer.observe(.cached, ["total": 800]) == [])
        #expect(try observer.observe(.fresh, ["total": 800]) == ["condition became true"])
        #expect(try observer.observe(.fresh, ["total": 1000]) == [])
        #expect(try observer.observe(.fresh, ["total": 1200]) == [])
        #expect(try observer.observe(.fresh, ["total": .number(WidgetNumber("999.99")!)]) == ["condition became true"])
    }

    @Test func aConditionFalseAtFirstFiresOnlyOnceTrue() throws {
        let observer = Observer(try Self.definition(#"[{"on": "condition", "if": "value.up == false", \#(Self.webhook())}]"#))
        #expect(try observer.observe(.fresh, ["up": true]) == [])
        #expect(try observer.observe(.fresh, ["up": false]) == ["condition became true"])
        #expect(try observer.observe(.fresh, ["up": false]) == [])
    }

    @Test func aConditionSeesHistory() throws {
        let observer = Observer(try Self.definition(#"[{"on": "condition", "if": "history.total.size > 2", \#(Self.webhook())}]"#))
        let point: WidgetValue = ["at": "2026-11-29T07:00:00Z", "value": 1]
        #expect(try observer.observe(.fresh, [:], history: ["total": [point, point]]) == [])
        #expect(try observer.observe(.fresh, [:], history: ["total": [point, point, point]]) == ["condition became true"])
    }

    // MARK: - Bodies

    @Test func aTextBodySeesWhatHappened() throws {
        let body =
            #""{{ widget.title }} ({{ widget.id }}): {{ previousStatus }} → {{ status }} by {{ change.rule }} ({{ change.on }}); {{ value.price }} {{ entry.date }} {{ error }} at {{ now }}""#
        let observer = Observer(try Self.definition(#"[{"name": "down", "on": "status", \#(Self.webhook(body))}]"#))
        try observer.observe(.fresh, ["price": 3])
        let made = try observer.outboxes.observe(
            Self.snapshot(.stale, ["price": 3], minute: 10, error: "source: timed out"), definition: observer.definition, history: [:],
            now: Self.start.addingTimeInterval(600))
        #expect(made.count == 1)
        #expect(
            made.first?.body
                == "Prices (prices): fresh → stale by down (status); 3 2026-11-29T07:00:00Z source: timed out at 2026-11-29T07:10:00Z")
        #expect(made.first?.contentType == "text/plain; charset=utf-8")
        #expect(made.first?.widget == "prices")
        #expect(made.first?.rule == "down")
    }

    @Test func aJSONBodyKeepsTypesAndIsSentAsJSON() throws {
        let body =
            #"{"text": "{{ change.path }}: {{ change.from }} → {{ change.to }}", "price": "{{ value.price }}", "tags": ["{{ status }}"]}"#
        let observer = Observer(try Self.definition(#"[{"on": "change", "path": "$.price", \#(Self.webhook(body))}]"#))
        try observer.observe(.fresh, ["price": 1])
        try observer.observe(.fresh, ["price": .number(WidgetNumber("1.50")!)])
        let pending = observer.outboxes.due(at: .distantFuture)
        #expect(pending.map(\.body) == [#"{"text":"$.price: 1 → 1.50","price":1.50,"tags":["fresh"]}"#])
        #expect(pending.first?.contentType == "application/json")
    }

    @Test func aBodyThatCannotRenderStillMakesItsNotification() throws {
        let observer = Observer(try Self.definition(#"[{"on": "status", \#(Self.webhook(#""{{ value.n | divided_by: 0 }}""#))}]"#))
        try observer.observe(.fresh, ["n": 1])
        let made = try observer.observe(.stale, ["n": 1])
        #expect(made == ["status fresh → stale"])
        let body = try #require(observer.outboxes.due(at: .distantFuture).first?.body)
        #expect(body.hasPrefix("prices: notify-1: status fresh → stale (the body could not be rendered: "), "\(body)")
    }

    @Test func aBodyPastTheLimitIsReplacedBySayingSo() throws {
        let observer = Observer(
            try Self.definition(#"[{"on": "status", \#(Self.webhook(#""{% for i in (1..70000) %}x{% endfor %}""#))}]"#))
        try observer.observe(.fresh, ["n": 1])
        try observer.observe(.stale, ["n": 1])
        let body = try #require(observer.outboxes.due(at: .distantFuture).first?.body)
        #expect(body.utf8.count < 1000)
        #expect(body.contains("it is 70000 bytes long, past the limit of 65536 bytes"), "\(body)")
    }

    // MARK: - Durability

    @Test func aChangeRecordedIsNotDetectedAgainAfterARestart() throws {
        let observer = Observer(
            try Self.definition(
                #"[{"name": "s", "on": "status", \#(Self.webhook())}, {"name": "a", "on": "change", "path": "$.a", \#(Self.webhook())}]"#))
        try observer.observe(.fresh, ["a": 1])
        #expect(try observer.observe(.stale, ["a": 2]).count == 2)
        observer.restart()
        // The same snapshot again, as a daemon killed before writing it would see: nothing new.
        #expect(try observer.observe(.stale, ["a": 2]) == [])
        #expect(observer.outboxes.due(at: .distantFuture).count == 2)
        #expect(try observer.observe(.fresh, ["a": 2]) == ["status stale → fresh"])
    }

    @Test func theOutboxIsSavedBeforeObserveReturnsAndOnlyWhenItChanged() throws {
        let observer = Observer(try Self.definition(#"[{"on": "status", \#(Self.webhook())}]"#))
        try observer.observe(.fresh)
        let key = NotificationOutboxes.key(for: "prices")
        #expect(key == ".state/notify/prices.json")
        let first = try #require(observer.output.read(key))
        #expect(observer.output.object(key)?.durability == .durable)
        #expect(observer.output.object(key)?.cacheControl == "no-store")
        try observer.observe(.fresh)
        #expect(observer.output.read(key) == first)
        try observer.observe(.stale)
        let data = try #require(observer.output.read(key))
        let saved = try #require(NotificationOutbox(value: try JSONReader.read(data)))
        #expect(saved.pending.map(\.reason) == ["status fresh → stale"])
        #expect(saved.rules["notify-1"]?.seen == "stale")
        #expect(saved.lastStatus == "stale")
    }

    @Test func aChangeWhoseOutboxCannotBeSavedIsSeenAgain() throws {
        let folder = try TemporaryFolder()
        let definition = try Self.definition(#"[{"on": "status", \#(Self.webhook())}]"#)
        // `.state` is a file: no outbox can be written under it.
        try folder.write(".state", "not a folder")
        let outboxes = NotificationOutboxes(output: FolderOutput(folder: folder.url))
        #expect(throws: AtomicFileError.self) {
            try outboxes.observe(Self.snapshot(.fresh), definition: definition, history: [:], now: Self.start)
        }
        #expect(outboxes.outbox(for: "prices") == nil)
        // Once it can be saved, the first observation is made again, then the change.
        try FileManager.default.removeItem(at: folder.file(".state"))
        #expect(try outboxes.observe(Self.snapshot(.fresh), definition: definition, history: [:], now: Self.start).isEmpty)
        try FileManager.default.removeItem(at: folder.file(".state"))
        try folder.write(".state", "not a folder")
        #expect(throws: AtomicFileError.self) {
            try outboxes.observe(Self.snapshot(.stale), definition: definition, history: [:], now: Self.start)
        }
        try FileManager.default.removeItem(at: folder.file(".state"))
        let made = try outboxes.observe(Self.snapshot(.stale), definition: definition, history: [:], now: Self.start)
        #expect(made.map(\.reason) == ["status fresh → stale"])
        #expect(outboxes.summary(for: "prices")?.pending == 1)
    }

    @Test func aRuleWhoseTriggerChangedStartsAgain() throws {
        let observer = Observer(try Self.definition(#"[{"name": "w", "on": "change", "path": "$.a", \#(Self.webhook())}]"#))
        try observer.observe(.fresh, ["a": 1, "b": 1])
        let reloaded = Observer(try Self.definition(#"[{"name": "w", "on": "change", "path": "$.b", \#(Self.webhook())}]"#))
        let outboxes = NotificationOutboxes(output: observer.output)
        let made = try outboxes.observe(
            Self.snapshot(.fresh, ["a": 2, "b": 2]), definition: reloaded.definition, history: [:], now: Self.start.addingTimeInterval(3600)
        )
        #expect(made.isEmpty)
        #expect(outboxes.outbox(for: "prices")?.rules["w"] == NotificationOutbox.Memory(watches: "change $.b", seen: 2))
    }

    @Test func anOutboxKeepsTheNewestHundredAndCountsTheDropped() throws {
        let observer = Observer(try Self.definition(#"[{"on": "status", \#(Self.webhook())}]"#))
        try observer.observe(.fresh)
        for index in 0..<150 { try observer.observe(index.isMultiple(of: 2) ? .stale : .fresh) }
        let summary = try #require(observer.outboxes.summary(for: "prices"))
        #expect(summary.pending == 100)
        #expect(summary.dropped == 50)
        let due = observer.outboxes.due(at: .distantFuture)
        #expect(due.count == 100)
        // The oldest kept is the 51st made, at minute 52.
        #expect(due.first?.createdAt == Self.start.addingTimeInterval(52 * 60))
        #expect(Set(due.map(\.id)).count == 100)
        #expect(due.allSatisfy { $0.id.count == 32 && $0.id.allSatisfy(\.isHexDigit) })
        // The next one made drops one more, and says so, by rule.
        var told: [[String: Int]] = []
        try observer.outboxes.observe(
            Self.snapshot(.stale, [:]), definition: observer.definition, history: [:], now: Self.start.addingTimeInterval(86_400)
        ) { told.append($0) }
        #expect(told == [["notify-1": 1]])
    }

    @Test func anOutboxReadsBackAsItWasWritten() throws {
        var outbox = NotificationOutbox(widget: "prices")
        outbox.lastStatus = "stale"
        outbox.rules = [
            "a": .init(watches: "status", seen: "stale"), "b": .init(watches: "change $.x", seen: nil),
            "c": .init(watches: "change $.y", seen: ["n": .number(WidgetNumber("1.50")!)]),
        ]
        outbox.append(
            PendingNotification(
                id: "0123456789abcdef0123456789abcdef", widget: "prices", rule: "a", reason: "status fresh → stale",
                createdAt: Self.start, body: "{\"t\":1}", contentType: "application/json", attempts: 3,
                nextAttemptAt: Self.start.addingTimeInterval(90.5), lastError: "HTTP 503"))
        outbox.sent = 7
        outbox.failed = 2
        outbox.dropped = 1
        outbox.lastError = "HTTP 503"
        outbox.failingSince = Self.start
        let read = NotificationOutbox(value: try JSONReader.read(JSONWriter.data(outbox.value, style: .pretty)))
        #expect(read == outbox)
        #expect(NotificationOutbox(value: ["schemaVersion": 99, "widget": "prices"]) == nil)
    }

    // MARK: - The sender's queue

    @Test func theQueueRecordsDeliveriesFailuresAndGivingUp() throws {
        let observer = Observer(try Self.definition(#"[{"on": "status", \#(Self.webhook())}]"#))
        try observer.observe(.fresh)
        try observer.observe(.stale)
        try observer.observe(.fresh)
        let outboxes = observer.outboxes
        let now = Self.start.addingTimeInterval(3600)
        var due = outboxes.due(at: now)
        try #require(due.count == 2)
        #expect(outboxes.nextAttempt() == due[0].createdAt)

        outboxes.failed(due[0], error: "HTTP 503", retryAt: now.addingTimeInterval(30), at: now)
        #expect(outboxes.due(at: now).map(\.id) == [due[1].id])
        #expect(outboxes.nextAttempt() == due[1].createdAt)
        var summary = try #require(outboxes.summary(for: "prices"))
        #expect(summary.failingSince == now)
        #expect(summary.lastError == "HTTP 503")

        outboxes.delivered(due[1], at: now)
        #expect(outboxes.nextAttempt() == now.addingTimeInterval(30))
        summary = try #require(outboxes.summary(for: "prices"))
        #expect(summary.sent == 1)
        #expect(summary.failingSince == nil)
        #expect(summary.pending == 1)

        // Saved: a restarted daemon sees the same queue.
        observer.restart()
        due = observer.outboxes.due(at: now.addingTimeInterval(30))
        #expect(due.map(\.attempts) == [1])
        #expect(due.first?.lastError == "HTTP 503")
        observer.outboxes.failed(due[0], error: "HTTP 500", retryAt: nil, at: now.addingTimeInterval(30))
        summary = try #require(observer.outboxes.summary(for: "prices"))
        #expect(summary.pending == 0)
        #expect(summary.failed == 1)
        #expect(summary.sent == 1)
        #expect(observer.outboxes.nextAttempt() == nil)
    }

    @Test func aPostponedNotificationWaitsWithoutCountingAnAttemptOrAFailure() throws {
        let observer = Observer(try Self.definition(#"[{"on": "status", \#(Self.webhook())}]"#))
        try observer.observe(.fresh)
        try observer.observe(.stale)
        let now = Self.start.addingTimeInterval(3600)
        let due = try #require(observer.outboxes.due(at: now).first)
        observer.outboxes.postponed(due, until: now.addingTimeInterval(120), at: now)
        #expect(observer.outboxes.due(at: now).isEmpty)
        #expect(observer.outboxes.nextAttempt() == now.addingTimeInterval(120))
        let summary = try #require(observer.outboxes.summary(for: "prices"))
        #expect(summary.failingSince == nil)
        #expect(summary.lastError == nil)
        #expect(summary.failed == 0)

        // Saved: a restarted daemon waits for the same time, with no attempt counted.
        observer.restart()
        let waiting = try #require(observer.outboxes.due(at: now.addingTimeInterval(120)).first)
        #expect(waiting.id == due.id)
        #expect(waiting.attempts == 0)
        #expect(waiting.lastError == nil)
    }

    @Test func refreshesAndTheSenderMayUseTheOutboxesAtOnce() async throws {
        let output = MemoryOutput(localFolder: URL(fileURLWithPath: "/nonexistent-notify-test"))
        let outboxes = NotificationOutboxes(output: output)
        let template = try Self.definition(#"[{"on": "status", \#(Self.webhook())}]"#)
        let ids = (0..<20).map { "w\($0)" }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in ids {
                group.addTask {
                    var definition = template
                    definition.id = id
                    for (minute, status) in [Snapshot.Status.fresh, .stale, .fresh, .stale].enumerated() {
                        var snapshot = Self.snapshot(status, minute: minute)
                        snapshot.id = id
                        try outboxes.observe(
                            snapshot, definition: definition, history: [:], now: Self.start.addingTimeInterval(Double(minute)))
                    }
                }
            }
            // A sender delivering whatever is due while the refreshes go on.
            group.addTask {
                for _ in 0..<50 {
                    for notification in outboxes.due(at: .distantFuture) { outboxes.delivered(notification, at: Self.start) }
                    await Task.yield()
                }
            }
            try await group.waitForAll()
        }
        for notification in outboxes.due(at: .distantFuture) { outboxes.delivered(notification, at: Self.start) }
        // Three changes a widget (fresh → stale → fresh → stale), each delivered once, none lost.
        #expect(ids.map { outboxes.summary(for: $0)?.sent } == ids.map { _ in 3 })
        #expect(ids.map { outboxes.summary(for: $0)?.pending } == ids.map { _ in 0 })
        let restarted = NotificationOutboxes(output: output)
        #expect(ids.map { restarted.summary(for: $0)?.sent } == ids.map { _ in 3 })
    }

    @Test func theQueueFindsOutboxesSavedBeforeItStarted() throws {
        let observer = Observer(try Self.definition(#"[{"on": "status", \#(Self.webhook())}]"#))
        try observer.observe(.fresh)
        try observer.observe(.stale)
        observer.restart()
        #expect(observer.outboxes.widgetIDs() == ["prices"])
        #expect(observer.outboxes.due(at: .distantFuture).count == 1)
    }

    @Test func forgettingAWidgetRemovesItsOutbox() throws {
        let observer = Observer(try Self.definition(#"[{"on": "status", \#(Self.webhook())}]"#))
        try observer.observe(.fresh)
        observer.outboxes.forget("prices")
        #expect(observer.output.read(NotificationOutboxes.key(for: "prices")) == nil)
        #expect(observer.outboxes.summary(for: "prices") == nil)
    }

    @Test func aForgottenWidgetIsNotObservedUntilItIsLoadedAgain() throws {
        let observer = Observer(try Self.definition(#"[{"on": "status", \#(Self.webhook())}]"#))
        try observer.observe(.fresh)
        observer.outboxes.forget("prices")
        // A refresh abandoned by the reload that removed the widget, finishing late, recreates nothing.
        try observer.observe(.stale)
        #expect(observer.output.read(NotificationOutboxes.key(for: "prices")) == nil)
        #expect(observer.outboxes.summary(for: "prices") == nil)
        observer.outboxes.loaded(["prices"])
        try observer.observe(.fresh)
        #expect(observer.output.read(NotificationOutboxes.key(for: "prices")) != nil)
    }

    @Test func aWidgetWithoutRulesKeepsNoOutbox() throws {
        let observer = Observer(try TestWidgets.pipeline(#"{"id": "prices", "source": {"type": "memory", "key": "p"}}"#).definition)
        try observer.observe(.fresh)
        try observer.observe(.stale)
        #expect(observer.output.names(in: NotificationOutboxes.folder).isEmpty)
    }

    // MARK: - Dry run and requests

    @Test func aDryRunSaysWhatEachRuleWouldDoWithoutSaving() throws {
        let observer = Observer(
            try Self.definition(
                #"[{"name": "s", "on": "status", \#(Self.webhook())}, {"name": "c", "on": "condition", "if": "value.n > 1", \#(Self.webhook())}]"#
            ))
        var (decisions, saved) = observer.outboxes.dryRun(
            Self.snapshot(.fresh, ["n": 2]), definition: observer.definition, history: [:], now: Self.start)
        #expect(!saved)
        #expect(decisions.map(\.reason) == ["first observation: recorded the status fresh", "condition is true (first evaluation)"])
        #expect(decisions.map(\.fires) == [false, true])
        #expect(observer.output.names(in: NotificationOutboxes.folder).isEmpty)
        try observer.observe(.fresh, ["n": 0])
        (decisions, saved) = observer.outboxes.dryRun(
            Self.snapshot(.stale, ["n": 2]), definition: observer.definition, history: [:], now: Self.start)
        #expect(saved)
        #expect(decisions.map(\.reason) == ["status fresh → stale", "condition became true"])
        #expect(decisions.compactMap(\.notification?.body) == ["stale", "stale"])
        #expect(observer.outboxes.due(at: .distantFuture).isEmpty)
    }

    @Test func aRequestRendersItsAddressWithSecretsAndMasksThem() throws {
        let secrets = SecretStore(environment: [:], files: ["TOKEN": "tk/42 x"], folder: "/run/secrets")
        let reader = DefinitionReader(registry: TestWidgets.registry, defaultTimeZone: TestWidgets.utc, environment: secrets)
        let result = reader.read(
            Data(
                #"""
                {"id": "prices", "title": "Prices", "source": {"type": "memory", "key": "p"},
                 "notify": [{"name": "m", "on": "status", "webhook": {"method": "PUT",
                   "url": "https://matrix.example/_matrix/client/v3/rooms/r/send/m.room.message/{{ notification.id }}?t={{ secret.TOKEN | url_encode }}",
                   "headers": {"Authorization": "{{ 'Bearer ' | append: secret.TOKEN }}", "X-Widget": "{{ widget.title }}"},
                   "body": {"msgtype": "m.text", "body": "{{ status }}"}}}]}
                """#.utf8), file: "widgets.d/prices.json")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let definition = try #require(result.widgets.first).definition
        let notification = PendingNotification(
            id: "abc123", widget: "prices", rule: "m", reason: "status fresh → stale", createdAt: Self.start,
            body: #"{"msgtype":"m.text","body":"stale"}"#, contentType: "application/json")
        let request = try NotificationRequest(notification, rule: definition.notify[0], definition: definition, secrets: secrets)
        #expect(request.method == "PUT")
        #expect(request.url == "https://matrix.example/_matrix/client/v3/rooms/r/send/m.room.message/abc123?t=tk%2F42+x")
        #expect(request.headers.map(\.name) == ["Content-Type", "Authorization", "X-Widget"])
        #expect(request.headers.map(\.value) == ["application/json", "Bearer tk/42 x", "Prices"])
        #expect(request.headers.map(\.isSecret) == [false, true, false])
        #expect(request.body == notification.body)
        let masked = request.masked(definition, secrets: secrets)
        #expect(masked.url == "https://matrix.example/_matrix/client/v3/rooms/r/send/m.room.message/abc123?t=***")
        #expect(masked.headers[1].value == "Bearer ***")
    }
}
