import Foundation
import WidgetCore

extension WidgetDaemon {
    /// Each widget's state as last read or written, so that a wave reads no state file, but without what
    /// only a refresh needs when the state journal holds it: the parsed values of its fetch cache
    /// (validators kept, values `null`), its last good entries and its fallback items. A parsed payload is
    /// most of a widget's memory, and the entries are most of an idle one's; a refresh reads them back
    /// (``WidgetDaemon/fullState(_:kept:store:)``).
    struct StateCache {
        private(set) var states: [String: WidgetState] = [:]
        /// The widgets whose fetch values, entries and fallback items are only in the state journal.
        private(set) var cachedOnDisk: Set<String> = []

        /// The widget's state, as kept.
        subscript(id: String) -> WidgetState? { states[id] }

        /// Keeps `state` as the widget's, without its cached fetch values, entries and fallback items when
        /// they are saved on disk.
        mutating func keep(_ state: WidgetState, for id: String, savedOnDisk: Bool) {
            guard savedOnDisk, !state.fetchCache.isEmpty || !state.lastGoodEntries.isEmpty || !state.fallbackItems.isEmpty else {
                states[id] = state
                cachedOnDisk.remove(id)
                return
            }
            var slim = state
            for stage in slim.fetchCache.keys { slim.fetchCache[stage]?.value = .null }
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
}
