import Foundation
import Synchronization
import WidgetCore

/// What the notification sender waits on between passes: a notification queued (``raise()``), the
/// moment the next retry is due on the daemon's clock, or the cancellation of its task, whichever comes
/// first. A raise while nobody waits is kept, so the next wait returns at once and no wake is lost.
final class SenderWakeup: Sendable {
    private struct State {
        var raised = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Wakes the waiter, or the next one to wait.
    func raise() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.raised = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns once raised (at once when a raise came since the last wait), at `deadline` on `clock`
    /// when there is one, or when the task is cancelled.
    func wait(until deadline: Date?, clock: any WidgetClock) async {
        guard let deadline else { return await waitForRaise() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // A sleep cancelled because the raise came first raises nothing.
                guard (try? await clock.sleep(until: deadline)) != nil else { return }
                self.raise()
            }
            await waitForRaise()
            group.cancelAll()
        }
    }

    private func waitForRaise() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.raised || Task.isCancelled {
                        state.raised = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            raise()
        }
    }
}
