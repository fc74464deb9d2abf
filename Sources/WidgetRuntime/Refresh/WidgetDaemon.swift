import Foundation
public import WidgetCore
import WidgetStages

/// The long-running service behind `widgetd run`: one loop over a priority queue of the widgets' due
/// times (no task or timer per widget).
///
/// At start, a widget whose snapshot is missing or stale, or whose refresh was due while the daemon was
/// down, refreshes at once (once, however many runs were missed); the others wait for their due time,
/// which survives restarts in the state folder. The loop sleeps until the earliest due time or an event
/// (a reload of the definitions, a `widgetd reload` request), so an idle daemon costs nothing. Due
/// widgets refresh concurrently, a bounded number at a time; one widget's failure never stops another.
/// `widgetd reload` requests for a widget within a second after a manual refresh of it are merged into
/// that refresh.
///
/// ```swift
/// let daemon = WidgetDaemon(configuration: configuration)
/// try await daemon.run()   // until the task is cancelled
/// ```
public final class WidgetDaemon: Sendable {
    /// Everything the daemon needs.
    public struct Configuration: Sendable {
        /// The folder of definitions.
        public var definitions: DefinitionDirectory
        /// The output folder.
        public var store: SnapshotStore
        /// Reads and checks definitions.
        public var reader: DefinitionReader
        /// Runs refreshes.
        public var refresher: WidgetRefresher
        /// The source of time.
        public var clock: any WidgetClock
        /// How many widgets refresh at once.
        public var maximumConcurrentRefreshes: Int
        /// When several daemons share the definitions: the one this daemon is; it runs only its widgets.
        public var shard: Shard?
        /// Where the daemon reports, one record at a time.
        public var log: @Sendable (LogRecord) -> Void
        /// Called as the daemon's state changes (ready, reloading, stopping): for a service manager.
        public var lifecycle: @Sendable (LifecycleEvent) -> Void
        /// Whether ``WidgetDaemon/refreshes`` keeps every report until it is read (tests that read them
        /// afterwards). Otherwise it keeps only the newest unread one, so a daemon nobody listens to does
        /// not grow with each refresh.
        public var keepsEveryRefreshReport: Bool

        /// A configuration; by default refreshes run with a plain ``WidgetRefresher``, on the system clock,
        /// 16 at a time, for every widget (no shard), with nothing logged or told of the lifecycle, and
        /// only the newest unread refresh report kept.
        public init(
            definitions: DefinitionDirectory,
            store: SnapshotStore,
            reader: DefinitionReader,
            refresher: WidgetRefresher = WidgetRefresher(),
            clock: any WidgetClock = SystemClock(),
            maximumConcurrentRefreshes: Int = 16,
            shard: Shard? = nil,
            log: @escaping @Sendable (LogRecord) -> Void = { _ in },
            lifecycle: @escaping @Sendable (LifecycleEvent) -> Void = { _ in },
            keepsEveryRefreshReport: Bool = false
        ) {
            self.definitions = definitions
            self.store = store
            self.reader = reader
            self.refresher = refresher
            self.clock = clock
            self.maximumConcurrentRefreshes = maximumConcurrentRefreshes
            self.shard = shard
            self.log = log
            self.lifecycle = lifecycle
            self.keepsEveryRefreshReport = keepsEveryRefreshReport
        }
    }

    /// A change in the daemon's state, as ``Configuration/lifecycle`` hears of it.
    public enum LifecycleEvent: Sendable, Equatable {
        /// The definitions are loaded and the index written; refreshing begins.
        case ready(widgets: Int)
        /// A reload of the definitions begins.
        case reloading
        /// The reload is done.
        case reloaded(widgets: Int)
        /// A stop has begun: no refresh starts any more.
        case stopping
    }

    /// What the daemon was created with; fixed for its life.
    public let configuration: Configuration
    let mailbox = EventMailbox()
    private let refreshStream: AsyncStream<RefreshReport>
    private let refreshContinuation: AsyncStream<RefreshReport>.Continuation

    /// One finished refresh, as reported on ``refreshes``.
    public struct RefreshReport: Sendable {
        /// The widget's id.
        public var id: String
        /// The snapshot the refresh produced.
        public var snapshot: Snapshot
        /// The failure, when the refresh failed or was not run.
        public var error: PipelineError?
    }

    /// A daemon with `configuration`; nothing happens until ``run()`` or ``runOnce()``.
    public init(configuration: Configuration) {
        self.configuration = configuration
        (refreshStream, refreshContinuation) = AsyncStream.makeStream(
            bufferingPolicy: configuration.keepsEveryRefreshReport ? .unbounded : .bufferingNewest(1))
    }

    /// `widgetd reload` requests for a widget that arrive within this many seconds after a manual
    /// refresh of it started are merged into that refresh.
    public static let reloadCoalescingInterval: Double = 1

    /// The refreshes the daemon finishes, in order, for embedders and tests that wait for work: a reader
    /// that falls behind gets only the newest unless ``Configuration/keepsEveryRefreshReport`` is set.
    public var refreshes: AsyncStream<RefreshReport> { refreshStream }

    /// Asks the daemon to reload its definitions (what SIGHUP does).
    public func reloadDefinitions() async {
        await mailbox.post(.reloadDefinitions)
    }

    /// Asks the daemon to look for `widgetd reload` requests (what SIGUSR1 does).
    public func checkReloadRequests() async {
        await mailbox.post(.reloadRequested)
    }

    // MARK: - Once

    /// What `run --once` did.
    public struct OnceReport: Sendable {
        /// The problems of the definitions, in file order.
        public var diagnostics: [Diagnostic]
        /// One outcome for each valid widget refreshed, by id; a refresh interrupted by cancellation has none.
        public var outcomes: [WidgetRefresher.Outcome]
    }

    /// Loads the definitions, refreshes every valid widget once (regardless of schedules and budgets),
    /// writes snapshots, the index, state and metrics.
    ///
    /// - Throws: ``StoreError`` when the output folder cannot be prepared.
    public func runOnce() async throws -> OnceReport {
        try configuration.store.prepare()
        let loaded = loadDefinitions()
        recordProblems(loaded.diagnostics)
        var book = Book(store: configuration.store)
        configuration.store.indexStates()
        for widget in loaded.widgets {
            book.add(widget, saved: configuration.store.savedState(for: widget.id), now: configuration.clock.now(), startup: false)
        }
        let now = configuration.clock.now()
        let outcomes = await refresh(loaded.widgets, book: &book, now: now, respectBudget: false)
        configuration.store.syncFolders()
        book.writeIndexAndMetrics(now: now, log: configuration.log)
        return OnceReport(diagnostics: loaded.diagnostics, outcomes: outcomes)
    }

    // MARK: - Loop

    /// Runs until the calling task is cancelled (SIGTERM and SIGINT cancel it in `widgetd run`).
    ///
    /// - Throws: ``StoreError`` when the output folder cannot be prepared.
    public func run() async throws {
        let store = configuration.store
        try store.prepare()
        var book = Book(store: store)
        reload(into: &book, startup: true)
        book.daemon = DaemonRecord(
            pid: Int(ProcessInfo.processInfo.processIdentifier), startedAt: configuration.clock.now(),
            widgets: book.widgets.count, shard: configuration.shard?.description)
        // Describe the widgets at once, even when none is due: the index may be missing or list
        // widgets removed while the daemon was down.
        book.writeIndexAndMetrics(now: configuration.clock.now(), log: configuration.log)
        defer { refreshContinuation.finish() }
        configuration.lifecycle(.ready(widgets: book.widgets.count))

        var running = RunningRefreshes(limit: max(1, configuration.maximumConcurrentRefreshes))
        while !Task.isCancelled {
            startDue(&book, running: &running)
            markStale(&book, running: running)
            // With refreshes under way the loop waits for them too: it is not idle.
            let wakeAt = [running.isFull ? nil : book.earliestDue, book.staleAt.earliest].compactMap { $0 }.min()
            let mail = await mailbox.wait(until: wakeAt, clock: configuration.clock, busy: !running.isEmpty)
            if Task.isCancelled { break }
            if !mail.finished.isEmpty { record(mail.finished, in: &book, running: &running) }
            for event in mail.events {
                switch event {
                case .reloadDefinitions:
                    configuration.lifecycle(.reloading)
                    reload(into: &book, startup: false)
                    for id in running.ids where book.widgets[id] == nil { running.abandon(id) }
                    book.writeIndexAndMetrics(now: configuration.clock.now(), log: configuration.log)
                    configuration.lifecycle(.reloaded(widgets: book.widgets.count))
                case .reloadRequested:
                    let now = configuration.clock.now()
                    for id in takeReloadRequests() {
                        guard book.widgets[id] != nil else {
                            configuration.log(
                                LogRecord(.warning, "reload-ignored", "\(id): reload requested for an unknown widget; ignored", widget: id))
                            continue
                        }
                        // Requests within a second of the last manual refresh are merged into it.
                        if let last = book.manualRefreshAt[id], now.timeIntervalSince(last) < WidgetDaemon.reloadCoalescingInterval {
                            configuration.log(
                                LogRecord(
                                    .debug, "reload-merged", "\(id): reload requested again within a second; merged into the last one",
                                    widget: id))
                            continue
                        }
                        book.manualRefreshAt[id] = now
                        book.dueAt[id] = now
                        configuration.log(LogRecord(.info, "reload-requested", "\(id): reload requested", widget: id))
                    }
                }
            }
        }
        configuration.lifecycle(.stopping)
        // A refresh under way is abandoned: its widget keeps its last snapshot and state.
        for id in running.ids {
            running.abandon(id)
            configuration.log(
                LogRecord(
                    .notice, "refresh-interrupted", "\(id): refresh interrupted by the stop; its last snapshot stays", widget: id))
        }
        configuration.log(LogRecord(.notice, "stopping", "stopping"))
        book.daemon?.stoppedAt = configuration.clock.now()
        book.writeDaemonRecord(log: configuration.log)
    }

    /// Starts the refreshes that are due, as many as there are free places; the others stay due. A widget
    /// whose refresh is still under way refreshes again once it is done.
    private func startDue(_ book: inout Book, running: inout RunningRefreshes) {
        let now = configuration.clock.now()
        var due = book.due(at: now)
        guard !due.isEmpty else { return }
        // Identical requests of the refreshes started together share one fetch.
        var refresher = configuration.refresher
        refresher.resources.insert(FetchCoalescer())
        while !due.isEmpty, !running.isFull {
            let widget = due.removeFirst()
            if running.contains(widget.id) {
                running.again.insert(widget.id)
                continue
            }
            let kept = book.states[widget.id] ?? WidgetState()
            let onDisk = book.cachedOnDisk.contains(widget.id)
            let start = running.nextStart()
            let mailbox = mailbox
            let store = configuration.store
            let task = Task { [refresher] in
                let started = ContinuousClock.now
                let state = onDisk ? await WidgetDaemon.fullState(widget.id, kept: kept, store: store) : kept
                let outcome = await refresher.refresh(widget, state: state, now: now, respectBudget: true)
                let duration = ContinuousClock.now - started
                // A refresh abandoned (its widget removed, or the daemon stopping) writes nothing.
                let written = Task.isCancelled ? .skipped : await WidgetDaemon.write(outcome, to: store)
                await mailbox.post(FinishedRefresh(id: widget.id, start: start, outcome: outcome, duration: duration, written: written))
            }
            running.add(widget.id, start: start, task: task)
        }
        // No free place: these wait for the next one, still due.
        for widget in due { book.dueAt[widget.id] = now }
    }

    /// Rewrites as `stale` the snapshots whose data turned stale by now, at the moment it did rather than
    /// at the next refresh (which may be an interval away, or a day for a spent budget). A widget whose
    /// refresh is under way is left to it: the refresh writes `stale` itself if it fails.
    private func markStale(_ book: inout Book, running: RunningRefreshes) {
        let now = configuration.clock.now()
        let ids = book.staleAt.popDue(at: now).filter { !running.contains($0) }
        guard !ids.isEmpty else { return }
        let store = configuration.store
        var marked = 0
        for id in ids {
            guard var snapshot = store.snapshot(for: id), snapshot.status == .fresh || snapshot.status == .cached else { continue }
            snapshot.status = .stale
            snapshot.generatedAt = now
            do {
                try store.write(snapshot)
                book.snapshots[id] = Book.summary(of: snapshot)
                book.unwritten[id] = nil
                marked += 1
                configuration.log(
                    LogRecord(
                        .notice, "stale", "\(id): stale, its last good data is from \(snapshot.lastSuccessAt.map(Timestamp.string) ?? "-")",
                        widget: id, status: Snapshot.Status.stale.rawValue, next: snapshot.nextRefreshAt))
            } catch {
                book.writeFailures[id, default: 0] += 1
                book.unwritten[id] = "\(error)"
                configuration.log(
                    LogRecord(.error, "write-failed", "\(id): stale, but it was not written — \(error)", widget: id, error: "\(error)"))
            }
        }
        if marked > 0 { book.writeIndexAndMetrics(now: now, log: configuration.log) }
    }

    /// Takes in finished refreshes (their tasks wrote their files), flushes the folders once, then writes
    /// the index, the metrics and the daemon's record.
    private func record(_ finished: [FinishedRefresh], in book: inout Book, running: inout RunningRefreshes) {
        var recorded = 0
        var fresh = 0
        for refresh in finished {
            // A refresh of a widget removed, or abandoned, meanwhile: nothing of it is kept. Its files may
            // have been written just before; a removed widget's snapshot goes again.
            guard running.finish(refresh.id, start: refresh.start), let widget = book.widgets[refresh.id] else {
                if book.widgets[refresh.id] == nil, case .done = refresh.written { configuration.store.removeSnapshot(for: refresh.id) }
                continue
            }
            book.record(refresh.outcome, for: widget, duration: refresh.duration, written: refresh.written, log: configuration.log)
            refreshContinuation.yield(RefreshReport(id: refresh.id, snapshot: refresh.outcome.snapshot, error: refresh.outcome.error))
            if running.again.remove(refresh.id) != nil { book.dueAt[refresh.id] = configuration.clock.now() }
            recorded += 1
            if refresh.outcome.snapshot.status == .fresh { fresh += 1 }
        }
        guard recorded > 0 else { return }
        let ended = configuration.clock.now()
        book.daemon?.lastWaveAt = ended
        // One flush of each folder for the renames of every refresh recorded here (the index's write
        // flushes the output folder again, which costs nothing more).
        configuration.store.syncFolders()
        book.writeIndexAndMetrics(now: ended, log: configuration.log)
        configuration.log(
            LogRecord(
                .debug, "wave", "wave done: \(recorded) refreshed, \(fresh) fresh, \(running.count) under way; index written",
                next: book.earliestDue,
                details: [
                    "refreshed": .number(WidgetNumber(recorded)), "fresh": .number(WidgetNumber(fresh)),
                    "running": .number(WidgetNumber(running.count)),
                ]))
    }

    /// Loads the definitions into `book`, keeping the last valid version of widgets whose file broke,
    /// and logs what changed.
    private func reload(into book: inout Book, startup: Bool) {
        let log = configuration.log
        let loaded = loadDefinitions()
        for diagnostic in loaded.diagnostics {
            log(LogRecord(.warning, "definition-invalid", "invalid definition: \(diagnostic)", error: "\(diagnostic)"))
        }
        recordProblems(loaded.diagnostics)
        if loaded.files.isEmpty, !loaded.diagnostics.isEmpty, !book.widgets.isEmpty {
            // The folder itself cannot be read (moved away, unmounted): that removes no widget.
            log(
                LogRecord(
                    .error, "definitions-unreadable",
                    "keeping every widget running until \(configuration.definitions.path) can be read again"))
            return
        }
        let now = configuration.clock.now()
        var keep: Set<String> = []
        var added: [String] = []
        var changed: [String] = []
        var removed: [String] = []
        var kept: [String] = []
        // The saved states of the widgets new to the book are read one line each, once the journal is
        // indexed.
        if loaded.widgets.contains(where: { book.widgets[$0.id] == nil }) { configuration.store.indexStates() }
        for widget in loaded.widgets {
            keep.insert(widget.id)
            if let existing = book.widgets[widget.id], existing.definition.fingerprint == widget.definition.fingerprint,
                existing.definition.file == widget.definition.file
            {
                continue
            }
            if book.widgets[widget.id] != nil {
                changed.append(widget.id)
                log(LogRecord(.info, "definition-changed", "\(widget.id): definition changed", widget: widget.id))
            } else {
                added.append(widget.id)
            }
            let isNew = book.widgets[widget.id] == nil
            book.add(widget, saved: isNew ? configuration.store.savedState(for: widget.id) : nil, now: now, startup: isNew)
        }
        for (id, widget) in book.widgets where !keep.contains(id) {
            if loaded.failedFiles.contains(widget.definition.file) {
                kept.append(id)
                log(
                    LogRecord(
                        .warning, "definition-kept",
                        "\(id): keeps running its last valid definition until \(widget.definition.file) is fixed", widget: id))
            } else if !startup {
                removed.append(id)
                log(LogRecord(.info, "definition-removed", "\(id): definition removed", widget: id))
                book.remove(id)
            }
        }
        log(
            WidgetDaemon.reloadSummary(
                startup: startup, widgets: book.widgets.count, added: added, changed: changed, removed: removed,
                keptLastValid: kept, problems: loaded.diagnostics.count))
    }

    /// The line a load of the definitions ends with: `definitions reloaded: 1 added (news), 0 changed,
    /// 1 removed (weather); 12 widgets, 1 problem`.
    static func reloadSummary(
        startup: Bool, widgets: Int, added: [String], changed: [String], removed: [String], keptLastValid: [String],
        problems: Int
    ) -> LogRecord {
        func part(_ ids: [String], _ word: String) -> String {
            let sorted = ids.sorted()
            guard !sorted.isEmpty else { return "0 \(word)" }
            let shown = sorted.prefix(5).joined(separator: ", ") + (sorted.count > 5 ? ", …" : "")
            return "\(sorted.count) \(word) (\(shown))"
        }
        let counts = "\(widgets) widget\(widgets == 1 ? "" : "s"), \(problems) problem\(problems == 1 ? "" : "s")"
        let message =
            startup
            ? "definitions loaded: \(counts)"
            : "definitions reloaded: \(part(added, "added")), \(part(changed, "changed")), \(part(removed, "removed")); \(counts)"
        func list(_ ids: [String]) -> WidgetValue { .array(ids.sorted().map(WidgetValue.string)) }
        var details: WidgetObject = ["widgets": .number(WidgetNumber(widgets)), "problems": .number(WidgetNumber(problems))]
        if !startup {
            // At start every widget is new: the count says it.
            details["added"] = list(added)
            details["changed"] = list(changed)
            details["removed"] = list(removed)
            details["keptLastValid"] = list(keptLastValid)
        }
        return LogRecord(problems > 0 ? .warning : .notice, startup ? "loaded" : "reloaded", message, details: details)
    }

    /// Reads the definitions, keeping only this shard's widgets when the daemon is one of several.
    private func loadDefinitions() -> DefinitionDirectory.LoadResult {
        var loaded = configuration.definitions.load(reader: configuration.reader)
        if let shard = configuration.shard {
            loaded.widgets.removeAll { !shard.owns($0.id) }
        }
        return loaded
    }

    /// Keeps the definitions' problems where `widgetd status` shows them.
    private func recordProblems(_ diagnostics: [Diagnostic]) {
        do {
            try configuration.store.writeDefinitionProblems(diagnostics)
        } catch {
            configuration.log(LogRecord(.error, "write-failed", "\(error)", error: "\(error)"))
        }
    }

    /// Reads and deletes the requests `widgetd reload` left; returns the ids, each once.
    private func takeReloadRequests() -> [String] {
        let folder = configuration.store.stateDirectory.appendingPathComponent("requests")
        // Dot names are `widgetd reload`'s temporary files, about to be renamed into requests: leave them.
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasPrefix(".") }
        for name in names { try? FileManager.default.removeItem(at: folder.appendingPathComponent(name)) }
        return Array(Set(names)).sorted()
    }

    // MARK: - Refreshing

    private func refresh(
        _ widgets: [WidgetPipeline],
        book: inout Book,
        now: Date,
        respectBudget: Bool
    ) async -> [WidgetRefresher.Outcome] {
        // Identical requests within this wave share one fetch.
        let refresher = {
            var refresher = configuration.refresher
            refresher.resources.insert(FetchCoalescer())
            return refresher
        }()
        let limit = max(1, configuration.maximumConcurrentRefreshes)
        var outcomes: [WidgetRefresher.Outcome] = []
        let states = book.states
        let store = configuration.store
        await withTaskGroup(of: (WidgetPipeline, WidgetRefresher.Outcome, Duration, Written).self) { group in
            var iterator = widgets.makeIterator()
            func startNext() -> Bool {
                guard let widget = iterator.next() else { return false }
                let kept = states[widget.id] ?? WidgetState()
                let onDisk = book.cachedOnDisk.contains(widget.id)
                group.addTask {
                    let started = ContinuousClock.now
                    let state = onDisk ? await WidgetDaemon.fullState(widget.id, kept: kept, store: store) : kept
                    let outcome = await refresher.refresh(widget, state: state, now: now, respectBudget: respectBudget)
                    let duration = ContinuousClock.now - started
                    // Stopping, not failing: the widget keeps its last snapshot and state.
                    let stopped = outcome.error?.isCancellation == true || (outcome.error != nil && Task.isCancelled)
                    let written = stopped ? .skipped : await WidgetDaemon.write(outcome, to: store)
                    return (widget, outcome, duration, written)
                }
                return true
            }
            for _ in 0..<limit where !startNext() { break }
            for await (widget, outcome, duration, written) in group {
                if case .skipped = written {
                    configuration.log(
                        LogRecord(
                            .notice, "refresh-interrupted", "\(widget.id): refresh interrupted by the stop; its last snapshot stays",
                            widget: widget.id))
                    _ = startNext()
                    continue
                }
                book.record(outcome, for: widget, duration: duration, written: written, log: configuration.log)
                refreshContinuation.yield(RefreshReport(id: widget.id, snapshot: outcome.snapshot, error: outcome.error))
                outcomes.append(outcome)
                _ = startNext()
            }
        }
        return outcomes.sorted { $0.snapshot.id < $1.snapshot.id }
    }
}

// MARK: - Writing

extension WidgetDaemon {
    /// How a finished refresh's files were written.
    enum Written: Sendable {
        /// The snapshot and the state are on disk; their folders are flushed with the others recorded
        /// together.
        case done
        /// Not attempted: the refresh was abandoned or interrupted.
        case skipped
        /// The write failed, with why: front-ends still read the previous snapshot.
        case failed(String)
    }

    /// The threads refreshes write on: an `fsync` blocks its thread for as long as the disk takes, and the
    /// cooperative pool's few threads must not wait for disks. Refreshes finishing together write at once,
    /// so their flushes share the file system's journal commits.
    private static let writeQueue = DispatchQueue(label: "widgetd.writes", attributes: .concurrent)

    /// The state a refresh starts from: `kept` (the book's, without its cached fetch values) with those
    /// values read back from the state journal, on a thread of the write queue.
    static func fullState(_ id: String, kept: WidgetState, store: SnapshotStore) async -> WidgetState {
        await withCheckedContinuation { continuation in
            writeQueue.async {
                var state = kept
                if let saved = store.savedState(for: id) {
                    for (stage, fetch) in saved.fetchCache where state.fetchCache[stage]?.validators == fetch.validators {
                        state.fetchCache[stage] = fetch
                    }
                }
                // A value that could not be read back is no cache: the next fetch is unconditional.
                state.fetchCache = state.fetchCache.filter { $0.value.value != .null }
                continuation.resume(returning: state)
            }
        }
    }

    /// Writes what a refresh produced, snapshot then state, without flushing the folders.
    static func write(_ outcome: WidgetRefresher.Outcome, to store: SnapshotStore) async -> Written {
        await withCheckedContinuation { continuation in
            writeQueue.async {
                do {
                    try store.writeRefresh(outcome.snapshot, state: outcome.state)
                    continuation.resume(returning: .done)
                } catch {
                    continuation.resume(returning: .failed("\(error)"))
                }
            }
        }
    }
}

// MARK: - Book

extension WidgetDaemon {
    /// The daemon's view of its widgets: definitions, due times, last snapshots, counters.
    struct Book {
        let store: SnapshotStore
        var widgets: [String: WidgetPipeline] = [:]
        var dueAt = DueQueue()
        /// When each widget's snapshot, served `fresh` or `cached`, turns `stale` (its last good data passes
        /// `staleAfter`): the daemon wakes then and rewrites it, without waiting for the next refresh.
        var staleAt = DueQueue()
        /// When each widget's last manual refresh (`widgetd reload`) was asked for.
        var manualRefreshAt: [String: Date] = [:]
        /// Each widget's last snapshot without its entries: the index and the metrics need only its
        /// status and dates, and the entries are on disk.
        var snapshots: [String: Snapshot] = [:]
        var refreshCounts: [String: [Snapshot.Status: Int]] = [:]
        var lastDurations: [String: Double] = [:]
        var failures: [String: [String: Int]] = [:]
        /// Snapshot or state writes that failed, by widget, since the daemon started.
        var writeFailures: [String: Int] = [:]
        /// The widgets whose last snapshot could not be written, with why: `status` shows them.
        var unwritten: [String: String] = [:]
        var fetchSeconds: [String: Double] = [:]
        var fetchBytes: [String: Int] = [:]
        var budgets: [String: (used: Int, limit: Int)] = [:]
        /// Each widget's state as last read or written, so a wave reads no state file, but without the
        /// parsed values of its fetch cache (validators kept, values `null`): a parsed payload is most of
        /// a widget's memory, and it is in the state journal, which a refresh reads it back from.
        var states: [String: WidgetState] = [:]
        /// The widgets whose cached fetch values are only in the state journal.
        var cachedOnDisk: Set<String> = []
        /// The asset paths (`assets/…`) each widget's snapshot and kept items refer to.
        var assetReferences: [String: Set<String>] = [:]
        /// Whether a refresh since the last collection may have left an image unused.
        var assetsChanged = true
        /// What the daemon records about itself for `widgetd status`; nil for `run --once`.
        var daemon: DaemonRecord?

        init(store: SnapshotStore) {
            self.store = store
        }

        /// Adds or replaces `widget`. A widget new to the book starts from `saved`, its saved state (none:
        /// an empty one); a changed one keeps the state it has.
        mutating func add(_ widget: WidgetPipeline, saved: WidgetState?, now: Date, startup: Bool) {
            let id = widget.id
            let isNew = widgets[id] == nil
            widgets[id] = widget
            let state = isNew ? saved ?? WidgetState() : states[id] ?? WidgetState()
            let snapshot = store.snapshot(for: id)
            if isNew { keep(state, for: id, savedOnDisk: true) }
            assetReferences[id] = Book.assetPaths(in: [snapshot?.value, state.value])
            if let snapshot { snapshots[id] = Book.summary(of: snapshot) }
            let policy = widget.definition.refreshPolicy
            let stale = snapshot == nil || state.lastSuccessAt == nil || policy.isStale(lastSuccessAt: state.lastSuccessAt, at: now)
            watchStaleness(of: id, status: snapshot?.status, lastSuccessAt: state.lastSuccessAt, policy: policy)
            if stale || !startup {
                dueAt[id] = now
            } else if let next = state.nextDueAt {
                dueAt[id] = max(next, now)  // a run missed while the daemon was down is due now, once
            } else {
                dueAt[id] = nil
            }
        }

        /// Wakes the daemon when the data of a snapshot served `fresh` or `cached` turns stale.
        mutating func watchStaleness(of id: String, status: Snapshot.Status?, lastSuccessAt: Date?, policy: RefreshPolicy) {
            guard status == .fresh || status == .cached else {
                staleAt[id] = nil
                return
            }
            staleAt[id] = policy.staleAt(lastSuccessAt: lastSuccessAt)
        }

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

        /// `snapshot` without its entries.
        static func summary(of snapshot: Snapshot) -> Snapshot {
            var summary = snapshot
            summary.entries = []
            return summary
        }

        mutating func remove(_ id: String) {
            widgets[id] = nil
            dueAt[id] = nil
            staleAt[id] = nil
            manualRefreshAt[id] = nil
            snapshots[id] = nil
            states[id] = nil
            cachedOnDisk.remove(id)
            assetReferences[id] = nil
            assetsChanged = true
            store.removeSnapshot(for: id)
        }

        /// The widgets due at `now`, sorted by id.
        mutating func due(at now: Date) -> [WidgetPipeline] {
            dueAt.popDue(at: now).compactMap { widgets[$0] }
        }

        var earliestDue: Date? {
            mutating get { dueAt.earliest }
        }

        /// Takes in a finished refresh whose files `written` says how the writing went.
        mutating func record(
            _ outcome: WidgetRefresher.Outcome, for widget: WidgetPipeline, duration: Duration, written: Written,
            log: (LogRecord) -> Void
        ) {
            let id = widget.id
            let snapshot = outcome.snapshot
            snapshots[id] = Book.summary(of: snapshot)
            if case .done = written {
                keep(outcome.state, for: id, savedOnDisk: true)
            } else {
                keep(outcome.state, for: id, savedOnDisk: false)
            }
            let references = Book.assetPaths(in: [snapshot.value, outcome.state.value])
            if references != assetReferences[id] {
                assetReferences[id] = references
                assetsChanged = true
            }
            dueAt[id] = outcome.state.nextDueAt
            if case .done = written {
                watchStaleness(
                    of: id, status: snapshot.status, lastSuccessAt: outcome.state.lastSuccessAt, policy: widget.definition.refreshPolicy)
            }
            refreshCounts[id, default: [:]][snapshot.status, default: 0] += 1
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            lastDurations[id] = seconds
            if let error = outcome.error {
                let stage =
                    switch error.stage {
                    case .budget: "schedule"
                    case .deadline: "deadline"
                    default: error.kind.rawValue
                    }
                failures[id, default: [:]][stage, default: 0] += 1
            }
            if let seconds = outcome.fetchSeconds { fetchSeconds[id] = seconds }
            if let bytes = outcome.fetchBytes { fetchBytes[id] = bytes }
            budgets[id] = (outcome.state.budgetUsed, widget.definition.schedule.maxPerDay)
            var writeError: String?
            if case .failed(let reason) = written {
                writeError = reason
                writeFailures[id, default: 0] += 1
                unwritten[id] = reason
            } else {
                unwritten[id] = nil
            }
            let next = snapshot.nextRefreshAt.map { "; next at \(Timestamp.string($0))" } ?? ""
            let count = "\(snapshot.entries.count) entr\(snapshot.entries.count == 1 ? "y" : "ies")"
            var record = LogRecord(
                .info, "refreshed", "\(id): fresh, \(count) in \(Int(seconds * 1000)) ms\(next)", widget: id,
                status: snapshot.status.rawValue, duration: seconds, entries: snapshot.entries.count, next: snapshot.nextRefreshAt)
            if let error = outcome.error {
                record.level = .warning
                record.event = "refresh-failed"
                record.message = "\(id): \(snapshot.status.rawValue), \(count) — \(error)\(next)"
                record.error = "\(error)"
            }
            if let writeError {
                // The refresh's result exists only in memory: front-ends still read the previous snapshot.
                record.level = .error
                record.event = "write-failed"
                record.message = "\(id): \(snapshot.status.rawValue), \(count), but it was not written — \(writeError)\(next)"
                record.error = writeError
            }
            log(record)
        }

        /// The `assets/…` strings anywhere in `values`.
        static func assetPaths(in values: [WidgetValue?]) -> Set<String> {
            var paths: Set<String> = []
            func visit(_ value: WidgetValue) {
                switch value {
                case .string(let text) where text.hasPrefix("assets/"): paths.insert(text)
                case .array(let elements): elements.forEach(visit)
                case .object(let object): object.values.forEach(visit)
                default: break
                }
            }
            values.compactMap { $0 }.forEach(visit)
            return paths
        }

        mutating func writeIndexAndMetrics(now: Date, log: (LogRecord) -> Void) {
            do {
                try store.writeIndex(Array(snapshots.values), generatedAt: now)
                try AtomicFile.write(Data(metricsText(now: now).utf8), to: store.metricsFile)
            } catch {
                log(LogRecord(.error, "write-failed", "\(error)", error: "\(error)"))
            }
            writeDaemonRecord(log: log)
            collectUnusedAssets(log: log)
        }

        /// Writes ``daemon``, with the current number of widgets.
        mutating func writeDaemonRecord(log: (LogRecord) -> Void) {
            guard var record = daemon else { return }
            record.widgets = widgets.count
            record.unwritten = unwritten
            daemon = record
            do {
                try store.writeDaemonRecord(record)
            } catch {
                log(LogRecord(.error, "write-failed", "\(error)", error: "\(error)"))
            }
        }

        /// Deletes downloaded images that no snapshot, and no item kept for fallback, refers to any more;
        /// only after a refresh changed what is referred to.
        mutating func collectUnusedAssets(log: (LogRecord) -> Void) {
            guard assetsChanged else { return }
            assetsChanged = false
            let folder = store.assetsDirectory
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path), !names.isEmpty else { return }
            let referenced = assetReferences.values.reduce(into: Set<String>()) { $0.formUnion($1) }
            let deleted = AssetGarbageCollector.collect(in: folder, referencedBy: referenced.sorted().map(WidgetValue.string))
            if !deleted.isEmpty {
                log(
                    LogRecord(
                        .debug, "assets-deleted", "deleted \(deleted.count) unused asset\(deleted.count == 1 ? "" : "s")",
                        details: ["deleted": .number(WidgetNumber(deleted.count))]))
            }
        }

        /// The Prometheus text exposition of the daemon's counters and gauges.
        func metricsText(now: Date) -> String {
            var lines: [String] = []
            func label(_ text: String) -> String {
                // Ids rarely hold either character: skip the two replacements, a thousand widgets × ten families.
                guard text.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") }) else { return text }
                return text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            }
            /// One metric family: its help and type lines, then a sample per (labels, value), in order.
            func family(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
                lines.append("# HELP \(name) \(help)")
                lines.append("# TYPE \(name) \(type)")
                for sample in samples {
                    lines.append(sample.labels.isEmpty ? "\(name) \(sample.value)" : "\(name){\(sample.labels)} \(sample.value)")
                }
            }
            func widget(_ id: String) -> String { "widget=\"\(label(id))\"" }
            let statuses = Snapshot.Status.allCases
            family(
                "widgetd_refreshes_total", "counter", "Refreshes run since the daemon started, by resulting status.",
                refreshCounts.keys.sorted().flatMap { id in
                    statuses.map { ("\(widget(id)),status=\"\($0.rawValue)\"", "\(refreshCounts[id]?[$0] ?? 0)") }
                })
            family(
                "widgetd_widget_status", "gauge", "Current status of each widget (1 for the current status).",
                snapshots.keys.sorted().flatMap { id in
                    statuses.map { ("\(widget(id)),status=\"\($0.rawValue)\"", snapshots[id]?.status == $0 ? "1" : "0") }
                })
            family(
                "widgetd_last_success_timestamp_seconds", "gauge", "When each widget last refreshed successfully.",
                snapshots.keys.sorted().compactMap { id in
                    snapshots[id]?.lastSuccessAt.map { (widget(id), "\(Int($0.timeIntervalSince1970))") }
                })
            family(
                "widgetd_refresh_duration_seconds", "gauge", "How long each widget's last refresh took.",
                lastDurations.keys.sorted().map { (widget($0), String(format: "%.6f", lastDurations[$0]!)) })
            family(
                "widgetd_refresh_failures_total", "counter", "Failed refreshes since the daemon started, by failing stage.",
                failures.keys.sorted().flatMap { id in
                    failures[id]!.keys.sorted().map { ("\(widget(id)),stage=\"\($0)\"", "\(failures[id]![$0]!)") }
                })
            family(
                "widgetd_write_failures_total", "counter", "Snapshot or state writes that failed since the daemon started.",
                writeFailures.keys.sorted().map { (widget($0), "\(writeFailures[$0]!)") })
            family(
                "widgetd_fetch_duration_seconds", "gauge", "Time spent fetching in each widget's last successful refresh.",
                fetchSeconds.keys.sorted().map { (widget($0), String(format: "%.6f", fetchSeconds[$0]!)) })
            family(
                "widgetd_fetch_bytes", "gauge", "Bytes fetched in each widget's last successful refresh.",
                fetchBytes.keys.sorted().map { (widget($0), "\(fetchBytes[$0]!)") })
            family(
                "widgetd_budget_used", "gauge", "Refreshes used today, in the widget's zone.",
                budgets.keys.sorted().map { (widget($0), "\(budgets[$0]!.used)") })
            family(
                "widgetd_budget_limit", "gauge", "The most refreshes a day (maxPerDay).",
                budgets.keys.sorted().map { (widget($0), "\(budgets[$0]!.limit)") })
            family(
                "widgetd_snapshot_age_seconds", "gauge", "Age of the data each widget serves.",
                snapshots.keys.sorted().compactMap { id in
                    snapshots[id]?.lastSuccessAt.map { (widget(id), "\(max(0, Int(now.timeIntervalSince($0))))") }
                })
            family("widgetd_widgets", "gauge", "Widgets loaded.", [("", "\(widgets.count)")])
            return lines.joined(separator: "\n") + "\n"
        }
    }
}

// MARK: - Refreshes under way

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
