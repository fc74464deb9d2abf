import Foundation
import WidgetCore

/// Something that wakes the daemon before its next refresh is due.
enum DaemonEvent: Sendable, Hashable {
    /// SIGHUP, or a change in the definitions folder.
    case reloadDefinitions
    /// `widgetd reload` left requests in the state folder (SIGUSR1).
    case reloadRequested
}

/// Where signals and watchers post events, refreshes post what they finished, a reload posts the
/// definitions it read, and where the daemon's
/// loop waits for the first of them or a deadline, whichever comes first. Waiting costs nothing: no
/// polling.
actor EventMailbox {
    private var pending: [DaemonEvent] = []
    private var finished: [FinishedRefresh] = []
    private var loaded: DefinitionDirectory.LoadResult?
    private var waiter: CheckedContinuation<Mail, Never>?
    private var timer: Task<Void, Never>?

    func post(_ event: DaemonEvent) {
        if !pending.contains(event) { pending.append(event) }
        wake()
    }

    /// Hands a finished refresh to the loop.
    func post(_ refresh: FinishedRefresh) {
        finished.append(refresh)
        wake()
    }

    /// Hands the definitions a reload read to the loop.
    func post(_ loaded: DefinitionDirectory.LoadResult) {
        self.loaded = loaded
        wake()
    }

    /// What arrived before `deadline` (everything pending at once), or nothing at the deadline.
    /// Returns at once when something is already pending or the task is cancelled.
    ///
    /// - Parameter busy: whether work the caller started is still under way (see
    ///   ``WidgetClock/sleep(until:busy:)``).
    func wait(until deadline: Date?, clock: any WidgetClock, busy: Bool = false) async -> Mail {
        if hasMail || Task.isCancelled { return take() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled || hasMail {
                    continuation.resume(returning: take())
                    return
                }
                waiter = continuation
                if let deadline {
                    timer = Task { [weak self] in
                        try? await clock.sleep(until: deadline, busy: busy)
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

    private var hasMail: Bool { !pending.isEmpty || !finished.isEmpty || loaded != nil }

    private func take() -> Mail {
        defer {
            pending.removeAll()
            finished.removeAll()
            loaded = nil
        }
        return Mail(events: pending, finished: finished, loaded: loaded)
    }
}

/// What the daemon's loop is woken with.
struct Mail: Sendable {
    var events: [DaemonEvent]
    var finished: [FinishedRefresh]
    /// The definitions a reload read, once it is done.
    var loaded: DefinitionDirectory.LoadResult?
}

/// A refresh the daemon started, done: which start it was (a widget removed or restarted meanwhile has
/// another), its outcome, how long it took, and whether its files were written.
struct FinishedRefresh: Sendable {
    var id: String
    var start: Int
    var outcome: WidgetRefresher.Outcome
    var duration: Duration
    /// How long the refresh took by the daemon's clock (what makes a widget slow, see
    /// ``WidgetDaemon/slowRefreshSeconds``).
    var elapsed: TimeInterval
    var written: WidgetDaemon.Written
}
