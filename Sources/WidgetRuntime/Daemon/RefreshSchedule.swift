import Foundation
import WidgetCore

extension WidgetDaemon {
    /// The daemon's two clocks: when each widget refreshes next, and when each snapshot served `fresh` or
    /// `cached` turns `stale`; with when each widget was last refreshed by hand (`widgetd reload`).
    struct RefreshSchedule {
        /// When each widget is due.
        var dueAt = DueQueue()
        /// When each widget's snapshot turns stale: the daemon wakes then and rewrites it, without waiting
        /// for the next refresh.
        var staleAt = DueQueue()
        /// When each widget's last manual refresh was asked for.
        var manualRefreshAt: [String: Date] = [:]

        /// Schedules a widget the daemon takes on: due now when it has no data, or its data is stale, or
        /// (after start-up) its definition is new or changed; otherwise at its saved due time (a refresh
        /// missed while the daemon was down is due now, once).
        mutating func start(
            _ widget: WidgetPipeline, state: WidgetState, snapshot: Snapshot?, now: Date, startup: Bool
        ) {
            let id = widget.id
            let policy = widget.definition.refreshPolicy
            let stale = snapshot == nil || state.lastSuccessAt == nil || policy.isStale(lastSuccessAt: state.lastSuccessAt, at: now)
            watchStaleness(of: id, status: snapshot?.status, lastSuccessAt: state.lastSuccessAt, policy: policy)
            if stale || !startup {
                dueAt[id] = now
            } else if let next = state.nextDueAt {
                dueAt[id] = max(next, now)
            } else {
                dueAt[id] = nil
            }
        }

        /// Wakes the daemon when the data of a snapshot served `fresh` or `cached` turns stale.
        mutating func watchStaleness(of id: String, status: Snapshot.Status?, lastSuccessAt: Date?, policy: RefreshPolicy) {
            guard status == .fresh || status == .cached else {
                staleAt[id] = nil
                return
            }
            staleAt[id] = policy.staleAt(lastSuccessAt: lastSuccessAt)
        }

        /// Makes `id` due at `now` for a manual refresh (`widgetd reload`), unless one was asked for less than
        /// ``WidgetDaemon/reloadCoalescingInterval`` ago: then this one is merged into it and the result is
        /// `false`.
        mutating func requestManualRefresh(of id: String, at now: Date) -> Bool {
            if let last = manualRefreshAt[id], now.timeIntervalSince(last) < WidgetDaemon.reloadCoalescingInterval { return false }
            manualRefreshAt[id] = now
            dueAt[id] = now
            return true
        }

        /// Forgets a widget.
        mutating func remove(_ id: String) {
            dueAt[id] = nil
            staleAt[id] = nil
            manualRefreshAt[id] = nil
        }

        /// The earliest moment the loop must wake for: a due refresh (unless every place for a refresh is
        /// taken) or a snapshot turning stale.
        mutating func wakeTime(refreshesCanStart: Bool) -> Date? {
            [refreshesCanStart ? dueAt.earliest : nil, staleAt.earliest].compactMap { $0 }.min()
        }
    }
}
