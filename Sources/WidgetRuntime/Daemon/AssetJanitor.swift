import Foundation
import WidgetCore
import WidgetJSON
import WidgetStages

extension WidgetDaemon {
    /// Which downloaded images (`assets/…`) each widget's snapshot and kept fallback items refer to,
    /// and the deletion of those nothing refers to any more.
    struct AssetJanitor {
        /// The images each widget refers to; none for a widget that refers to none (most).
        private var references: [String: Set<String>] = [:]
        /// Whether a refresh since the last collection may have left an image unused.
        private var changed = true

        /// Records what the data of widget `id`'s `snapshot` and `state` (entries, fallback items, cached
        /// fetches) refer to.
        mutating func update(_ id: String, snapshot: Snapshot?, state: WidgetState) {
            let paths = AssetJanitor.paths(in: AssetJanitor.values(of: snapshot, state))
            if paths != references[id] ?? [] {
                references[id] = paths.isEmpty ? nil : paths
                changed = true
            }
        }

        /// Forgets a widget; its images go at the next collection unless another widget uses them.
        mutating func remove(_ id: String) {
            references[id] = nil
            changed = true
        }

        /// Removes the assets of `store`'s output that nothing refers to; only after a change in what is
        /// referred to.
        mutating func collect(in store: SnapshotStore, log: (LogRecord) -> Void) {
            guard changed else { return }
            changed = false
            let names = store.assetNames()
            guard !names.isEmpty else { return }
            // The file each path names: `assets/x.png#frag` refers to `x.png`.
            var referenced = Set<String>()
            for paths in references.values {
                for path in paths {
                    referenced.insert(String(path.dropFirst("assets/".count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }))
                }
            }
            var deleted = 0
            for name in names.sorted() where !referenced.contains(name) {
                store.removeAsset(named: name)
                deleted += 1
            }
            if deleted > 0 {
                log(
                    LogRecord(
                        .debug, "assets-deleted", "deleted \(deleted) unused asset\(deleted == 1 ? "" : "s")",
                        details: ["deleted": .number(WidgetNumber(deleted))]))
            }
        }

        /// The data of a widget's `snapshot` and `state` that may name assets: entries, fallback items,
        /// cached fetches. The data itself, not the files' whole values: building those only to walk them
        /// was a sixth of recording a refresh.
        static func values(of snapshot: Snapshot?, _ state: WidgetState) -> [WidgetValue?] {
            var values: [WidgetValue?] = []
            for entry in (snapshot?.entries ?? []) + state.lastGoodEntries {
                values.append(entry.content)
                values.append(entry.url.map(WidgetValue.string))
            }
            values += state.fallbackItems
            values += state.fetchCache.values.map(\.value)
            return values
        }

        /// The `assets/…` strings anywhere in `values`.
        static func paths(in values: [WidgetValue?]) -> Set<String> {
            var paths: Set<String> = []
            func visit(_ value: WidgetValue) {
                switch value {
                case .string(let text) where text.hasPrefix("assets/"): paths.insert(text)
                case .array(let elements): for element in elements { visit(element) }
                case .object(let object): for member in object.values { visit(member) }
                default: break
                }
            }
            for value in values { if let value { visit(value) } }
            return paths
        }
    }
}
