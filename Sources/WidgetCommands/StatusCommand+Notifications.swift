import Foundation
import WidgetCore
import WidgetJSON
import WidgetRuntime

extension StatusCommand {
    /// What `status` says of one widget's notifications: its outbox's counts, and for a target that keeps
    /// failing, since when and why (the receiver's host, never a secret).
    struct NotificationLine {
        var id: String
        var summary: NotificationSummary

        /// `shop: 2 pending, 10 sent, 1 failed, 0 dropped; notify failing since 2026-11-29T07:10:00Z: … answered 503`.
        var text: String {
            var line = "\(id): \(summary.pending) pending, \(summary.sent) sent, \(summary.failed) failed, \(summary.dropped) dropped"
            if let since = summary.failingSince {
                line += "; notify failing since \(Timestamp.string(since)): \(summary.lastError ?? "unknown error")"
            }
            return line
        }

        /// The `notify` object of the widget in `status --format json`.
        var value: WidgetValue {
            .object([
                "pending": .number(WidgetNumber(summary.pending)), "sent": .number(WidgetNumber(summary.sent)),
                "failed": .number(WidgetNumber(summary.failed)), "dropped": .number(WidgetNumber(summary.dropped)),
                "failingSince": summary.failingSince.map { .string(Timestamp.string($0)) } ?? .null,
                "lastError": summary.lastError.map(WidgetValue.string) ?? .null,
                "oldestPendingAt": summary.oldestPending.map { .string(Timestamp.string($0)) } ?? .null,
            ])
        }
    }

    /// The notification lines of the widgets `ids` that have an outbox in `store`, by id order.
    static func notificationLines(of ids: [String], in store: SnapshotStore) -> [NotificationLine] {
        ids.sorted().compactMap { id in store.notifications.summary(for: id).map { NotificationLine(id: id, summary: $0) } }
    }
}
