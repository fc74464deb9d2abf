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
        private(set) var states: [String: WidgetState] = [:]
        /// The widgets whose fetch cache, entries and fallback items are only in the state journal.
        private(set) var cachedOnDisk: Set<String> = []

        /// The widget's state, as kept.
        subscript(id: String) -> WidgetState? { states[id] }

        /// Keeps `state` as the widget's, without its fetch cache, entries and fallback items when they are
        /// saved on disk.
        mutating func keep(_ state: WidgetState, for id: String, savedOnDisk: Bool) {
            guard savedOnDisk, !state.fetchCache.isEmpty || !state.lastGoodEntries.isEmpty || !state.fallbackItems.isEmpty else {
                states[id] = state
                cachedOnDisk.remove(id)
                return
            }
            var slim = state
            slim.fetchCache = [:]
            slim.lastGoodEntries = []
            slim.fallbackItems = []
            states[id] = slim
            cachedOnDisk.insert(id)
        }

        /// Forgets a widget.
        mutating func remove(_ id: String) {
            states[id] = nil
            cachedOnDisk.remove(id)
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
