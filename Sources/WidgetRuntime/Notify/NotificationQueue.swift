public import Foundation

/// A notification a rule made, waiting to be delivered: what is kept of it in the widget's outbox.
///
/// Its body is rendered when the rule fires and holds no secret; the address and the headers, which may,
/// are rendered from the rule when it is sent.
public struct PendingNotification: Sendable, Hashable {
    /// A unique id, sent as the `Idempotency-Key` header so that a receiver can drop a repeat.
    public var id: String
    /// The widget it is about.
    public var widget: String
    /// The name of the rule that made it.
    public var rule: String
    /// Why it fired, for people: `status fresh → stale`, `$.price changed 10 → 12`, `condition became true`.
    public var reason: String
    /// When the rule fired.
    public var createdAt: Date
    /// The rendered body.
    public var body: String
    /// The body's media type.
    public var contentType: String
    /// Attempts made so far.
    public var attempts: Int
    /// The earliest time of the next attempt; `nil` for at once.
    public var nextAttemptAt: Date?
    /// Why the last attempt failed.
    public var lastError: String?

    /// A notification not yet tried.
    public init(
        id: String, widget: String, rule: String, reason: String, createdAt: Date, body: String, contentType: String,
        attempts: Int = 0, nextAttemptAt: Date? = nil, lastError: String? = nil
    ) {
        self.id = id
        self.widget = widget
        self.rule = rule
        self.reason = reason
        self.createdAt = createdAt
        self.body = body
        self.contentType = contentType
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
    }
}

/// Where the sender takes notifications from and reports what became of them: the widgets' outboxes,
/// kept in the output's state, each change saved before the call returns.
public protocol NotificationQueue: Sendable {
    /// The notifications whose next attempt is due at `now`, oldest first.
    func due(at now: Date) -> [PendingNotification]
    /// The earliest next attempt of any pending notification; `nil` when none is pending.
    func nextAttempt() -> Date?
    /// `notification` was delivered: it leaves the outbox.
    func delivered(_ notification: PendingNotification, at now: Date)
    /// An attempt at `notification` failed with `error`: it is tried again at `retryAt`, or given up
    /// (and counted as failed) when `retryAt` is `nil`.
    func failed(_ notification: PendingNotification, error: String, retryAt: Date?, at now: Date)
    /// `notification` was dropped unsent because `reason` (its rule is gone from its widget): it leaves
    /// the outbox, counted as dropped, without marking the target as failing.
    func dropped(_ notification: PendingNotification, reason: String, at now: Date)
    /// `notification` was not attempted, because its receiver failed earlier in the same pass: it waits
    /// until `until` (the receiver's retry time), its attempts, its error and the widget's failing state as
    /// they were.
    func postponed(_ notification: PendingNotification, until: Date, at now: Date)
}
