public import Foundation
public import WidgetCore
public import WidgetJSON

/// Everything the daemon writes, named and encoded, through one output (``WidgetOutput``): a folder
/// (``FolderOutput``) or a bucket. The store names the keys, encodes the files and chooses each object's
/// metadata (see `OutputObject`'s kinds); every read, write, removal and listing goes through the
/// output.
///
/// ```
/// <id>.json        one snapshot per widget, replaced atomically
/// index.json       every widget: id, title, status, file, nextRefreshAt (and the gallery's generation)
/// index.html       the gallery page; <id>.html one widget's page (see GalleryPage)
/// <id>.history.json  the widget's history, when its definition keeps one (see HistoryStore)
/// assets/          downloaded images
/// widgetd.prom     Prometheus text format
/// .state/          what must survive a restart (front-ends ignore it): every widget's state (in a
///                  folder, _states.jsonl, see StateJournal; elsewhere one object per widget,
///                  <id>.json), the daemon's record, the definitions' problems, and the
///                  notification outboxes (notify/<id>.json, see NotificationOutboxes)
/// ```
///
/// With a ``shard`` (`run --shard K/N`), the index, the gallery and the metrics are the shard's part
/// (see `SnapshotStore+Shards.swift`): `shards/K-of-N.json`, `.html` and `.prom`, with `index.json` a
/// manifest of the N parts and `index.html` the gallery of them all, the same bytes from every shard.
///
/// What must be a file stays in the output's `localFolder`, never an object: the daemon's lock,
/// `widgetd reload`'s requests and OAuth2 token files (in `.state/`), and the images stages write (in
/// `assets/`) before they are published.
public struct SnapshotStore: Sendable {
    /// Where everything is written.
    public let output: any WidgetOutput
    /// The output's local folder (for a folder output, the output folder `OUT` itself).
    public let directory: URL
    /// The shard whose part of the index, gallery and metrics this store writes; `nil` (the default)
    /// for a daemon that runs every widget.
    public var shard: Shard?
    /// The state journal's path when the output keeps one (a folder); `nil` for one object per widget.
    let journalPath: String?
    /// The asset files published so far, shared by the store's copies.
    let publishedAssets = PublishedAssets()
    /// The fingerprints of the pages written so far, shared by the store's copies.
    let pageFingerprints = PageFingerprints()
    /// The widgets' notification outboxes (`.state/notify/<id>.json`), shared by the store's copies.
    public let notifications: NotificationOutboxes
    /// The widgets' histories, `<id>.history.json`, shared by the store's copies.
    public let history: HistoryStore

    /// The store of the output folder `directory`; nothing is created until ``prepare()`` or a write.
    public init(directory: URL) {
        self.init(output: FolderOutput(folder: directory))
    }

    /// The store writing through `output`; nothing is created until ``prepare()`` or a write.
    public init(output: any WidgetOutput) {
        self.output = output
        history = HistoryStore(output: output)
        directory = output.localFolder
        notifications = NotificationOutboxes(output: output)
        journalPath = (output as? FolderOutput)?.journalPath
    }

    /// `.state/` in the local folder: the daemon's private state, which front-ends ignore (for a folder
    /// output, also where the state journal is).
    public var stateDirectory: URL { directory.appendingPathComponent(".state", isDirectory: true) }
    /// `assets/` in the local folder: the images the `assets` transform downloaded, before they are
    /// published.
    public var assetsDirectory: URL { directory.appendingPathComponent("assets", isDirectory: true) }
    /// The local file of `index.json` (a folder output's).
    public var indexFile: URL { directory.appendingPathComponent(SnapshotStore.indexKey) }
    /// The local file of `widgetd.prom` (a folder output's); with a ``shard``, of its own
    /// `shards/K-of-N.prom`.
    public var metricsFile: URL { directory.appendingPathComponent(metricsObjectKey) }
    /// The key the metrics are written to: ``metricsKey``, or with a ``shard`` `shards/K-of-N.prom`.
    var metricsObjectKey: String { shard.map { shardPartKey($0, extension: "prom") } ?? SnapshotStore.metricsKey }

    /// The local file of the widget's snapshot (a folder output's).
    public func snapshotFile(for id: String) -> URL { directory.appendingPathComponent(snapshotKey(for: id)) }
    /// The local file of the widget's state as earlier versions kept it, and as an output without a
    /// journal keeps it.
    public func stateFile(for id: String) -> URL { directory.appendingPathComponent(stateKey(for: id)) }
    /// Every widget's state, one line per write (see `StateJournal`), in a folder output.
    public var stateJournalFile: URL { stateDirectory.appendingPathComponent(StateJournal.fileName) }

    // MARK: - Keys

    /// `index.json`.
    public static let indexKey = "index.json"
    /// `widgetd.prom`.
    public static let metricsKey = "widgetd.prom"
    /// `.state/_daemon.json`.
    public static let daemonKey = ".state/_daemon.json"
    /// `.state/_problems.json`.
    public static let problemsKey = ".state/_problems.json"

    /// `<id>.json`: the widget's snapshot.
    public func snapshotKey(for id: String) -> String { "\(id).json" }
    /// `.state/<id>.json`: the widget's state, for an output without a journal.
    public func stateKey(for id: String) -> String { ".state/\(id).json" }

    // MARK: - Preparing

    /// Makes the output ready: for a folder, creates the folders, removes temporary files that an
    /// interrupted write left behind and repairs the state journal. Only the process that holds the
    /// output's lock may call it: another's writes under way would go.
    ///
    /// - Throws: ``StoreError`` when the output cannot be prepared.
    public func prepare() async throws(StoreError) {
        try await output.prepare()
    }

    /// Creates the local folder and its state folder (for the lock, before ``prepare()``).
    ///
    /// - Throws: ``StoreError`` when a folder cannot be created.
    public func createFolders() throws(StoreError) {
        try FolderOutput(folder: directory).createFolders()
    }

    // MARK: - Snapshots

    /// Replaces the widget's snapshot.
    ///
    /// - Parameters:
    ///   - snapshot: The snapshot; its `id` names the object.
    ///   - syncsFolder: `false` when the caller calls ``syncFolders()`` after several writes.
    ///   - syncsData: `false` for a snapshot that stands only until the next (a `refreshing` one).
    public func write(_ snapshot: Snapshot, syncsFolder: Bool = true, syncsData: Bool = true) throws(AtomicFileError) {
        var object = OutputObject.snapshot(snapshot)
        object.durability = syncsData ? .durable : .rebuildable
        object.flush = syncsFolder ? .now : .later
        let value = snapshot.value
        if marksChanges {
            let fingerprint = SnapshotStore.snapshotFingerprint(
                ofValue: value, entries: snapshot.entries, generatedAt: snapshot.generatedAt)
            object = object.marked(fingerprint, heartbeat: OutputObject.contentHeartbeat)
        }
        try output.write(encoded(value), to: snapshotKey(for: snapshot.id), as: object)
    }

    /// Writes what one refresh produced: the snapshot, then the state. Neither is flushed: the caller
    /// calls ``syncFolders()`` once for every refresh recorded together.
    public func writeRefresh(_ snapshot: Snapshot, state: WidgetState) throws(AtomicFileError) {
        try write(snapshot, syncsFolder: false)
        try writeState(state, for: snapshot.id, syncsFolder: false)
    }

    /// Makes durable what writes made with `syncsFolder: false` left (the output's `flush()`): for a
    /// folder, the state journal and the renames in the output and the state folder.
    public func syncFolders() {
        output.flush()
    }

    /// The widget's snapshot as last written; nil when there is none, or it cannot be read or is not a
    /// snapshot of this schema.
    public func snapshot(for id: String) -> Snapshot? {
        guard let data = output.read(snapshotKey(for: id)),
            let value = try? JSONReader.read(data, maximumDepth: JSONReader.savedFileDepth)
        else {
            return nil
        }
        return Snapshot(value: value)
    }

    /// The version of `index.json`'s format, which has its own: the snapshots' version 2 left it as it was.
    public static let indexSchemaVersion = 1

    /// Writes `index.json` listing `snapshots` by id.
    ///
    /// - Parameters:
    ///   - snapshots: The widgets' snapshots (their entries are not read).
    ///   - generatedAt: When the index is written.
    ///   - gallery: The gallery page written with it, whose generation (and each card's, as the widget's
    ///     `generation` and its page as `page`) the index carries for the page to follow; `nil` for none.
    ///
    /// With a ``shard``, writes the shard's part `shards/K-of-N.json` instead (the same fields, with
    /// `shard` and `nextWriteAt`), and `index.json` as the manifest of the parts.
    public func writeIndex(_ snapshots: [Snapshot], generatedAt: Date, gallery: GalleryPage? = nil) throws(AtomicFileError) {
        var index = indexObject(snapshots, generatedAt: generatedAt, gallery: gallery)
        if let shard {
            try writeIndexPart(&index, of: snapshots, shard: shard)
            return
        }
        var object = OutputObject.listing(contentType: OutputObject.jsonType)
        if marksChanges { object = object.marked(indexFingerprint(of: .object(index)), heartbeat: OutputObject.contentHeartbeat) }
        try output.write(encoded(.object(index)), to: SnapshotStore.indexKey, as: object)
    }

    /// The object `index.json` holds: the schema's version, when, the gallery's generation and every widget.
    func indexObject(_ snapshots: [Snapshot], generatedAt: Date, gallery: GalleryPage?) -> WidgetObject {
        var cards: [String: GalleryCard] = [:]
        for card in gallery?.cards ?? [] { cards[card.id] = card }
        let widgets = snapshots.sorted { $0.id < $1.id }.map { snapshot -> WidgetValue in
            var widget: WidgetObject = [
                "id": .string(snapshot.id),
                "title": snapshot.title.map(WidgetValue.string) ?? .null,
                "status": .string(snapshot.status.rawValue),
                "file": .string("\(snapshot.id).json"),
                "nextRefreshAt": snapshot.nextRefreshAt.map { .string(Timestamp.string($0)) } ?? .null,
            ]
            if let started = snapshot.refreshStartedAt { widget["refreshStartedAt"] = .string(Timestamp.string(started)) }
            if let card = cards[snapshot.id] {
                widget["page"] = .string("\(snapshot.id).html")
                widget["generation"] = .string(card.generation)
            }
            return .object(widget)
        }
        var index: WidgetObject = [
            "schemaVersion": .number(WidgetNumber(SnapshotStore.indexSchemaVersion)),
            "generatedAt": .string(Timestamp.string(generatedAt)),
        ]
        if let gallery { index["generation"] = .string(gallery.generation) }
        index["widgets"] = .array(widgets)
        return index
    }

    /// Deletes the snapshot of a widget that no longer exists, with its page and its history (its state
    /// is kept, in case it returns).
    public func removeSnapshot(for id: String) {
        output.remove(snapshotKey(for: id))
        history.remove(id)
        output.remove(pageKey(for: id))
        pageFingerprints.remove(id)
    }

    /// The ids that have a snapshot (a history, `<id>.history.json`, is not one).
    public func snapshotIDs() -> [String] {
        output.names(in: "").filter {
            $0.hasSuffix(".json") && $0 != SnapshotStore.indexKey && !$0.hasPrefix(".") && !$0.hasSuffix(WidgetHistory.fileSuffix)
        }
        .map { String($0.dropLast(5)) }.sorted()
    }

    // MARK: - Metrics

    /// Replaces `widgetd.prom` (with a ``shard``, `shards/K-of-N.prom`) with `text`, the metrics in
    /// Prometheus text format.
    public func writeMetrics(_ text: String) throws(AtomicFileError) {
        var object = OutputObject.listing(contentType: OutputObject.metricsType)
        if marksChanges { object = object.marked(SnapshotStore.metricsFingerprint, heartbeat: OutputObject.recordHeartbeat) }
        try output.write(Data(text.utf8), to: metricsObjectKey, as: object)
    }

    // MARK: - Definition problems

    /// The local file of `.state/_problems.json`: the problems of the definitions as last loaded. (A
    /// widget id cannot begin with `_`, so no widget's state can take the name.)
    public var problemsFile: URL { directory.appendingPathComponent(SnapshotStore.problemsKey) }

    /// Records the definitions' problems (an empty list when there are none).
    public func writeDefinitionProblems(_ diagnostics: [Diagnostic]) throws(AtomicFileError) {
        try output.write(encoded(.array(diagnostics.map(\.value))), to: SnapshotStore.problemsKey, as: .state)
    }

    /// The definitions' problems as last recorded, each the object `list --format json` and
    /// `validate --format json` give for it (`Diagnostic.value`): `file`, `line`, `column`, `path`,
    /// `message`, and `"severity": "warning"` for a warning. Records without a file or message are left out.
    public func definitionProblemObjects() -> [WidgetValue] {
        guard let data = output.read(SnapshotStore.problemsKey), let value = try? JSONReader.read(data) else {
            return []
        }
        return (value.array ?? []).filter { $0["file"]?.string != nil && $0["message"]?.string != nil }
    }

    /// The definitions' problems as last recorded, one line each (`FILE:LINE:COL: PATH: MESSAGE`).
    public func definitionProblems() -> [String] {
        definitionProblemObjects().compactMap { problem in
            guard let file = problem["file"]?.string, let message = problem["message"]?.string else { return nil }
            let location = problem["line"]?.number.flatMap { line in problem["column"]?.number.map { ":\(line):\($0)" } } ?? ""
            let path = problem["path"]?.string.map { ": \($0)" } ?? ""
            return "\(file)\(location)\(path): \(message)"
        }
    }

    // MARK: - The daemon

    /// The local file of `.state/_daemon.json`: who writes this output, since when, and when it last
    /// refreshed; with a ``shard``, of `.state/shards/K-of-N/daemon.json`.
    public var daemonFile: URL { directory.appendingPathComponent(daemonRecordKey) }
    /// The key of the daemon's record: ``daemonKey``, or with a ``shard`` `.state/shards/K-of-N/daemon.json`.
    var daemonRecordKey: String { shard.map { shardStateKey($0, "daemon.json") } ?? SnapshotStore.daemonKey }

    /// Records what the daemon writing this output is doing.
    public func writeDaemonRecord(_ record: DaemonRecord) throws(AtomicFileError) {
        var object = OutputObject.state
        if marksChanges { object = object.marked(SnapshotStore.recordFingerprint(of: record), heartbeat: OutputObject.recordHeartbeat) }
        try output.write(encoded(record.value), to: daemonRecordKey, as: object)
    }

    /// What the last daemon that wrote this output recorded, if any. Without a ``shard``, when there is
    /// no `_daemon.json` but exactly one shard's record, that one (the folder of one shard's daemon).
    public func daemonRecord() -> DaemonRecord? {
        guard let data = output.read(daemonRecordKey), let value = try? JSONReader.read(data) else {
            return shard == nil ? onlyShardRecord() : nil
        }
        return DaemonRecord(value: value)
    }

    // MARK: - State

    /// The widget's saved state (an empty one when it has none). To read many, ``states(for:)`` reads
    /// the journal once.
    public func state(for id: String) -> WidgetState {
        states(for: [id])[id] ?? WidgetState()
    }

    /// The saved state of each of `ids` that has one: its latest in the journal (a folder's), else its
    /// object `.state/<id>.json` (an earlier version's file, or an output without a journal).
    public func states(for ids: [String]) -> [String: WidgetState] {
        guard !ids.isEmpty else { return [:] }
        let journal = journalPath.map(StateJournal.read) ?? [:]
        var states: [String: WidgetState] = [:]
        for id in ids {
            if let value = journal[id] {
                states[id] = WidgetState(value: value)
            } else if let state = stateObject(for: id) {
                states[id] = state
            }
        }
        return states
    }

    /// Finds where each widget's latest state is in the journal without reading the states, so that
    /// ``savedState(for:)`` then reads one line per widget: a daemon loading a thousand widgets holds one
    /// whole state at a time, not all of them. (Nothing to do without a journal.)
    public func indexStates() {
        if let journalPath { StateJournal.index(journalPath) }
    }

    /// The widget's saved state read alone (its journal line where this process last saw it written,
    /// else its object), for a refresh that starts from it; `nil` when none is saved.
    public func savedState(for id: String) -> WidgetState? {
        if let journalPath, let value = StateJournal.latest(id: id, path: journalPath) { return WidgetState(value: value) }
        return stateObject(for: id)
    }

    /// Records the widget's state: in a folder, a line appended to the state journal; elsewhere, the
    /// object `.state/<id>.json` replaced.
    ///
    /// - Parameters:
    ///   - state: The state to record.
    ///   - id: The widget's id.
    ///   - syncsFolder: `false` when the caller calls ``syncFolders()`` after several writes; otherwise
    ///     the state is flushed before this returns.
    public func writeState(_ state: WidgetState, for id: String, syncsFolder: Bool = true) throws(AtomicFileError) {
        if let journalPath {
            try StateJournal.append(id: id, state: state.value, to: journalPath)
            if syncsFolder { StateJournal.sync(journalPath) }
        } else {
            var object = OutputObject.state
            object.flush = syncsFolder ? .now : .later
            if marksChanges { object = object.marked(SnapshotStore.stateFingerprint(of: state), heartbeat: OutputObject.contentHeartbeat) }
            try output.write(encoded(state.value), to: stateKey(for: id), as: object)
        }
    }

    /// The state in the object `.state/<id>.json`, if there is one.
    private func stateObject(for id: String) -> WidgetState? {
        guard let data = output.read(stateKey(for: id)),
            let value = try? JSONReader.read(data, maximumDepth: JSONReader.savedFileDepth)
        else { return nil }
        return WidgetState(value: value)
    }

    /// `value` as the store writes JSON: pretty, with a final newline.
    func encoded(_ value: WidgetValue) -> Data {
        JSONWriter.data(value, style: .pretty) + Data([0x0A])
    }
}

/// A problem with the output folder.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var description: String

    /// An error with the message `description`.
    public init(_ description: String) {
        self.description = description
    }
}
