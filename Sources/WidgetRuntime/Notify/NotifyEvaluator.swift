public import Foundation
public import WidgetCore
public import WidgetJSON
import WidgetLiquid

/// What one rule decided about one snapshot: whether it fires, why, and what it would send.
public struct NotifyDecision: Sendable, Hashable {
    /// The rule's name.
    public var rule: String
    /// Whether it fires.
    public var fires: Bool
    /// Why, for people: `status fresh → stale`, `status stale, as last seen`, `first observation: recorded
    /// $.price = 10`, `condition became true`, `condition is still true`.
    public var reason: String
    /// The notification it makes when it fires; `nil` otherwise.
    public var notification: PendingNotification?

    /// A decision of `rule`.
    public init(rule: String, fires: Bool, reason: String, notification: PendingNotification? = nil) {
        self.rule = rule
        self.fires = fires
        self.reason = reason
        self.notification = notification
    }
}

/// Evaluates a widget's `notify` rules against what they last saw: the one place that decides whether a
/// rule fires, used by the outboxes (which save what it returns) and by `preview --trace` (which does not).
///
/// The rules fire on edges:
/// - `on: status` fires when the served status differs from the one the rule last saw (and, with `to`,
///   is one of those); a status that flips back and forth fires each time.
/// - `on: change` fires when the value at `path` in the content of the current entry differs, as a JSON
///   value (`1.0` equals `1.00`), from the one last seen; a placeholder is not data and is not compared.
///   A path that selects one node watches its value; several, the list of them; none, "nothing".
/// - `on: condition` fires when the condition holds now and did not, or was never evaluated, before.
///
/// The first observation of a `status` or `change` rule only records what it sees (there is no previous
/// to compare with); so does the first after a reload that changed the rule's trigger. A snapshot whose
/// first refresh is under way (`refreshing`) is not observed.
public enum NotifyEvaluator {
    /// The content type of a text body.
    public static let textType = "text/plain; charset=utf-8"
    /// The content type of a JSON body.
    public static let jsonType = "application/json"

    /// The outbox after `definition`'s rules saw `snapshot`, and what each decided.
    ///
    /// The notifications of the rules that fire are appended to the outbox (at most
    /// ``NotificationOutbox/maximumPending`` wait); the memories of rules no longer in the definition
    /// are forgotten.
    ///
    /// - Parameters:
    ///   - outbox: the widget's outbox as saved.
    ///   - snapshot: what the widget serves now.
    ///   - definition: the widget's definition, with its rules.
    ///   - history: what templates see as `history` (`{}` without a `history` block).
    ///   - now: the moment of the observation.
    ///   - makeID: a new notification's id.
    public static func evaluate(
        _ outbox: NotificationOutbox, snapshot: Snapshot, definition: WidgetDefinition, history: WidgetValue, now: Date,
        makeID: () -> String = NotifyEvaluator.newID
    ) -> (outbox: NotificationOutbox, decisions: [NotifyDecision]) {
        var outbox = outbox
        guard snapshot.status != .refreshing else {
            return (outbox, definition.notify.map { NotifyDecision(rule: $0.name, fires: false, reason: "the first refresh is under way") })
        }
        let entry = snapshot.entries.isEmpty ? nil : snapshot.entries[GalleryCard.currentIndex(of: snapshot.entries, at: now)]
        let status = snapshot.status.rawValue
        var base = Scope(
            definition: definition, snapshot: snapshot, entry: entry, previousStatus: outbox.lastStatus, history: history, now: now)
        var decisions: [NotifyDecision] = []
        var memories: [String: NotificationOutbox.Memory] = [:]
        for rule in definition.notify {
            let watches = rule.trigger.watched
            let memory = outbox.rules[rule.name].flatMap { $0.watches == watches ? $0 : nil }
            var observation = observe(rule, memory: memory, status: status, entry: entry, scope: &base)
            if observation.fires {
                let id = makeID()
                let change: WidgetValue = .object([
                    "rule": .string(rule.name), "on": .string(rule.trigger.kind),
                    "path": observation.path.map(WidgetValue.string) ?? .null,
                    "from": observation.from ?? .null, "to": observation.to ?? .null, "reason": .string(observation.reason),
                ])
                let (body, contentType) = render(rule, scope: base.values(change: change), definition: definition, now: now)
                let notification = PendingNotification(
                    id: id, widget: definition.id, rule: rule.name, reason: observation.reason, createdAt: now, body: body,
                    contentType: contentType)
                observation.decision.notification = notification
                outbox.append(notification)
            }
            decisions.append(observation.decision)
            if let seen = observation.memory { memories[rule.name] = seen }
        }
        outbox.rules = memories
        outbox.lastStatus = status
        return (outbox, decisions)
    }

    /// A new notification's id: 128 random bits, in hexadecimal.
    public static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return [generator.next(), generator.next()].map { (word: UInt64) in
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    // MARK: - One rule

    /// What one rule made of the snapshot.
    private struct Observation {
        var decision: NotifyDecision
        /// What it remembers now; `nil` for nothing (a rule that has not observed yet).
        var memory: NotificationOutbox.Memory?
        var path: String?
        var from: WidgetValue?
        var to: WidgetValue?
        var fires: Bool { decision.fires }
        var reason: String { decision.reason }
    }

    private static func observe(
        _ rule: NotifyRule, memory: NotificationOutbox.Memory?, status: String, entry: TimelineEntry?, scope: inout Scope
    ) -> Observation {
        let watches = rule.trigger.watched
        /// A decision that remembers `seen` (what it saw), or `remember` when given (`.some(nil)`: nothing).
        func result(_ fires: Bool, _ reason: String, seen: WidgetValue?) -> Observation {
            Observation(
                decision: NotifyDecision(rule: rule.name, fires: fires, reason: reason),
                memory: NotificationOutbox.Memory(watches: watches, seen: seen))
        }
        func unchanged(_ reason: String) -> Observation {
            Observation(decision: NotifyDecision(rule: rule.name, fires: false, reason: reason), memory: memory)
        }
        switch rule.trigger {
        case .status(let targets):
            guard let memory else { return result(false, "first observation: recorded the status \(status)", seen: .string(status)) }
            let previous = memory.seen?.string ?? "none"
            guard previous != status else { return result(false, "status \(status), as last seen", seen: .string(status)) }
            var observation: Observation
            if !targets.isEmpty, !targets.contains(status) {
                observation = result(
                    false, "status \(previous) → \(status), not to \(targets.joined(separator: " or "))", seen: .string(status))
            } else {
                observation = result(true, "status \(previous) → \(status)", seen: .string(status))
            }
            observation.from = memory.seen
            observation.to = .string(status)
            return observation
        case .change(let path):
            guard scope.hasData, let entry else {
                // A placeholder is not data: what the rule saw stays for the data that comes.
                return unchanged("no data to compare (\(status))")
            }
            let nodes = path.select(entry.content)
            // Not `nil` in a conditional with values: that would be `WidgetValue.null`, a value.
            let seen: WidgetValue? = nodes.isEmpty ? Optional.none : nodes.count == 1 ? nodes[0] : .array(nodes)
            let shown = seen.map(Self.shown) ?? "nothing"
            guard let memory else { return result(false, "first observation: recorded \(path.text) = \(shown)", seen: seen) }
            guard memory.seen != seen else { return result(false, "\(path.text) = \(shown), as last seen", seen: seen) }
            var observation = result(true, "\(path.text) changed \(memory.seen.map(Self.shown) ?? "nothing") → \(shown)", seen: seen)
            observation.path = path.text
            observation.from = memory.seen
            observation.to = seen
            return observation
        case .condition(let template):
            let holds: Bool
            do {
                holds = try template.test(scope.scope(change: .null))
            } catch {
                // Neither true nor false: what the rule saw stays.
                return unchanged("the condition could not be evaluated: \(error)")
            }
            let before = memory?.seen?.bool
            var observation: Observation
            switch (holds, before) {
            case (true, true?): observation = result(false, "condition is still true", seen: true)
            case (true, _):
                observation = result(true, before == nil ? "condition is true (first evaluation)" : "condition became true", seen: true)
            case (false, _): observation = result(false, "condition is false", seen: false)
            }
            observation.from = before.map(WidgetValue.bool) ?? .null
            observation.to = .bool(holds)
            return observation
        }
    }

    /// A value as a reason shows it: a string as itself, anything else as compact JSON, cut at 80 characters.
    private static func shown(_ value: WidgetValue) -> String {
        let text = value.string ?? JSONWriter.string(value)
        return text.count > 80 ? String(text.prefix(79)) + "…" : text
    }

    // MARK: - Rendering

    /// What a body and a condition see: the same for every rule of one observation but `change`.
    private struct Scope {
        var globals: WidgetObject
        var timeZone: TimeZone
        var now: Date
        var stepLimit: Int
        var hasData: Bool

        init(
            definition: WidgetDefinition, snapshot: Snapshot, entry: TimelineEntry?, previousStatus: String?, history: WidgetValue,
            now: Date
        ) {
            globals = [
                "widget": NotifyEvaluator.widgetValue(definition, title: definition.title ?? snapshot.title),
                "params": .object(definition.params),
                "status": .string(snapshot.status.rawValue),
                "previousStatus": previousStatus.map(WidgetValue.string) ?? .null,
                "error": snapshot.error.map(WidgetValue.string) ?? .null,
                "entry": entry.map { .object(["date": .string(Timestamp.string($0.date)), "content": $0.content]) } ?? .null,
                "value": entry?.content ?? .null,
                "history": history,
                "now": .string(Timestamp.string(now)),
            ]
            timeZone = definition.timeZone
            self.now = now
            stepLimit = definition.templateStepLimit
            hasData = snapshot.status != .placeholder && snapshot.status != .refreshing
        }

        func values(change: WidgetValue) -> WidgetObject {
            var globals = globals
            globals["change"] = change
            return globals
        }

        func scope(change: WidgetValue) -> TemplateScope {
            NotifyEvaluator.scope(values(change: change), timeZone: timeZone, now: now, stepLimit: stepLimit)
        }
    }

    /// The `widget` templates see: `{"id", "title", "timeZone"}`, without `title` when there is none.
    static func widgetValue(_ definition: WidgetDefinition, title: String?) -> WidgetValue {
        var widget: WidgetObject = ["id": .string(definition.id), "timeZone": .string(definition.timeZone.identifier)]
        if let title { widget["title"] = .string(title) }
        return .object(widget)
    }

    /// A scope of `globals`, bounded in bytes and steps.
    static func scope(_ globals: WidgetObject, timeZone: TimeZone, now: Date, stepLimit: Int) -> TemplateScope {
        var scope = TemplateScope(globals: globals, now: now, timeZone: timeZone)
        scope.budget = RenderBudget()
        scope.steps = TemplateSteps(limit: stepLimit, for: "a notification")
        return scope
    }

    /// The most bytes of a rendered body (UTF-8): an outbox holds at most
    /// `NotificationOutbox.maximumPending` bodies, so it stays small.
    public static let maximumBodyBytes = 64 * 1024

    /// The body of `rule` rendered with `globals`, and its content type. A body that cannot be rendered,
    /// or that is longer than ``maximumBodyBytes``, still makes a notification (a change is never lost):
    /// a text that says what happened and why the body failed.
    private static func render(_ rule: NotifyRule, scope globals: WidgetObject, definition: WidgetDefinition, now: Date) -> (String, String)
    {
        let scope = scope(globals, timeZone: definition.timeZone, now: now, stepLimit: definition.templateStepLimit)
        let reason = globals["change"]?["reason"]?.string ?? ""
        let rendered: (String, String)
        do {
            switch rule.webhook.body {
            case .text(let template):
                rendered = (try template.renderString(scope), textType)
            case .json(let tree):
                rendered = (JSONWriter.string(try tree.render(scope)), jsonType)
            }
        } catch {
            return ("\(definition.id): \(rule.name): \(reason) (the body could not be rendered: \(error))", textType)
        }
        let bytes = rendered.0.utf8.count
        guard bytes <= maximumBodyBytes else {
            return (
                "\(definition.id): \(rule.name): \(reason) (the body could not be rendered: it is \(bytes) bytes long, "
                    + "past the limit of \(maximumBodyBytes) bytes; shorten the body template)", textType
            )
        }
        return rendered
    }
}
