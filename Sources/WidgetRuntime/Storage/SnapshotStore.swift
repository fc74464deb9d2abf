public import Foundation
public import WidgetCore
public import WidgetJSON

/// The output folder: snapshots, the index, assets, metrics and the daemon's private state.
///
/// ```
/// OUT/<id>.json        one snapshot per widget, replaced atomically
/// OUT/index.json       every widget: id, title, status, file, nextRefreshAt (and the gallery's generation)
/// OUT/index.html       the gallery page; OUT/<id>.html one widget's page (see GalleryPage)
/// OUT/assets/          downloaded images
/// OUT/widgetd.prom     Prometheus text format
/// OUT/.state/           what must survive a restart (front-ends ignore it): every widget's state in
///                      _states.jsonl (see StateJournal), the daemon's record, the lock
/// ```
///
/// With a ``shard`` (`run --shard K/N`), the index, the gallery and the metrics are the shard's part
/// (see `SnapshotStore+Shards.swift`): `shards/K-of-N.json`, `.html` and `.prom`, with `index.json` a
/// manifest of the N parts and `index.html` the gallery of them all, the same bytes from every shard.
public struct SnapshotStore: Sendable {
    /// The output folder, `OUT`.
    public let directory: URL
    /// The shard whose part of the index, gallery and metrics this store writes; `nil` (the default)
    /// for a daemon that runs every widget.
    public var shard: Shard?
    /// `directory`'s path: the files a refresh writes are named from it as text (building a URL for each
    /// was a measurable part of writing a thousand small files).
    let path: String

    /// The store of the output folder `directory`; nothing is created until ``prepare()`` or a write.
    public init(directory: URL) {
        self.directory = directory
        path = directory.path
    }

    /// `OUT/.state/`: the daemon's private state, which front-ends ignore.
    public var stateDirectory: URL { directory.appendingPathComponent(".state", isDirectory: true) }
    /// `OUT/assets/`: the images the `assets` transform downloaded.
    public var assetsDirectory: URL { directory.appendingPathComponent("assets", isDirectory: true) }
    /// `OUT/index.json`: every widget's id, title, status, file and next refresh.
    public var indexFile: URL { directory.appendingPathComponent("index.json") }
    /// `OUT/widgetd.prom`: the metrics, in Prometheus text format; with a ``shard``, its own
    /// `OUT/shards/K-of-N.prom`.
    public var metricsFile: URL {
        shard.map { shardPartFile($0, extension: "prom") } ?? directory.appendingPathComponent("widgetd.prom")
    }

    /// `OUT/<id>.json`: the widget's snapshot.
    public func snapshotFile(for id: String) -> URL { directory.appendingPathComponent("\(id).json") }
    /// The path of ``snapshotFile(for:)``.
    func snapshotPath(for id: String) -> String { "\(path)/\(id).json" }
    /// Where earlier versions kept a widget's state; still read for ids the journal does not hold.
    public func stateFile(for id: String) -> URL { stateDirectory.appendingPathComponent("\(id).json") }
    /// Every widget's state, one line per write (see `StateJournal`).
    public var stateJournalFile: URL { stateDirectory.appendingPathComponent(StateJournal.fileName) }
    /// The path of ``stateJournalFile``.
    var journalPath: String { "\(path)/.state/\(StateJournal.fileName)" }

    /// Creates the folders and removes temporary files that an interrupted write left behind. Only the
    /// process that holds the output folder's lock may call it: another's writes under way would go.
    ///
    /// - Throws: ``StoreError`` when the folder cannot be created.
    public func prepare() throws(StoreError) {
        try createFolders()
        for folder in [directory, stateDirectory] {
            AtomicFile.removeLeftovers(in: folder)
        }
        // Earlier versions kept each card in a file of its own; the widget's page holds it now.
        try? FileManager.default.removeItem(at: stateDirectory.appendingPathComponent("cards", isDirectory: true))
        StateJournal.repair(journalPath)
    }

    /// Creates the output folder and its state folder.
    ///
    /// - Throws: ``StoreError`` when a folder cannot be created.
    public func createFolders() throws(StoreError) {
        for folder in [directory, stateDirectory] {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw StoreError("Cannot create the output folder \(folder.path): \(error.localizedDescription)")
            }
        }
    }

    // MARK: - Snapshots

    /// Replaces the widget's snapshot file.
    ///
    /// - Parameters:
    ///   - snapshot: The snapshot; its `id` names the file.
    ///   - syncsFolder: `false` when the caller calls ``syncFolders()`` after several writes.
    ///   - syncsData: `false` for a snapshot that stands only until the next (a `refreshing` one).
    public func write(_ snapshot: Snapshot, syncsFolder: Bool = true, syncsData: Bool = true) throws(AtomicFileError) {
        try AtomicFile.write(
            JSONWriter.data(snapshot.value, style: .pretty) + Data([0x0A]), toPath: snapshotPath(for: snapshot.id),
            syncsFolder: syncsFolder, syncsData: syncsData)
    }

    /// Writes what one refresh produced: the snapshot, then the state. Neither the folder nor the
    /// state journal is flushed: the caller calls ``syncFolders()`` once for every refresh recorded
    /// together.
    public func writeRefresh(_ snapshot: Snapshot, state: WidgetState) throws(AtomicFileError) {
        try write(snapshot, syncsFolder: false)
        try writeState(state, for: snapshot.id, syncsFolder: false)
    }

    /// Flushes what writes made with `syncsFolder: false` left unflushed: the state journal, and the
    /// renames in the output and the state folder.
    public func syncFolders() {
        StateJournal.sync(journalPath)
        AtomicFile.syncFolder(directory)
        AtomicFile.syncFolder(stateDirectory)
    }

    /// The widget's snapshot as last written; nil when there is none, or the file cannot be read or is
    /// not a snapshot of this schema.
    public func snapshot(for id: String) -> Snapshot? {
        guard let data = AtomicFile.contentsWithoutFollowingLinks(atPath: snapshotPath(for: id)),
            let value = try? JSONReader.read(data, maximumDepth: JSONReader.savedFileDepth)
        else {
            return nil
        }
        return Snapshot(value: value)
    }

    /// The version of `index.json`'s format, which has its own: the snapshots' version 2 left it as it was.
    public static let indexSchemaVersion = 1

    /// Writes `OUT/index.json` listing `snapshots` by id.
    ///
    /// - Parameters:
    ///   - snapshots: The widgets' snapshots (their entries are not read).
    ///   - generatedAt: When the index is written.
    ///   - gallery: The gallery page written with it, whose generation (and each card's, as the widget's
    ///     `generation` and its page as `page`) the index carries for the page to follow; `nil` for none.
    ///
    /// With a ``shard``, writes the shard's part `OUT/shards/K-of-N.json` instead (the same fields, with
    /// `shard` and `nextWriteAt`), and `OUT/index.json` as the manifest of the parts.
    public func writeIndex(_ snapshots: [Snapshot], generatedAt: Date, gallery: GalleryPage? = nil) throws(AtomicFileError) {
        var index = indexObject(snapshots, generatedAt: generatedAt, gallery: gallery)
        if let shard {
            try writeIndexPart(&index, of: snapshots, shard: shard)
            return
        }
        try AtomicFile.write(JSONWriter.data(.object(index), style: .pretty) + Data([0x0A]), to: indexFile)
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

    /// Deletes the snapshot of a widget that no longer exists, with its page (its state is kept, in case
    /// it returns).
    public func removeSnapshot(for id: String) {
        try? FileManager.default.removeItem(at: snapshotFile(for: id))
        try? FileManager.default.removeItem(at: pageFile(for: id))
    }

    /// The ids that have a snapshot file.
    public func snapshotIDs() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") && $0 != "index.json" && !$0.hasPrefix(".") }
            .map { String($0.dropLast(5)) }.sorted()
    }

    // MARK: - Definition problems

    /// `OUT/.state/_problems.json`: the problems of the definitions as last loaded. (A widget id cannot
    /// begin with `_`, so no widget's state file can take the name.)
    public var problemsFile: URL { stateDirectory.appendingPathComponent("_problems.json") }

    /// Records the definitions' problems (an empty list when there are none).
    public func writeDefinitionProblems(_ diagnostics: [Diagnostic]) throws(AtomicFileError) {
        try AtomicFile.write(JSONWriter.data(.array(diagnostics.map(\.value)), style: .pretty) + Data([0x0A]), to: problemsFile)
    }

    /// The definitions' problems as last recorded, each the object `list --format json` and
    /// `validate --format json` give for it (`Diagnostic.value`): `file`, `line`, `column`, `path`,
    /// `message`, and `"severity": "warning"` for a warning. Records without a file or message are left out.
    public func definitionProblemObjects() -> [WidgetValue] {
        guard let data = AtomicFile.contentsWithoutFollowingLinks(atPath: problemsFile.path), let value = try? JSONReader.read(data) else {
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

    /// `OUT/.state/_daemon.json`: who writes this folder, since when, and when it last refreshed; with a
    /// ``shard``, `OUT/.state/shards/K-of-N/daemon.json`.
    public var daemonFile: URL {
        shard.map { shardStateFolder($0).appendingPathComponent("daemon.json") } ?? stateDirectory.appendingPathComponent("_daemon.json")
    }

    /// Records what the daemon writing this folder is doing.
    public func writeDaemonRecord(_ record: DaemonRecord) throws(AtomicFileError) {
        if let shard { try createFolder(shardStateFolder(shard)) }
        try AtomicFile.write(JSONWriter.data(record.value, style: .pretty) + Data([0x0A]), to: daemonFile)
    }

    /// What the last daemon that wrote this folder recorded, if any. Without a ``shard``, when there is no
    /// `_daemon.json` but exactly one shard's record, that one (the folder of one shard's daemon).
    public func daemonRecord() -> DaemonRecord? {
        guard let data = AtomicFile.contentsWithoutFollowingLinks(atPath: daemonFile.path), let value = try? JSONReader.read(data) else {
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

    /// The saved state of each of `ids` that has one: its latest in the journal, else the file an earlier
    /// version wrote.
    public func states(for ids: [String]) -> [String: WidgetState] {
        guard !ids.isEmpty else { return [:] }
        let journal = StateJournal.read(journalPath)
        var states: [String: WidgetState] = [:]
        for id in ids {
            if let value = journal[id] {
                states[id] = WidgetState(value: value)
            } else if let data = AtomicFile.contentsWithoutFollowingLinks(atPath: stateFile(for: id).path),
                let value = try? JSONReader.read(data, maximumDepth: JSONReader.savedFileDepth)
            {
                states[id] = WidgetState(value: value)
            }
        }
        return states
    }

    /// Finds where each widget's latest state is in the journal without reading the states, so that
    /// ``savedState(for:)`` then reads one line per widget: a daemon loading a thousand widgets holds one
    /// whole state at a time, not all of them.
    public func indexStates() {
        StateJournal.index(journalPath)
    }

    /// The widget's saved state read alone (its journal line where this process last saw it written),
    /// for a refresh that starts from it; `nil` when none is saved.
    public func savedState(for id: String) -> WidgetState? {
        if let value = StateJournal.latest(id: id, path: journalPath) { return WidgetState(value: value) }
        guard let data = AtomicFile.contentsWithoutFollowingLinks(atPath: stateFile(for: id).path),
            let value = try? JSONReader.read(data, maximumDepth: JSONReader.savedFileDepth)
        else { return nil }
        return WidgetState(value: value)
    }

    /// Records the widget's state: a line appended to the state journal.
    ///
    /// - Parameters:
    ///   - state: The state to record.
    ///   - id: The widget's id.
    ///   - syncsFolder: `false` when the caller calls ``syncFolders()`` after several writes; otherwise
    ///     the journal is flushed before this returns.
    public func writeState(_ state: WidgetState, for id: String, syncsFolder: Bool = true) throws(AtomicFileError) {
        try StateJournal.append(id: id, state: state.value, to: journalPath)
        if syncsFolder { StateJournal.sync(journalPath) }
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
