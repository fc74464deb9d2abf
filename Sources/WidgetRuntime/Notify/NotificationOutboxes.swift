public import Foundation
import Synchronization
public import WidgetCore
public import WidgetJSON

/// Every widget's outbox (``NotificationOutbox``), kept in the output's state at
/// `.state/notify/<id>.json` and shared by the daemon's refreshes, which add to them
/// (``observe(_:definition:history:now:dropped:)``), and its sender, which drains them (``NotificationQueue``).
///
/// Each change is saved, through the output, before the call that made it returns: an outbox read back
/// after a crash holds every notification made and not yet delivered, and what every rule last saw.
/// Each widget's outbox has its own lock, held while it is read or saved, so a refresh and the sender
/// never lose each other's changes, and a slow save of one widget's outbox holds up no other widget.
/// Calls read and write the output: make them from a thread that may block on the disk.
///
/// ```swift
/// let made = try store.notifications.observe(snapshot, definition: definition, history: [:], now: now)
/// for notification in store.notifications.due(at: now) { … }
/// ```
public final class NotificationOutboxes: NotificationQueue, Sendable {
    /// Where the outboxes are kept.
    let output: any WidgetOutput
    /// One widget's outbox, with its lock: `loaded` once it was read from the output (`outbox` is `nil`
    /// when there was none).
    private final class Entry: Sendable {
        let state = Mutex<(loaded: Bool, outbox: NotificationOutbox?)>((false, nil))
    }

    /// The widgets' entries, by id; `loadedAll` once every saved outbox has an entry; `forgotten`, the
    /// widgets forgotten and not loaded since, which are not observed.
    private let index = Mutex<(entries: [String: Entry], loadedAll: Bool, forgotten: Set<String>)>(([:], false, []))

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
    ///   - dropped: Told, after the save, how many waiting notifications of each rule were dropped to make
    ///     room (the outbox was full), when any were.
    ///
    /// One widget is observed by one caller at a time, as its refreshes are; different widgets, and the
    /// sender, may call at the same time.
    ///
    /// - Returns: The notifications made, oldest first (also in the outbox, for ``due(at:)``).
    /// - Throws: ``AtomicFileError`` when the outbox cannot be saved; nothing changed then, and the
    ///   next observation sees what this one saw again.
    @discardableResult
    public func observe(
        _ snapshot: Snapshot, definition: WidgetDefinition, history: WidgetValue, now: Date,
        dropped: ((_ countsByRule: [String: Int]) -> Void)? = nil
    ) throws(AtomicFileError) -> [PendingNotification] {
        let id = definition.id
        // A widget without rules is not observed: what its outbox still holds is the sender's.
        guard !definition.notify.isEmpty, !isForgotten(id) else { return [] }
        let entry = entry(id)
        let seen = read(entry, id) ?? NotificationOutbox(widget: id)
        // Evaluated outside the lock: a slow body template never holds up the sender.
        let (evaluated, decisions) = NotifyEvaluator.evaluate(seen, snapshot: snapshot, definition: definition, history: history, now: now)
        let made = decisions.compactMap(\.notification)
        return try entry.state.withLock { state throws(AtomicFileError) -> [PendingNotification] in
            // A refresh abandoned by a reload that removed the widget saves nothing after `forget`.
            guard !isForgotten(id) else { return [] }
            // The sender may have delivered some meanwhile: apply this observation to the outbox as it is now.
            let current = load(&state, id) ?? NotificationOutbox(widget: id)
            var after = current
            after.rules = evaluated.rules
            after.lastStatus = evaluated.lastStatus
            for notification in made { after.append(notification) }
            if after != current {
                try save(after)
                state.outbox = after
            }
            if after.dropped > current.dropped, let dropped {
                let kept = Set(after.pending.map(\.id))
                var counts: [String: Int] = [:]
                for notification in current.pending + made where !kept.contains(notification.id) {
                    counts[notification.rule, default: 0] += 1
                }
                dropped(counts)
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
        let saved = outbox(for: definition.id)
        return (Self.decisions(comparedWith: saved, snapshot: snapshot, definition: definition, history: history, now: now), saved != nil)
    }

    /// What each of `definition`'s rules would decide about `snapshot`, compared with `saved`, or with
    /// nothing (every rule observing for the first time) when it is `nil`.
    public static func decisions(
        comparedWith saved: NotificationOutbox?, snapshot: Snapshot, definition: WidgetDefinition, history: WidgetValue, now: Date
    ) -> [NotifyDecision] {
        NotifyEvaluator.evaluate(
            saved ?? NotificationOutbox(widget: definition.id), snapshot: snapshot, definition: definition, history: history, now: now
        ).decisions
    }

    // MARK: - Reading

    /// The widget's outbox as saved; `nil` when it has none.
    public func outbox(for id: String) -> NotificationOutbox? {
        read(entry(id), id)
    }

    /// What `status` and the metrics show of the widget's outbox; `nil` when it has none.
    public func summary(for id: String) -> NotificationSummary? {
        outbox(for: id).map(NotificationSummary.init)
    }

    /// The ids of the widgets with an outbox, sorted.
    public func widgetIDs() -> [String] {
        allEntries().filter { read($0.entry, $0.id) != nil }.map(\.id).sorted()
    }

    /// Removes the outbox of a widget that is no longer defined: what it waited to send is dropped. The
    /// widget is not observed again (a refresh abandoned by the reload, finishing late) until
    /// ``loaded(_:)`` names it.
    public func forget(_ id: String) {
        index.withLock { _ = $0.forgotten.insert(id) }
        entry(id).state.withLock { state in
            output.remove(Self.key(for: id))
            state = (true, nil)
        }
    }

    /// Tells the outboxes which widgets are loaded now: those forgotten before are observed again.
    public func loaded(_ ids: some Sequence<String>) {
        index.withLock { $0.forgotten.subtract(ids) }
    }

    // MARK: - NotificationQueue

    /// The notifications whose next attempt is due at `now`, oldest first, from every widget's outbox.
    public func due(at now: Date) -> [PendingNotification] {
        allEntries().compactMap { read($0.entry, $0.id) }.flatMap(\.pending).filter { ($0.nextAttemptAt ?? .distantPast) <= now }
            .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// The earliest next attempt of any pending notification (its creation for one not tried yet);
    /// `nil` when none is pending.
    public func nextAttempt() -> Date? {
        allEntries().compactMap { read($0.entry, $0.id) }.flatMap(\.pending).map { $0.nextAttemptAt ?? $0.createdAt }.min()
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

    /// `notification` was not attempted because its receiver failed earlier in the same pass: it waits
    /// until `until`, nothing else of it or of the outbox changed. Saved before returning.
    public func postponed(_ notification: PendingNotification, until: Date, at now: Date) {
        update(notification.widget) { outbox in
            guard let index = outbox.pending.firstIndex(where: { $0.id == notification.id }) else { return }
            outbox.pending[index].nextAttemptAt = max(outbox.pending[index].nextAttemptAt ?? until, until)
        }
    }

    /// `notification` was dropped unsent because `reason`: it leaves its outbox, counted as dropped; the
    /// target is not marked failing. Saved before returning.
    public func dropped(_ notification: PendingNotification, reason: String, at now: Date) {
        update(notification.widget) { outbox in
            guard let index = outbox.pending.firstIndex(where: { $0.id == notification.id }) else { return }
            outbox.pending.remove(at: index)
            outbox.dropped += 1
        }
    }

    // MARK: - Storage

    /// Changes the widget's outbox with `change` and saves it when it changed.
    private func update(_ id: String, _ change: (inout NotificationOutbox) -> Void) {
        entry(id).state.withLock { state in
            guard let before = load(&state, id) else { return }
            var after = before
            change(&after)
            guard after != before else { return }
            // Kept in memory even when the save fails: the next change saves it with the rest.
            state.outbox = after
            try? save(after)
        }
    }

    /// Whether `id` was forgotten and not loaded since.
    private func isForgotten(_ id: String) -> Bool {
        index.withLock { $0.forgotten.contains(id) }
    }

    /// The entry of `id`, made the first time.
    private func entry(_ id: String) -> Entry {
        index.withLock { index in
            if let entry = index.entries[id] { return entry }
            let entry = Entry()
            index.entries[id] = entry
            return entry
        }
    }

    /// The outbox of `id` in `entry`, read under its lock.
    private func read(_ entry: Entry, _ id: String) -> NotificationOutbox? {
        entry.state.withLock { load(&$0, id) }
    }

    /// The outbox in `state`, read from the output the first time.
    private func load(_ state: inout (loaded: Bool, outbox: NotificationOutbox?), _ id: String) -> NotificationOutbox? {
        if state.loaded { return state.outbox }
        state.loaded = true
        guard let data = output.read(Self.key(for: id)), let value = try? JSONReader.read(data, maximumDepth: JSONReader.savedFileDepth),
            let outbox = NotificationOutbox(value: value), outbox.widget == id
        else { return nil }
        state.outbox = outbox
        return outbox
    }

    /// Every entry, with one for each saved outbox (the folder is listed once).
    private func allEntries() -> [(id: String, entry: Entry)] {
        if !index.withLock({ $0.loadedAll }) {
            let names = output.names(in: Self.folder).filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
            for name in names { _ = entry(String(name.dropLast(5))) }
            index.withLock { $0.loadedAll = true }
        }
        return index.withLock { $0.entries.map { (id: $0.key, entry: $0.value) } }
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
