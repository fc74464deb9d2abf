public import Foundation
import Synchronization
public import WidgetCore
public import WidgetJSON

/// The widgets' histories, each kept in the output as `OUT/<id>.history.json` (the front-ends' file and
/// the store alike; no second copy), with what was last read or written cached in memory.
///
/// A history is read back from the output on first use, so it survives a restart, and from a bucket,
/// which restores it with the snapshots. Each use fits it to the definition given (see
/// `WidgetHistory.adapted(to:now:)`): a reload that changes a `history` block keeps the series whose paths
/// did not change. ``SnapshotStore`` holds one, shared by its copies; the daemon records each refresh
/// with ``record(_:definition:)`` before it writes the snapshot.
public final class HistoryStore: Sendable {
    /// Where the files are.
    let output: any WidgetOutput
    /// What each widget's file held when last read or written: `nil` for no file.
    private let cache = Mutex<[String: WidgetHistory?]>([:])

    /// The store of the histories in `output`.
    public init(output: any WidgetOutput) {
        self.output = output
    }

    /// `<id>.history.json`.
    public static func key(for id: String) -> String { "\(id)\(WidgetHistory.fileSuffix)" }

    /// The widget's history as last written, not fitted to any definition; `nil` when it has none.
    public func saved(for id: String) -> WidgetHistory? {
        if let cached = cache.withLock({ $0[id] }) { return cached }
        let read = output.read(Self.key(for: id)).flatMap { WidgetHistory(fileData: $0) }.flatMap { $0.id == id ? $0 : nil }
        cache.withLock { $0[id] = .some(read) }
        return read
    }

    /// The history of `definition`'s widget fitted to its `history` block as of `now`; `nil` when the
    /// definition keeps none.
    public func history(for definition: WidgetDefinition, now: Date) -> WidgetHistory? {
        guard let block = definition.history else { return nil }
        return (saved(for: definition.id) ?? WidgetHistory(id: definition.id, definition: block)).adapted(to: block, now: now)
    }

    /// What the widget's templates read as `history` at `now`: each series of its definition with its
    /// points (see `WidgetHistory.templateValue`); `{}` without a `history` block.
    public func templateValue(for definition: WidgetDefinition, now: Date) -> WidgetValue {
        history(for: definition, now: now)?.templateValue ?? .object([:])
    }

    /// Adds `snapshot`'s points to its widget's history and writes the file, when the snapshot is fresh
    /// and `definition` has a `history` block: the content of the entry current at the snapshot's
    /// generation (the last not after it, else the first), at that time. A definition without one removes
    /// a file left from when it had one. The write is durable; the folder is flushed with the others
    /// (the caller's `syncFolders()`).
    ///
    /// - Returns: The history written; `nil` when nothing was.
    /// - Throws: `AtomicFileError` when the file cannot be written.
    @discardableResult
    public func record(_ snapshot: Snapshot, definition: WidgetDefinition) throws(AtomicFileError) -> WidgetHistory? {
        guard let block = definition.history else {
            if saved(for: snapshot.id) != nil { remove(snapshot.id) }
            return nil
        }
        guard snapshot.status == .fresh, !snapshot.entries.isEmpty else { return nil }
        let now = snapshot.generatedAt
        // Taken out of the cache while it changes, so that its points are not copied.
        let cached = cache.withLock { $0.removeValue(forKey: snapshot.id) }
        var history = (cached ?? saved(for: snapshot.id)) ?? WidgetHistory(id: snapshot.id, definition: block)
        cache.withLock { _ = $0.removeValue(forKey: snapshot.id) }
        history.record(snapshot, definition: block)
        let object = OutputObject(
            contentType: OutputObject.jsonType, cacheControl: OutputObject.snapshot(snapshot).cacheControl, flush: .later)
        try output.write(history.fileData(generatedAt: now), to: Self.key(for: snapshot.id), as: object)
        cache.withLock { $0[snapshot.id] = .some(history) }
        return history
    }

    /// Removes the widget's history (its widget is gone, or keeps none any longer).
    public func remove(_ id: String) {
        output.remove(Self.key(for: id))
        cache.withLock { $0[id] = .some(nil) }
    }
}

extension WidgetHistory {
    /// How a history file's name ends: `.history.json`.
    public static let fileSuffix = ".history.json"
}
