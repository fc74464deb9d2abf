import Foundation
import WidgetCore

extension WidgetDaemon {
    /// Each widget's state as last read or written, so that a wave reads no state file, but without the
    /// parsed values of its fetch cache (validators kept, values `null`) when those are on disk: a parsed
    /// payload is most of a widget's memory, and the state journal holds it, which a refresh reads it
    /// back from (``WidgetDaemon/fullState(_:kept:store:)``).
    struct StateCache {
        private(set) var states: [String: WidgetState] = [:]
        /// The widgets whose cached fetch values are only in the state journal.
        private(set) var cachedOnDisk: Set<String> = []

        /// The widget's state, as kept.
        subscript(id: String) -> WidgetState? { states[id] }

        /// Keeps `state` as the widget's, without its cached fetch values when they are saved on disk.
        mutating func keep(_ state: WidgetState, for id: String, savedOnDisk: Bool) {
            guard savedOnDisk, !state.fetchCache.isEmpty else {
                states[id] = state
                cachedOnDisk.remove(id)
                return
            }
            var slim = state
            for stage in slim.fetchCache.keys { slim.fetchCache[stage]?.value = .null }
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
