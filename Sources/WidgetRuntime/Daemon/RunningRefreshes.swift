import Foundation

extension WidgetDaemon {
    /// The refreshes the loop started and has not recorded yet, each with the number of its start.
    struct RunningRefreshes {
        let limit: Int
        private var tasks: [String: (start: Int, task: Task<Void, Never>)] = [:]
        private var starts = 0
        /// Widgets that became due again while their refresh was under way.
        var again: Set<String> = []

        init(limit: Int) {
            self.limit = limit
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

        mutating func add(_ id: String, start: Int, task: Task<Void, Never>) {
            tasks[id] = (start, task)
        }

        /// Whether `start` is the refresh of `id` under way; it is then no longer under way.
        mutating func finish(_ id: String, start: Int) -> Bool {
            guard tasks[id]?.start == start else { return false }
            tasks[id] = nil
            return true
        }

        /// Cancels the refresh of `id` and forgets it: what it finishes with is ignored.
        mutating func abandon(_ id: String) {
            tasks.removeValue(forKey: id)?.task.cancel()
            again.remove(id)
        }
    }
}
