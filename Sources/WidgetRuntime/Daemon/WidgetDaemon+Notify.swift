import Foundation
import WidgetCore
import WidgetJSON

extension WidgetDaemon {
    /// The sender of the daemon's notifications: it drains the output's outboxes on the daemon's clock,
    /// with its secrets and log, sending only its own widgets' when it is one shard of several.
    static func makeSender(for configuration: Configuration) -> NotificationSender {
        var owns: (@Sendable (String) -> Bool)?
        if let shard = configuration.shard { owns = { shard.owns($0) } }
        return NotificationSender(
            queue: configuration.store.notifications, secrets: configuration.refresher.secrets, clock: configuration.clock,
            log: configuration.log, owns: owns)
    }

    /// Evaluates `definition`'s `notify` rules against `snapshot`, which is about to be written, and saves
    /// the widget's outbox first (what each rule saw, the notifications made): a crash after this can
    /// lose no change the snapshot shows, and a change recorded is never detected again. Wakes `sender`
    /// when a notification was made, and has it log the notifications dropped because the outbox was full.
    /// `history` is what the bodies read as `history` (the widget's, with this snapshot's point).
    ///
    /// - Throws: `AtomicFileError` when the outbox cannot be saved: the snapshot is not written either,
    ///   and the next refresh sees the change again.
    static func observeNotifications(
        of snapshot: Snapshot, definition: WidgetDefinition?, history: WidgetValue, store: SnapshotStore, sender: NotificationSender?
    ) throws(AtomicFileError) {
        guard let definition, !definition.notify.isEmpty else { return }
        let made = try store.notifications.observe(snapshot, definition: definition, history: history, now: snapshot.generatedAt) {
            sender?.reportDropped(widget: definition.id, counts: $0)
        }
        if !made.isEmpty { sender?.wake() }
    }

    /// Tells the sender the widgets now loaded, and drops the outbox of each widget of `removed`.
    func updateNotifications(_ widgets: [String: WidgetPipeline], removed: [String] = []) {
        for id in removed { configuration.store.notifications.forget(id) }
        configuration.store.notifications.loaded(widgets.keys)
        // A look-up into the book's own table, which it shares until the next load changes it.
        sender.update { widgets[$0]?.definition }
    }
}

extension WidgetDaemon.Book {
    /// The outboxes of the widgets with `notify` rules, by id, for the metrics.
    func notificationSummaries() -> [String: NotificationSummary] {
        var summaries: [String: NotificationSummary] = [:]
        for (id, widget) in widgets where !widget.definition.notify.isEmpty {
            summaries[id] = store.notifications.summary(for: id) ?? NotificationSummary(NotificationOutbox(widget: id))
        }
        return summaries
    }
}
