public import Foundation
public import WidgetJSON

/// One widget's outbox, `.state/notify/<id>.json`: what each of its rules last saw, the notifications
/// waiting to be sent, and what became of those sent.
///
/// ```json
/// {"schemaVersion": 1, "widget": "prices", "lastStatus": "fresh",
///  "rules": {"down": {"watches": "status", "seen": "fresh"}},
///  "pending": [{"id": "…", "rule": "down", "reason": "status fresh → stale", "createdAt": "…",
///               "body": "…", "contentType": "text/plain; charset=utf-8", "attempts": 0}],
///  "sent": 12, "failed": 0, "dropped": 0, "lastError": null, "failingSince": null}
/// ```
///
/// It is saved before the snapshot it was observed with, so a change whose snapshot was written is never
/// lost, and one recorded is never detected again.
public struct NotificationOutbox: Sendable, Hashable {
    /// The version of this format.
    public static let schemaVersion = 1
    /// The most notifications an outbox keeps waiting: past it the oldest is dropped (and counted).
    public static let maximumPending = 100

    /// What one rule last saw.
    public struct Memory: Sendable, Hashable {
        /// What the rule watched when it saw it (`NotifyRule.Trigger.watched`): a rule whose trigger
        /// changed starts again.
        public var watches: String
        /// What it saw: the status, the value at the path (`nil` when the path selected nothing), or
        /// whether the condition held.
        public var seen: WidgetValue?

        /// A memory of `seen`, seen while watching `watches`.
        public init(watches: String, seen: WidgetValue?) {
            self.watches = watches
            self.seen = seen
        }
    }

    /// The widget's id.
    public var widget: String
    /// The status the last observed snapshot had (a body's `previousStatus`); `nil` before the first.
    public var lastStatus: String?
    /// What each rule last saw, by the rule's name.
    public var rules: [String: Memory] = [:]
    /// The notifications waiting to be sent, oldest first.
    public var pending: [PendingNotification] = []
    /// Notifications delivered.
    public var sent = 0
    /// Notifications given up on (after a day of failed attempts).
    public var failed = 0
    /// Notifications dropped unsent because ``maximumPending`` were already waiting.
    public var dropped = 0
    /// Why the last failed attempt failed; kept after a later success, for `status`.
    public var lastError: String?
    /// Since when attempts fail without a success in between; `nil` while the target answers.
    public var failingSince: Date?

    /// An empty outbox of `widget`.
    public init(widget: String) {
        self.widget = widget
    }

    /// Adds `notification`, dropping (and counting) the oldest waiting ones past ``maximumPending``.
    public mutating func append(_ notification: PendingNotification) {
        pending.append(notification)
        if pending.count > Self.maximumPending {
            let excess = pending.count - Self.maximumPending
            pending.removeFirst(excess)
            dropped += excess
        }
    }

    // MARK: - JSON

    /// The outbox as its file holds it.
    public var value: WidgetValue {
        var memories = WidgetObject()
        for name in rules.keys.sorted() {
            guard let memory = rules[name] else { continue }
            var object: WidgetObject = ["watches": .string(memory.watches)]
            if let seen = memory.seen { object["seen"] = seen }
            memories[name] = .object(object)
        }
        return .object([
            "schemaVersion": .number(WidgetNumber(Self.schemaVersion)),
            "widget": .string(widget),
            "lastStatus": lastStatus.map(WidgetValue.string) ?? .null,
            "rules": .object(memories),
            "pending": .array(pending.map(Self.value(of:))),
            "sent": .number(WidgetNumber(sent)),
            "failed": .number(WidgetNumber(failed)),
            "dropped": .number(WidgetNumber(dropped)),
            "lastError": lastError.map(WidgetValue.string) ?? .null,
            "failingSince": failingSince.map { .string(Timestamp.string($0)) } ?? .null,
        ])
    }

    /// Reads an outbox file's JSON; `nil` when it is not an outbox of a version this one reads.
    public init?(value: WidgetValue) {
        guard value["schemaVersion"]?.number?.int == Self.schemaVersion, let widget = value["widget"]?.string else { return nil }
        self.widget = widget
        lastStatus = value["lastStatus"]?.string
        for (name, memory) in value["rules"]?.object ?? [:] {
            guard let watches = memory["watches"]?.string else { continue }
            rules[name] = Memory(watches: watches, seen: memory["seen"])
        }
        pending = (value["pending"]?.array ?? []).compactMap { Self.notification(from: $0, widget: widget) }
        sent = value["sent"]?.number?.int ?? 0
        failed = value["failed"]?.number?.int ?? 0
        dropped = value["dropped"]?.number?.int ?? 0
        lastError = value["lastError"]?.string
        failingSince = value["failingSince"]?.string.flatMap(Timestamp.date)
    }

    private static func value(of notification: PendingNotification) -> WidgetValue {
        var object: WidgetObject = [
            "id": .string(notification.id),
            "rule": .string(notification.rule),
            "reason": .string(notification.reason),
            "createdAt": .string(Timestamp.milliseconds(notification.createdAt)),
            "body": .string(notification.body),
            "contentType": .string(notification.contentType),
            "attempts": .number(WidgetNumber(notification.attempts)),
        ]
        if let next = notification.nextAttemptAt { object["nextAttemptAt"] = .string(Timestamp.milliseconds(next)) }
        if let error = notification.lastError { object["lastError"] = .string(error) }
        return .object(object)
    }

    private static func notification(from value: WidgetValue, widget: String) -> PendingNotification? {
        guard let id = value["id"]?.string, let rule = value["rule"]?.string,
            let created = value["createdAt"]?.string.flatMap(Timestamp.date), let body = value["body"]?.string
        else { return nil }
        return PendingNotification(
            id: id, widget: widget, rule: rule, reason: value["reason"]?.string ?? "", createdAt: created, body: body,
            contentType: value["contentType"]?.string ?? NotifyEvaluator.textType, attempts: value["attempts"]?.number?.int ?? 0,
            nextAttemptAt: value["nextAttemptAt"]?.string.flatMap(Timestamp.date), lastError: value["lastError"]?.string)
    }
}
