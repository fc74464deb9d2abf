import Foundation
import WidgetCore
import WidgetJSON

extension WidgetDaemon {
    /// Each widget's state as last read or written, so that scheduling reads no state file, but without
    /// what only a refresh needs when the state journal holds it: its fetch cache (validators and parsed
    /// values), its last good entries and its fallback items. A parsed payload is most of a widget's
    /// memory, and the cache's small blocks, kept for every widget among the ones a load or a wave frees,
    /// hold whole pages of the allocator; a refresh reads them back from the widget's journal line
    /// (``savedState(_:kept:store:)``).
    struct StateCache {
        /// The slim states, compact: a table of a thousand widgets' states inline took ~310 bytes a widget.
        private var kept: [String: Kept] = [:]
        /// The whole states that are not saved on disk (or do not fit ``Kept``): kept as they are.
        private var whole: [String: WidgetState] = [:]

        /// The widget's state, as kept.
        subscript(id: String) -> WidgetState? { whole[id] ?? kept[id]?.state }

        /// Whether the widget's fetch cache, entries and fallback items are only in the state journal.
        func isCachedOnDisk(_ id: String) -> Bool {
            kept[id]?.cachedOnDisk ?? false
        }

        /// Keeps `state` as the widget's, without its fetch cache, entries and fallback items when they are
        /// saved on disk.
        mutating func keep(_ state: WidgetState, for id: String, savedOnDisk: Bool) {
            let cachedOnDisk = !state.fetchCache.isEmpty || !state.lastGoodEntries.isEmpty || !state.fallbackItems.isEmpty
            guard savedOnDisk || !cachedOnDisk, let slim = Kept(state, cachedOnDisk: cachedOnDisk) else {
                whole[id] = state
                kept[id] = nil
                return
            }
            kept[id] = slim
            whole[id] = nil
        }

        /// Forgets a widget.
        mutating func remove(_ id: String) {
            kept[id] = nil
            whole[id] = nil
        }

        /// A state without its fetch cache, entries and fallback items, in 80 bytes rather than 136: dates as
        /// their seconds since the reference date (NaN for none, exact both ways), counters in 32 bits. Every
        /// member of `WidgetState` but those three is here: one added there is added here too.
        private struct Kept {
            var lastSuccessAt: Double
            var nextDueAt: Double
            var lastAttemptAt: Double
            var budgetDayEndsAt: Double
            var lastError: String?
            var budgetDay: String?
            var consecutiveFailures: Int32
            var budgetUsed: Int32
            /// Whether the fetch cache, entries and fallback items were left out (they are in the journal).
            var cachedOnDisk: Bool

            /// `state`'s members, or `nil` when a counter does not fit.
            init?(_ state: WidgetState, cachedOnDisk: Bool) {
                guard let failures = Int32(exactly: state.consecutiveFailures), let used = Int32(exactly: state.budgetUsed) else {
                    return nil
                }
                func seconds(_ date: Date?) -> Double { date?.timeIntervalSinceReferenceDate ?? .nan }
                lastSuccessAt = seconds(state.lastSuccessAt)
                nextDueAt = seconds(state.nextDueAt)
                lastAttemptAt = seconds(state.lastAttemptAt)
                budgetDayEndsAt = seconds(state.budgetDayEndsAt)
                lastError = state.lastError
                budgetDay = state.budgetDay
                consecutiveFailures = failures
                budgetUsed = used
                self.cachedOnDisk = cachedOnDisk
            }

            /// The state, with no fetch cache, entries or fallback items.
            var state: WidgetState {
                func date(_ seconds: Double) -> Date? { seconds.isNaN ? nil : Date(timeIntervalSinceReferenceDate: seconds) }
                var state = WidgetState()
                state.lastSuccessAt = date(lastSuccessAt)
                state.nextDueAt = date(nextDueAt)
                state.lastAttemptAt = date(lastAttemptAt)
                state.budgetDayEndsAt = date(budgetDayEndsAt)
                state.lastError = lastError
                state.budgetDay = budgetDay
                state.consecutiveFailures = Int(consecutiveFailures)
                state.budgetUsed = Int(budgetUsed)
                return state
            }
        }
    }

    /// The state a refresh starts from: `kept` (the book's, without its fetch cache, entries and fallback
    /// items) with those of the widget's line in the state journal, the line `kept` was slimmed from. A
    /// line that cannot be read, or is not that one, gives none: the fetch is then unconditional.
    static func savedState(_ id: String, kept: WidgetState, store: SnapshotStore) async -> WidgetState {
        await withCheckedContinuation { continuation in
            fileQueue.async {
                var state = kept
                if let saved = store.savedState(for: id), isLine(saved, of: kept) {
                    // A value that could not be read back is no cache: the next fetch is unconditional.
                    state.fetchCache = saved.fetchCache.filter { $0.value.value != .null }
                    state.lastGoodEntries = saved.lastGoodEntries
                    state.fallbackItems = saved.fallbackItems
                }
                continuation.resume(returning: state)
            }
        }
    }

    /// Whether `saved` is the line `kept` was written as: the same dates, as the journal writes them.
    private static func isLine(_ saved: WidgetState, of kept: WidgetState) -> Bool {
        func written(_ date: Date?) -> String? { date.map(Timestamp.string) }
        return written(saved.lastAttemptAt) == written(kept.lastAttemptAt) && written(saved.lastSuccessAt) == written(kept.lastSuccessAt)
            && written(saved.nextDueAt) == written(kept.nextDueAt)
    }
}
