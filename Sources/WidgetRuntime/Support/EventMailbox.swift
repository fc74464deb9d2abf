import Foundation
import WidgetCore

/// Something that wakes the daemon before its next refresh is due.
enum DaemonEvent: Sendable, Hashable {
    /// SIGHUP, or a change in the definitions folder.
    case reloadDefinitions
    /// `widgetd reload` left requests in the state folder (SIGUSR1).
    case reloadRequested
}

/// Where signals and watchers post events, and where the daemon's loop waits for the first event or a
/// deadline, whichever comes first. Waiting costs nothing: no polling.
actor EventMailbox {
    private var pending: [DaemonEvent] = []
    private var waiter: CheckedContinuation<[DaemonEvent], Never>?
    private var timer: Task<Void, Never>?

    func post(_ event: DaemonEvent) {
        if !pending.contains(event) { pending.append(event) }
        wake()
    }

    /// The events that arrive before `deadline` (all pending ones at once), or none at the deadline.
    /// Returns at once when events are already pending or the task is cancelled.
    func wait(until deadline: Date?, clock: any WidgetClock) async -> [DaemonEvent] {
        if !pending.isEmpty || Task.isCancelled { return take() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled || !pending.isEmpty {
                    continuation.resume(returning: take())
                    return
                }
                waiter = continuation
                if let deadline {
                    timer = Task { [weak self] in
                        try? await clock.sleep(until: deadline)
                        await self?.wake()
                    }
                }
            }
        } onCancel: {
            Task { await self.wake() }
        }
    }

    private func wake() {
        timer?.cancel()
        timer = nil
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: take())
        }
    }

    private func take() -> [DaemonEvent] {
        defer { pending.removeAll() }
        return pending
    }
}
