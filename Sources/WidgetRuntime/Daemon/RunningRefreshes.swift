import Foundation
import Synchronization

extension WidgetDaemon {
    /// The refreshes the loop started and has not recorded yet, each with the number of its start and
    /// the handle that abandons it. The refreshes themselves are child tasks of the loop's task group.
    struct RunningRefreshes {
        let limit: Int
        private var tasks: [String: (start: Int, abandonment: Abandonment)] = [:]
        private var starts = 0
        /// Widgets that became due again while their refresh was under way.
        var again: Set<String> = []
        /// Widgets whose last refresh took ``WidgetDaemon/slowRefreshSeconds`` or more (a server that
        /// stalls or trickles): at most ``slowLimit`` of their refreshes run at once, so that however many
        /// slow hosts there are, the other widgets always have places left.
        private(set) var slowWidgets: Set<String> = []
        /// The slow widgets under way.
        private var slowRunning: Set<String> = []
        /// Slow widgets that were due while ``slowLimit`` of them ran, in order: due again as soon as one
        /// of those ends (not before, so the loop does not wake for them meanwhile).
        private var waitingSlow: [String] = []

        init(limit: Int) {
            self.limit = limit
        }

        /// How many slow widgets may refresh at once: half the places (at least one).
        var slowLimit: Int { max(1, limit / 2) }

        /// Whether `id` is a slow widget that must wait because ``slowLimit`` of them are under way; it
        /// is then kept waiting until one ends (see ``takeWaitingSlow()``).
        mutating func mustWait(_ id: String) -> Bool {
            guard slowWidgets.contains(id), slowRunning.count >= slowLimit else { return false }
            if !waitingSlow.contains(id) { waitingSlow.append(id) }
            return true
        }

        /// Whether `id` counts as slow: its last refresh took that long.
        func isSlow(_ id: String) -> Bool { slowWidgets.contains(id) }

        /// Notes how long the refresh of `id` took: it counts as slow from now on when that was
        /// ``WidgetDaemon/slowRefreshSeconds`` or more, and as fast again when it was less.
        mutating func noteDuration(of id: String, seconds: Double) {
            if seconds >= WidgetDaemon.slowRefreshSeconds {
                slowWidgets.insert(id)
            } else {
                slowWidgets.remove(id)
            }
        }

        /// The slow widgets kept waiting, when a place for one is free: they are due again.
        mutating func takeWaitingSlow() -> [String] {
            guard slowRunning.count < slowLimit, !waitingSlow.isEmpty else { return [] }
            defer { waitingSlow.removeAll() }
            return waitingSlow
        }

        var isEmpty: Bool { tasks.isEmpty }
        var isFull: Bool { tasks.count >= limit }
        var count: Int { tasks.count }
        var ids: [String] { tasks.keys.sorted() }

        func contains(_ id: String) -> Bool { tasks[id] != nil }

        mutating func nextStart() -> Int {
            starts += 1
            return starts
        }

        mutating func add(_ id: String, start: Int, abandonment: Abandonment) {
            tasks[id] = (start, abandonment)
            if slowWidgets.contains(id) { slowRunning.insert(id) }
        }

        /// Whether `start` is the refresh of `id` under way; it is then no longer under way.
        mutating func finish(_ id: String, start: Int) -> Bool {
            guard tasks[id]?.start == start else { return false }
            tasks[id] = nil
            slowRunning.remove(id)
            return true
        }

        /// Cancels the refresh of `id` and forgets it: what it finishes with is ignored.
        mutating func abandon(_ id: String) {
            tasks.removeValue(forKey: id)?.abandonment.abandon()
            again.remove(id)
            slowRunning.remove(id)
        }
    }
}

extension WidgetDaemon {
    /// What the loop holds of one refresh to cancel it alone (its widget removed), since a task group
    /// cancels only all its children at once.
    ///
    /// The refresh runs ``run(_:)``: its work beside a watcher of this handle, in a group of their own;
    /// whichever ends first ends the other. Abandoning it cancels the work, which then returns at once
    /// (see ``Deadline``) and writes nothing.
    final class Abandonment: Sendable {
        private let state = Mutex<(abandoned: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

        init() {}

        /// Cancels the refresh; it still reports its end to the loop, which ignores it.
        func abandon() {
            let waiter = state.withLock { state in
                state.abandoned = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }

        /// Runs `work` until it returns, or until ``abandon()`` cancels it (it is then awaited too).
        func run(_ work: @escaping @Sendable () async -> Void) async {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await work() }
                group.addTask { await self.waitUntilAbandoned() }
                await group.next()
                group.cancelAll()
            }
        }

        /// Returns once the refresh is abandoned, or once the waiting task is cancelled (its work ended).
        private func waitUntilAbandoned() async {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let now = state.withLock { state in
                        if state.abandoned || Task.isCancelled { return true }
                        state.waiter = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                let waiter = state.withLock { state in
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume()
            }
        }
    }
}
