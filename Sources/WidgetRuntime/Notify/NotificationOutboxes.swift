public import Foundation
import Synchronization
public import WidgetCore
public import WidgetJSON

/// Every widget's outbox (``NotificationOutbox``), kept in the output's state at
/// `.state/notify/<id>.json` and shared by the daemon's refreshes, which add to them
/// (``observe(_:definition:history:now:)``), and its sender, which drains them (``NotificationQueue``).
///
/// Each change is saved, through the output, before the call that made it returns: an outbox read back
/// after a crash holds every notification made and not yet delivered, and what every rule last saw.
/// Reads and writes of one store go through one lock, so a refresh and the sender never lose each
/// other's changes.
///
/// ```swift
/// let made = try store.notifications.observe(snapshot, definition: definition, history: [:], now: now)
/// for notification in store.notifications.due(at: now) { … }
/// ```
public final class NotificationOutboxes: NotificationQueue, Sendable {
    /// Where the outboxes are kept.
    let output: any WidgetOutput
    /// The outboxes read or written so far, by widget id; `loadedAll` once every saved one was read.
    private let state = Mutex<(outboxes: [String: NotificationOutbox], loadedAll: Bool)>(([:], false))

    /// The outboxes kept in `output`; nothing is read until asked.
    public init(output: any WidgetOutput) {
        self.output = output
    }

    /// The folder of the outboxes: `.state/notify`.
    public static let folder = ".state/notify"

    /// `.state/notify/<id>.json`: the widget's outbox.
    public static func key(for id: String) -> String { "\(folder)/\(id).json" }

    // MARK: - Observing

    /// Evaluates `definition`'s rules against `snapshot` (see ``NotifyEvaluator``), adds the
    /// notifications of those that fire to the widget's outbox, and saves it (flushed) when anything
    /// changed, before returning: call it before the snapshot is written.
    ///
    /// - Parameters:
    ///   - snapshot: what the widget serves now.
    ///   - definition: the widget's definition, with its rules; one without rules is not observed (its
    ///     outbox, if it had rules before, keeps its pending notifications for the sender).
    ///   - history: what templates see as `history` (`{}` without a `history` block).
    ///   - now: the moment of the observation.
    /// One widget is observed by one caller at a time, as its refreshes are; different widgets, and the
    /// sender, may call at the same time.
    ///
    /// - Returns: The notifications made, oldest first (also in the outbox, for ``due(at:)``).
    /// - Throws: ``AtomicFileError`` when the outbox cannot be saved; nothing changed then, and the
    ///   next observation sees what this one saw again.
    @discardableResult
    public func observe(_ snapshot: Snapshot, definition: WidgetDefinition, history: WidgetValue, now: Date) throws(AtomicFileError)
        -> [PendingNotification]
    {
        let id = definition.id
        // A widget without rules is not observed: what its outbox still holds is the sender's.
        guard !definition.notify.isEmpty else { return [] }
        let seen = state.withLock { outbox(id, in: &$0.outboxes) } ?? NotificationOutbox(widget: id)
        // Evaluated outside the lock: a slow body template never holds up the sender or another widget.
        let (evaluated, decisions) = NotifyEvaluator.evaluate(seen, snapshot: snapshot, definition: definition, history: history, now: now)
        let made = decisions.compactMap(\.notification)
        return try state.withLock { state throws(AtomicFileError) -> [PendingNotification] in
            // The sender may have delivered some meanwhile: apply this observation to the outbox as it is now.
            let current = outbox(id, in: &state.outboxes) ?? NotificationOutbox(widget: id)
            var after = current
            after.rules = evaluated.rules
            after.lastStatus = evaluated.lastStatus
            for notification in made { after.append(notification) }
            if after != current {
                try save(after)
                state.outboxes[id] = after
            }
            return made
        }
    }

    /// What each of `definition`'s rules would decide about `snapshot`, compared with the saved outbox,
    /// without saving anything: `preview --trace`'s dry run.
    ///
    /// - Returns: The decisions, in the order of the rules, and whether an outbox was saved (without
    ///   one, every rule observes for the first time).
    public func dryRun(_ snapshot: Snapshot, definition: WidgetDefinition, history: WidgetValue, now: Date) -> (
        decisions: [NotifyDecision], hasSavedOutbox: Bool
    ) {
        let saved = state.withLock { outbox(definition.id, in: &$0.outboxes) }
        let (_, decisions) = NotifyEvaluator.evaluate(
            saved ?? NotificationOutbox(widget: definition.id), snapshot: snapshot, definition: definition, history: history, now: now)
        return (decisions, saved != nil)
    }

    // MARK: - Reading

    /// The widget's outbox as saved; `nil` when it has none.
    public func outbox(for id: String) -> NotificationOutbox? {
        state.withLock { outbox(id, in: &$0.outboxes) }
    }

    /// What `status` and the metrics show of the widget's outbox; `nil` when it has none.
    public func summary(for id: String) -> NotificationSummary? {
        outbox(for: id).map(NotificationSummary.init)
    }

    /// The ids of the widgets with an outbox, sorted.
    public func widgetIDs() -> [String] {
        state.withLock { state in
            loadAll(&state)
            return state.outboxes.keys.sorted()
        }
    }

    /// Removes the outbox of a widget that is no longer defined: what it waited to send is dropped.
    public func forget(_ id: String) {
        state.withLock { state in
            output.remove(Self.key(for: id))
            state.outboxes[id] = nil
        }
    }

    // MARK: - NotificationQueue

    /// The notifications whose next attempt is due at `now`, oldest first, from every widget's outbox.
    public func due(at now: Date) -> [PendingNotification] {
        state.withLock { state in
            loadAll(&state)
            return state.outboxes.values.flatMap(\.pending).filter { ($0.nextAttemptAt ?? .distantPast) <= now }
                .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        }
    }

    /// The earliest next attempt of any pending notification (its creation for one not tried yet);
    /// `nil` when none is pending.
    public func nextAttempt() -> Date? {
        state.withLock { state in
            loadAll(&state)
            return state.outboxes.values.flatMap(\.pending).map { $0.nextAttemptAt ?? $0.createdAt }.min()
        }
    }

    /// `notification` was delivered: it leaves its outbox, counted as sent, and the target is no longer
    /// failing. Saved before returning (a failed save is retried with the outbox's next change).
    public func delivered(_ notification: PendingNotification, at now: Date) {
        update(notification.widget) { outbox in
            guard let index = outbox.pending.firstIndex(where: { $0.id == notification.id }) else { return }
            outbox.pending.remove(at: index)
            outbox.sent += 1
            outbox.failingSince = nil
        }
    }

    /// An attempt at `notification` failed with `error`: the outbox counts the attempt and keeps it until
    /// `retryAt`, or gives it up (counted as failed) when `retryAt` is `nil`. The target is failing since
    /// the first failure after a success. Saved before returning. Pass the notification as ``due(at:)``
    /// gave it: its attempts are counted here.
    public func failed(_ notification: PendingNotification, error: String, retryAt: Date?, at now: Date) {
        update(notification.widget) { outbox in
            guard let index = outbox.pending.firstIndex(where: { $0.id == notification.id }) else { return }
            outbox.lastError = error
            outbox.failingSince = outbox.failingSince ?? now
            guard let retryAt else {
                outbox.pending.remove(at: index)
                outbox.failed += 1
                return
            }
            outbox.pending[index].attempts += 1
            outbox.pending[index].nextAttemptAt = retryAt
            outbox.pending[index].lastError = error
        }
    }

    // MARK: - Storage

    /// Changes the widget's outbox with `change` and saves it when it changed.
    private func update(_ id: String, _ change: (inout NotificationOutbox) -> Void) {
        state.withLock { state in
            guard let before = outbox(id, in: &state.outboxes) else { return }
            var after = before
            change(&after)
            guard after != before else { return }
            // Kept in memory even when the save fails: the next change saves it with the rest.
            state.outboxes[id] = after
            try? save(after)
        }
    }

    /// The outbox of `id` from `outboxes`, read from the output the first time.
    private func outbox(_ id: String, in outboxes: inout [String: NotificationOutbox]) -> NotificationOutbox? {
        if let known = outboxes[id] { return known }
        guard let data = output.read(Self.key(for: id)), let value = try? JSONReader.read(data, maximumDepth: JSONReader.savedFileDepth),
            let outbox = NotificationOutbox(value: value), outbox.widget == id
        else { return nil }
        outboxes[id] = outbox
        return outbox
    }

    /// Reads every saved outbox not read yet, once.
    private func loadAll(_ state: inout (outboxes: [String: NotificationOutbox], loadedAll: Bool)) {
        guard !state.loadedAll else { return }
        state.loadedAll = true
        for name in output.names(in: Self.folder) where name.hasSuffix(".json") && !name.hasPrefix(".") {
            _ = outbox(String(name.dropLast(5)), in: &state.outboxes)
        }
    }

    private func save(_ outbox: NotificationOutbox) throws(AtomicFileError) {
        let data = JSONWriter.data(outbox.value, style: .pretty) + Data([0x0A])
        try output.write(data, to: Self.key(for: outbox.widget), as: .state)
    }
}

/// What `status` and the metrics show of one widget's outbox.
public struct NotificationSummary: Sendable, Hashable {
    /// Notifications waiting to be sent.
    public var pending: Int
    /// Notifications delivered.
    public var sent: Int
    /// Notifications given up on.
    public var failed: Int
    /// Notifications dropped unsent (the outbox was full).
    public var dropped: Int
    /// Why the last failed attempt failed.
    public var lastError: String?
    /// Since when the target fails; `nil` while it answers.
    public var failingSince: Date?
    /// When the oldest waiting notification was made; `nil` when none waits.
    public var oldestPending: Date?

    /// The summary of `outbox`.
    public init(_ outbox: NotificationOutbox) {
        pending = outbox.pending.count
        sent = outbox.sent
        failed = outbox.failed
        dropped = outbox.dropped
        lastError = outbox.lastError
        failingSince = outbox.failingSince
        oldestPending = outbox.pending.map(\.createdAt).min()
    }
}
