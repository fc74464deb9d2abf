import Foundation
import Synchronization
import WidgetCore

/// Something that wakes the daemon before its next refresh is due.
enum DaemonEvent: Sendable, Hashable {
    /// SIGHUP, or a change in the definitions folder.
    case reloadDefinitions
    /// `widgetd reload` left requests in the state folder (SIGUSR1).
    case reloadRequested
}

/// Where signals and watchers post events, refreshes post what they finished, a reload posts the
/// definitions it read, and where the daemon's loop waits for the first of them or a deadline, whichever
/// comes first. Waiting costs nothing: no polling.
///
/// Posting never suspends: a refresh that ends posts its result before its task returns, so once the
/// task group the refreshes ran in is done, ``take()`` holds every result.
final class EventMailbox: Sendable {
    private struct State {
        var pending: [DaemonEvent] = []
        var finished: [FinishedRefresh] = []
        var loaded: DefinitionDirectory.LoadResult?
        var waiter: CheckedContinuation<Mail, Never>?
        /// Whether the waiter stays until mail comes, whatever happens to its task.
        var waiterIgnoresCancellation = false
        /// Whether the daemon's loop runs: only then does a poster wait for it to take the mail.
        var looping = false
        /// Whether the current wait's deadline came before its waiter was in place.
        var alarm = false
        /// Posters waiting for the loop to take what they posted.
        var posters: [CheckedContinuation<Void, Never>] = []

        var hasMail: Bool { !pending.isEmpty || !finished.isEmpty || loaded != nil }

        mutating func take() -> Mail {
            defer {
                pending.removeAll()
                finished.removeAll()
                loaded = nil
            }
            defer { posters.removeAll() }
            return Mail(events: pending, finished: finished, loaded: loaded, posters: posters)
        }

        /// The waiter with the mail, when there is a waiter and mail (or `force`).
        mutating func wake(force: Bool = false) -> (CheckedContinuation<Mail, Never>, Mail)? {
            guard let waiter, hasMail || force else { return nil }
            self.waiter = nil
            return (waiter, take())
        }
    }

    private let state = Mutex(State())

    func post(_ event: DaemonEvent) {
        deliver { if !$0.pending.contains(event) { $0.pending.append(event) } }
    }

    /// Posts `event` and, while the loop runs, returns once the loop has taken it: its sleep until then
    /// is over (a test that then waits for the loop to sleep waits for its next sleep). Returns at once when
    /// the loop does not run, and when the task is cancelled.
    func postWaitingForTheLoop(_ event: DaemonEvent) async {
        await withCheckedContinuation { (poster: CheckedContinuation<Void, Never>) in
            let (woken, wait) = state.withLock { state -> ((CheckedContinuation<Mail, Never>, Mail)?, Bool) in
                if !state.pending.contains(event) { state.pending.append(event) }
                let wait = state.looping && !Task.isCancelled
                if wait { state.posters.append(poster) }
                return (state.wake(), wait)
            }
            if let (waiter, mail) = woken { waiter.resume(returning: mail) }
            if !wait { poster.resume() }
        }
    }

    /// Notes whether the daemon's loop runs; when it stops, every poster waiting for it goes on.
    func setLooping(_ looping: Bool) {
        let posters = state.withLock { state in
            state.looping = looping
            defer { state.posters.removeAll() }
            return looping ? [] : state.posters
        }
        for poster in posters { poster.resume() }
    }

    /// Hands a finished refresh to the loop.
    func post(_ refresh: FinishedRefresh) {
        deliver { $0.finished.append(refresh) }
    }

    /// Hands the definitions a reload read to the loop.
    func post(_ loaded: DefinitionDirectory.LoadResult) {
        deliver { $0.loaded = loaded }
    }

    private func deliver(_ change: (inout State) -> Void) {
        let woken = state.withLock { state in
            change(&state)
            return state.wake()
        }
        if let (waiter, mail) = woken { waiter.resume(returning: mail) }
    }

    /// Everything pending, without waiting.
    func take() -> Mail {
        let mail = state.withLock { $0.take() }
        mail.releasePosters()
        return mail
    }

    /// What arrived before `deadline` (everything pending at once), or nothing at the deadline.
    /// Returns at once when something is already pending or the task is cancelled.
    ///
    /// The deadline is slept in a child task of this wait, cancelled as soon as mail comes.
    ///
    /// - Parameter busy: whether work the caller started is still under way (see
    ///   ``WidgetClock/sleep(until:busy:)``).
    func wait(until deadline: Date?, clock: any WidgetClock, busy: Bool = false) async -> Mail {
        if Task.isCancelled || state.withLock({ $0.hasMail }) { return take() }
        guard let deadline else {
            let mail = await waitForMail(ignoringCancellation: false)
            mail.releasePosters()
            return mail
        }
        state.withLock { $0.alarm = false }
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // At the deadline the waiter is woken with whatever there is (nothing); a sleep cancelled
                // because mail came first wakes no one.
                guard (try? await clock.sleep(until: deadline, busy: busy)) != nil else { return }
                self.wakeEmpty()
            }
            let mail = await waitForMail(ignoringCancellation: false)
            // The sleep ends here, before anyone who posted hears the mail was taken.
            group.cancelAll()
            mail.releasePosters()
            return mail
        }
    }

    /// The refreshes that finished, waiting for at least one, even when the task is cancelled: for a caller
    /// that knows refreshes are under way and must have each of their results.
    func waitForFinished() async -> [FinishedRefresh] {
        let mail = await waitForMail(ignoringCancellation: true)
        mail.releasePosters()
        return mail.finished
    }

    private func waitForMail(ignoringCancellation: Bool) async -> Mail {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Mail, Never>) in
                let mail = state.withLock { state -> Mail? in
                    if state.hasMail || state.alarm || (!ignoringCancellation && Task.isCancelled) {
                        state.alarm = false
                        return state.take()
                    }
                    state.waiter = continuation
                    state.waiterIgnoresCancellation = ignoringCancellation
                    return nil
                }
                if let mail { continuation.resume(returning: mail) }
            }
        } onCancel: {
            let woken = state.withLock { state in state.waiterIgnoresCancellation ? nil : state.wake(force: true) }
            if let (waiter, mail) = woken { waiter.resume(returning: mail) }
        }
    }

    /// Wakes the waiter, with nothing when nothing came; when the waiter is not in place yet, it will not
    /// wait.
    private func wakeEmpty() {
        let woken = state.withLock { state in
            if state.waiter == nil { state.alarm = true }
            return state.wake(force: true)
        }
        if let (waiter, mail) = woken { waiter.resume(returning: mail) }
    }
}

/// What the daemon's loop is woken with.
struct Mail: Sendable {
    var events: [DaemonEvent]
    var finished: [FinishedRefresh]
    /// The definitions a reload read, once it is done.
    var loaded: DefinitionDirectory.LoadResult?
    /// Who posted the events and waits for the loop to take them.
    fileprivate var posters: [CheckedContinuation<Void, Never>] = []

    /// Tells the posters of the events that the loop took them.
    fileprivate func releasePosters() {
        for poster in posters { poster.resume() }
    }
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
    /// How many seconds after its due time the refresh started, by the daemon's clock; `nil` without a
    /// due time (`run --once`).
    var lateness: TimeInterval? = nil
}
