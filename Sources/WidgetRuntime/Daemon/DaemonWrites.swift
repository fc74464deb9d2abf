import Foundation
import WidgetCore
import WidgetJSON
import WidgetStages

extension WidgetDaemon {
    /// How a finished refresh's files were written.
    enum Written: Sendable {
        /// The snapshot and the state are written; their folders are flushed with the others' before the
        /// next index is written (see `IndexPacing`). With the card written in the widget's page (`nil` when the page could not be).
        case done(GalleryCard?)
        /// Not attempted: the refresh was abandoned or interrupted.
        case skipped
        /// The write failed, with why: front-ends still read the previous snapshot.
        case failed(String)
    }

    /// The threads refreshes read their saved state and write their files on: an `fsync` or a read blocks
    /// its thread for as long as the disk takes, and the cooperative pool's few threads must not wait for
    /// disks. Refreshes finishing together write at once, so their flushes are committed together (see
    /// `FolderOutput.write(_:to:as:)`).
    ///
    /// A new serial queue for each job, each on a thread of its own: a concurrent queue runs about as
    /// many blocks at once as there are cores on Linux, however long they wait, so a writer waiting for
    /// its batch's flush held the next writers back and batches never grew past two or three files.
    /// The jobs under way are bounded by the refreshes under way.
    static var fileQueue: DispatchQueue { DispatchQueue(label: "widgetd.files") }

    /// Writes the `refreshing` snapshot of a widget whose first refresh begins, on a thread of the file
    /// queue, neither flushed nor with a page (the gallery shows its card from the daemon's memory, and
    /// the refresh's own snapshot replaces it). A folder that cannot be written is left to the refresh to
    /// report: it writes there too.
    static func writeRefreshing(_ snapshot: Snapshot, to store: SnapshotStore) async {
        await withCheckedContinuation { continuation in
            fileQueue.async {
                try? store.write(snapshot, syncsFolder: false, syncsData: false)
                continuation.resume()
            }
        }
    }

    /// What ``markStale(_:at:store:)`` did with one widget's snapshot.
    enum StaleMark: Sendable {
        /// Rewritten `stale`.
        case marked(Snapshot)
        /// Not written, with why.
        case failed(String)
        /// Missing, or no longer `fresh` or `cached`: left alone.
        case unchanged
    }

    /// Rewrites the snapshots of `ids` as `stale` at `now`, entries and all, with their pages, on a thread
    /// of the file queue (a snapshot is read back from disk, as the book keeps none of its entries),
    /// flushing the folder once for them all. `definitions` gives each widget's view.
    static func markStale(
        _ ids: [String], at now: Date, definitions: [String: WidgetDefinition], store: SnapshotStore, sender: NotificationSender? = nil
    ) async -> [(id: String, mark: StaleMark)] {
        await withCheckedContinuation { continuation in
            fileQueue.async {
                let marks = ids.map { id -> (id: String, mark: StaleMark) in
                    guard var snapshot = store.snapshot(for: id), snapshot.status == .fresh || snapshot.status == .cached else {
                        return (id, .unchanged)
                    }
                    snapshot.status = .stale
                    snapshot.generatedAt = now
                    do {
                        let definition = definitions[id]
                        // What the notification bodies and the views read as `history`, made once for both.
                        let history = definition.map { store.history.templateValue(for: $0, now: now) } ?? .object([:])
                        try observeNotifications(of: snapshot, definition: definition, history: history, store: store, sender: sender)
                        try store.write(snapshot, syncsFolder: false)
                        if (try? store.writeCard(of: snapshot, definition: definition, history: history)) == nil {
                            store.removeCard(for: id)
                        }
                        return (id, .marked(snapshot))
                    } catch {
                        return (id, .failed("\(error)"))
                    }
                }
                store.syncFolders()
                continuation.resume(returning: marks)
            }
        }
    }

    /// Writes what a refresh produced: the assets it refers to that the output does not have yet (see
    /// `SnapshotStore.publishAssets(_:)`; before the snapshot that names them), the widget's notification
    /// outbox (its `notify` rules evaluated, before the snapshot that shows what they saw), the snapshot, the state,
    /// then the widget's page (its card rendered with `definition`'s view), without flushing. A page that
    /// cannot be written is deleted, being out of date, and the next gallery renders its card again. Nothing is written when `check`
    /// (``Configuration/outputCheck``) throws.
    static func write(
        _ outcome: WidgetRefresher.Outcome, definition: WidgetDefinition, to store: SnapshotStore,
        check: (@Sendable () throws -> Void)? = nil, sender: NotificationSender? = nil
    ) async -> Written {
        await withCheckedContinuation { continuation in
            fileQueue.async {
                do {
                    try check?()
                    if !(store.output is FolderOutput) {
                        store.publishAssets(AssetJanitor.paths(in: AssetJanitor.values(of: outcome.snapshot, outcome.state)))
                    }
                    try store.history.record(outcome.snapshot, definition: definition)
                    // What the notification bodies and the views read as `history`, made once for both.
                    let history = store.history.templateValue(for: definition, now: outcome.snapshot.generatedAt)
                    try observeNotifications(
                        of: outcome.snapshot, definition: definition, history: history, store: store, sender: sender)
                    try store.writeRefresh(outcome.snapshot, state: outcome.state)
                    let card = try? store.writeCard(of: outcome.snapshot, definition: definition, history: history)
                    if card == nil { store.removeCard(for: outcome.snapshot.id) }
                    continuation.resume(returning: .done(card))
                } catch {
                    continuation.resume(returning: .failed("\(error)"))
                }
            }
        }
    }
}
