import Foundation
import Synchronization
import WidgetRuntime

/// A notification queue kept in memory, with what became of each notification: for tests of a sender.
final class MemoryNotificationQueue: WidgetRuntime.NotificationQueue {
    struct State {
        var pending: [PendingNotification] = []
        var delivered: [PendingNotification] = []
        var failures: [(id: String, error: String, retryAt: Date?)] = []
        var givenUp: [PendingNotification] = []
        var dropped: [PendingNotification] = []
        var postponed: [(id: String, until: Date)] = []
    }

    let state = Mutex(State())

    init(_ pending: [PendingNotification] = []) {
        state.withLock { $0.pending = pending }
    }

    func add(_ notification: PendingNotification) {
        state.withLock { $0.pending.append(notification) }
    }

    var pending: [PendingNotification] { state.withLock { $0.pending } }
    var delivered: [PendingNotification] { state.withLock { $0.delivered } }
    var failures: [(id: String, error: String, retryAt: Date?)] { state.withLock { $0.failures } }
    var givenUp: [PendingNotification] { state.withLock { $0.givenUp } }
    var dropped: [PendingNotification] { state.withLock { $0.dropped } }
    var postponed: [(id: String, until: Date)] { state.withLock { $0.postponed } }

    func due(at now: Date) -> [PendingNotification] {
        state.withLock { $0.pending.filter { ($0.nextAttemptAt ?? .distantPast) <= now } }
    }

    func nextAttempt() -> Date? {
        state.withLock { $0.pending.map { $0.nextAttemptAt ?? .distantPast }.min() }
    }

    func delivered(_ notification: PendingNotification, at now: Date) {
        state.withLock { state in
            state.pending.removeAll { $0.id == notification.id }
            state.delivered.append(notification)
        }
    }

    func failed(_ notification: PendingNotification, error: String, retryAt: Date?, at now: Date) {
        state.withLock { state in
            state.failures.append((notification.id, error, retryAt))
            guard let index = state.pending.firstIndex(where: { $0.id == notification.id }) else { return }
            guard let retryAt else {
                state.givenUp.append(state.pending.remove(at: index))
                return
            }
            state.pending[index].attempts += 1
            state.pending[index].nextAttemptAt = retryAt
            state.pending[index].lastError = error
        }
    }

    func dropped(_ notification: PendingNotification, reason: String, at now: Date) {
        state.withLock { state in
            guard let index = state.pending.firstIndex(where: { $0.id == notification.id }) else { return }
            state.dropped.append(state.pending.remove(at: index))
        }
    }

    func postponed(_ notification: PendingNotification, until: Date, at now: Date) {
        state.withLock { state in
            state.postponed.append((notification.id, until))
            guard let index = state.pending.firstIndex(where: { $0.id == notification.id }) else { return }
            state.pending[index].nextAttemptAt = until
        }
    }
}
