import Foundation
import WidgetCore
import WidgetJSON

extension WidgetDaemon {
    /// The daemon's view of its widgets: their pipelines and last snapshots, with the parts that each
    /// keep one thing: ``RefreshSchedule`` (when), ``StateCache`` (what each widget remembers),
    /// ``DaemonMetrics`` (counters) and ``AssetJanitor`` (which images are still used).
    struct Book {
        let store: SnapshotStore
        var widgets: [String: WidgetPipeline] = [:]
        var schedule = RefreshSchedule()
        var states = StateCache()
        var metrics = DaemonMetrics()
        var assets = AssetJanitor()
        /// What the index and the metrics read of each widget's last snapshot: its status and dates (its
        /// entries, error and warnings are on disk).
        var snapshots: [String: SnapshotSummary] = [:]
        /// The widgets whose last snapshot could not be written, with why: `status` shows them.
        var unwritten: [String: String] = [:]
        /// What the daemon records about itself for `widgetd status`; nil for `run --once`.
        var daemon: DaemonRecord?
        /// The widgets whose card on disk (in their page) may have been rendered with a view their
        /// definition has since changed: the next gallery renders them again, unless a refresh does first.
        var cardsToRender: Set<String> = []
        /// The cards refreshes wrote since the last gallery, which takes them from here rather than
        /// reading their pages back.
        var writtenCards: [String: GalleryCard] = [:]
        /// How often the index and the rest are written while refreshes are under way.
        var indexPacing = IndexPacing()

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
            if isNew {
                // The full state, before it is slimmed: its fallback items may refer to images.
                assets.update(id, snapshot: snapshot, state: state)
                states.keep(state, for: id, savedOnDisk: true)
            }
            if let snapshot { snapshots[id] = SnapshotSummary(snapshot) }
            // The card was rendered with the view this definition may have changed: the next gallery
            // renders it again.
            cardsToRender.insert(id)
            writtenCards[id] = nil
            schedule.start(widget, state: state, snapshot: snapshot, now: now, startup: startup)
        }

        /// Forgets a widget and deletes its snapshot (its state is kept, in case it returns).
        mutating func remove(_ id: String) {
            widgets[id] = nil
            schedule.remove(id)
            snapshots[id] = nil
            cardsToRender.remove(id)
            writtenCards[id] = nil
            states.remove(id)
            assets.remove(id)
            store.removeSnapshot(for: id)
        }

        /// At most `limit` of the widgets due at `now`, the earliest due first (by id when due together).
        mutating func due(at now: Date, limit: Int) -> [WidgetPipeline] {
            schedule.dueAt.popDue(at: now, limit: limit).compactMap { widgets[$0] }
        }

        /// When `id` is due: for a widget ``due(at:limit:)`` gave, the time its refresh starts late from.
        func dueTime(of id: String) -> Date? {
            schedule.dueAt[id]
        }

        // MARK: - Scheduling

        /// Makes the widgets `ids` that the book still has due at `now`.
        mutating func makeDue(_ ids: [String], at now: Date) {
            for id in ids where widgets[id] != nil { schedule.dueAt[id] = now }
        }

        /// Whether a widget is due at `now` (waiting for a place, in a wave larger than the places).
        mutating func hasDue(at now: Date) -> Bool {
            schedule.dueAt.earliest.map { $0 <= now } ?? false
        }

        /// The earliest due time, for the log.
        var nextDue: Date? {
            mutating get { schedule.dueAt.earliest }
        }

        /// When the loop must wake next (see ``RefreshSchedule/wakeTime(refreshesCanStart:)``), or
        /// earlier for a write of the index put off (``IndexPacing``).
        mutating func wakeTime(refreshesCanStart: Bool) -> Date? {
            [schedule.wakeTime(refreshesCanStart: refreshesCanStart), indexPacing.deadline].compactMap { $0 }.min()
        }

        /// The widgets whose snapshot turned stale by `now`, taken off the staleness clock.
        mutating func turningStale(at now: Date) -> [String] {
            schedule.staleAt.popDue(at: now)
        }

        /// See ``RefreshSchedule/requestManualRefresh(of:at:)``.
        mutating func requestManualRefresh(of id: String, at now: Date) -> Bool {
            schedule.requestManualRefresh(of: id, at: now)
        }

        /// The state a refresh of `id` starts from, as kept, and whether its fetch cache, entries and
        /// fallback items must be read back from the state journal (see ``StateCache``).
        func keptState(of id: String) -> (state: WidgetState, onDisk: Bool) {
            (states[id] ?? WidgetState(), states.isCachedOnDisk(id))
        }

        // MARK: - Recording

        /// Whether `id` has no data to show: no snapshot yet, or one left `refreshing` by a daemon that
        /// stopped during its first refresh.
        func awaitsFirstRefresh(_ id: String) -> Bool {
            guard let summary = snapshots[id] else { return true }
            return summary.status == .refreshing
        }

        /// Takes in the start of `widget`'s first refresh at `now`: keeps a `refreshing` summary and card
        /// for the next index and gallery (so that `status`, the index and the gallery list it from the
        /// start), and returns the `refreshing` snapshot for the refresh to write before it begins (see
        /// `WidgetDaemon.writeRefreshing`), off the loop: a first wave over many widgets creates a file
        /// for each.
        mutating func recordFirstRefreshStart(of widget: WidgetPipeline, at now: Date) -> Snapshot {
            let id = widget.id
            let snapshot = Snapshot.refreshing(id: id, title: widget.definition.title, startedAt: now)
            snapshots[id] = SnapshotSummary(snapshot)
            writtenCards[id] = GalleryCard.render(snapshot, definition: widget.definition, now: now)
            cardsToRender.remove(id)
            return snapshot
        }

        /// Deletes the `refreshing` snapshot and page of `id`, whose first refresh ended without a result
        /// (the daemon stopping); returns whether there was one.
        mutating func forgetFirstRefresh(of id: String) -> Bool {
            guard snapshots[id]?.status == .refreshing else { return false }
            snapshots[id] = nil
            writtenCards[id] = nil
            store.removeSnapshot(for: id)
            return true
        }

        /// Takes in a snapshot rewritten `stale` (see ``WidgetDaemon/markStale(_:at:definitions:store:)``).
        mutating func recordMarkedStale(_ snapshot: Snapshot) {
            snapshots[snapshot.id] = SnapshotSummary(snapshot)
            cardsToRender.remove(snapshot.id)
            unwritten[snapshot.id] = nil
        }

        /// Takes in a snapshot of `id` that could not be written, with why.
        mutating func recordWriteFailure(of id: String, reason: String) {
            metrics.recordWriteFailure(of: id)
            unwritten[id] = reason
        }

        /// Starts the daemon's record for `widgetd status`.
        mutating func recordStart(pid: Int, at now: Date, shard: String?) {
            daemon = DaemonRecord(pid: pid, startedAt: now, widgets: widgets.count, shard: shard)
        }

        /// Notes the end of a wave of refreshes in the daemon's record.
        mutating func recordWave(at now: Date) {
            daemon?.lastWaveAt = now
        }

        /// Notes the daemon's stop in its record, and writes it.
        mutating func recordStop(at now: Date, log: (LogRecord) -> Void) {
            daemon?.stoppedAt = now
            writeDaemonRecord(log: log)
        }

        /// Takes in a finished refresh whose files `written` says how the writing went; `lateness` is how
        /// many seconds after its due time it started (none for `run --once`).
        mutating func record(
            _ outcome: WidgetRefresher.Outcome, for widget: WidgetPipeline, duration: Duration, written: Written,
            lateness: TimeInterval? = nil, log: (LogRecord) -> Void
        ) {
            let id = widget.id
            let snapshot = outcome.snapshot
            snapshots[id] = SnapshotSummary(snapshot)
            if case .done(let card) = written {
                // Its page was written with the card of this definition's view.
                cardsToRender.remove(id)
                writtenCards[id] = card
                states.keep(outcome.state, for: id, savedOnDisk: true)
                schedule.watchStaleness(
                    of: id, status: snapshot.status, lastSuccessAt: outcome.state.lastSuccessAt, policy: widget.definition.refreshPolicy)
            } else {
                states.keep(outcome.state, for: id, savedOnDisk: false)
            }
            assets.update(id, snapshot: snapshot, state: outcome.state)
            schedule.dueAt[id] = outcome.state.nextDueAt
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            metrics.record(outcome, for: widget, seconds: seconds, written: written)
            if let lateness { metrics.recordLateness(lateness) }
            var writeError: String?
            if case .failed(let reason) = written {
                writeError = reason
                unwritten[id] = reason
            } else {
                unwritten[id] = nil
            }
            log(Book.refreshRecord(outcome, seconds: seconds, writeError: writeError, lateness: lateness))
        }

        /// The log line of a finished refresh: `news: fresh, 1 entry in 12 ms; next at …`, a warning when it
        /// failed, an error when its files could not be written; with `late`, the seconds (to the
        /// millisecond) between its due time and its start, when it had a due time.
        static func refreshRecord(
            _ outcome: WidgetRefresher.Outcome, seconds: Double, writeError: String?, lateness: TimeInterval? = nil
        ) -> LogRecord {
            let snapshot = outcome.snapshot
            let id = snapshot.id
            let next = snapshot.nextRefreshAt.map { "; next at \(Timestamp.string($0))" } ?? ""
            let count = "\(snapshot.entries.count) entr\(snapshot.entries.count == 1 ? "y" : "ies")"
            var record = LogRecord(
                .info, "refreshed", "\(id): fresh, \(count) in \(Int(seconds * 1000)) ms\(next)", widget: id,
                status: snapshot.status.rawValue, duration: seconds, entries: snapshot.entries.count, next: snapshot.nextRefreshAt)
            if let lateness, let late = WidgetNumber((max(0, lateness) * 1000).rounded() / 1000) {
                record.details["late"] = .number(late)
            }
            if !snapshot.warnings.isEmpty {
                record.message += " — warning: " + snapshot.warnings.joined(separator: "; warning: ")
            }
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
            return record
        }

        /// Flushes the folders, writes the gallery, the index, the metrics and the daemon's record, then
        /// deletes images nothing uses; unless refreshes are under way or due soon (`busy`) and the last
        /// write was less than ``IndexPacing/gap`` ago: then the write is put off (see ``IndexPacing``).
        ///
        /// The gallery, the index and the metrics describe every widget, and with many widgets take long
        /// to write: while `busy` they are written on ``indexQueue`` from a copy of what they show, so
        /// that the loop goes on starting refreshes on time meanwhile. Otherwise (a wave ended with
        /// nothing due soon, a reload, a stop) they are written before this returns, after any write
        /// still under way there.
        mutating func writeIndexAndMetrics(now: Date, busy: Bool = false, log: @escaping @Sendable (LogRecord) -> Void) {
            guard indexPacing.shouldWrite(at: now, busy: busy) else { return }
            let write = indexWrite(now: now)
            let cost = indexPacing.cost
            let job: @Sendable () -> Void = {
                let started = ContinuousClock.now
                write(log)
                cost.set(ContinuousClock.now - started)
            }
            if busy {
                cost.start()
                Self.indexQueue.async(execute: job)
            } else {
                Self.indexQueue.sync(execute: job)
            }
            indexPacing.wrote(at: now)
            writeDaemonRecord(log: log)
            assets.collect(in: store, log: log)
        }

        /// The thread the gallery, the index and the metrics are written on, one write after another.
        static let indexQueue = DispatchQueue(label: "widgetd.index")

        /// Writes the put-off index (see ``IndexPacing``) when it is due at `now` (on ``indexQueue`` when
        /// `busy`), or at once when `force` is set (the daemon stopping).
        mutating func writePutOffIndex(now: Date, busy: Bool = false, force: Bool = false, log: @escaping @Sendable (LogRecord) -> Void) {
            guard indexPacing.pending, force || indexPacing.deadline.map({ now >= $0 }) ?? false else { return }
            writeIndexAndMetrics(now: now, busy: busy && !force, log: log)
        }

        /// What one write of the gallery, the index and the metrics needs, taken from the book (its cards
        /// written since the last, and those to render again, are taken out): the write itself, to run on
        /// any thread. It first flushes the folders (and the state journal) for the writes made since the
        /// last (see `SnapshotStore.syncFolders()`), so that the snapshots the index lists are durable
        /// before it is.
        private mutating func indexWrite(now: Date) -> @Sendable (_ log: (LogRecord) -> Void) -> Void {
            let store = store
            let summaries = snapshots
            let written = writtenCards
            writtenCards = [:]
            // The cards that may be out of date are rendered again from their snapshots on disk.
            let render = cardsToRender.filter { summaries[$0] != nil }
            cardsToRender.subtract(render)
            var found: [String: WidgetDefinition] = [:]
            for id in render { found[id] = widgets[id]?.definition }
            let definitions = found
            let metrics = metrics
            let widgetCount = widgets.count
            let notifications = notificationSummaries()
            return { log in
                store.syncFolders()
                do {
                    var cards: [GalleryCard] = []
                    cards.reserveCapacity(summaries.count)
                    for id in summaries.keys.sorted() {
                        if let card = written[id] {
                            cards.append(card)
                        } else if !render.contains(id), let card = store.card(for: id) {
                            cards.append(card)
                        } else if let snapshot = store.snapshot(for: id) {
                            let definition = definitions[id]
                            cards.append(
                                (try? store.writeCard(of: snapshot, definition: definition))
                                    ?? GalleryCard.render(snapshot, definition: definition, now: snapshot.generatedAt))
                        }
                    }
                    let gallery = try store.writeGallery(cards, writtenAt: now)
                    try store.writeIndex(summaries.map { $0.value.snapshot(id: $0.key) }, generatedAt: now, gallery: gallery)
                    var text = metrics.text(now: now, snapshots: summaries, widgetCount: widgetCount, notifications: notifications)
                    if let bucket = store.output as? BucketOutput { text += bucket.health.prometheusLines(at: now) }
                    try store.writeMetrics(text)
                } catch {
                    log(LogRecord(.error, "write-failed", "\(error)", error: "\(error)"))
                }
            }
        }

        /// Writes ``daemon``, with the current number of widgets.
        mutating func writeDaemonRecord(log: (LogRecord) -> Void) {
            guard var record = daemon else { return }
            record.widgets = widgets.count
            record.unwritten = unwritten
            record.output = (store.output as? BucketOutput)?.health
            daemon = record
            do {
                try store.writeDaemonRecord(record)
            } catch {
                log(LogRecord(.error, "write-failed", "\(error)", error: "\(error)"))
            }
        }
    }
}

extension WidgetDaemon {
    /// What the book keeps of a widget's last snapshot: what the index and the metrics read, in a slot of
    /// its table, without a block of its own (a whole snapshot's fields took twice the room).
    struct SnapshotSummary: Sendable {
        var title: String?
        var status: Snapshot.Status
        var generatedAt: Date
        var lastSuccessAt: Date?
        var nextRefreshAt: Date?

        init(_ snapshot: Snapshot) {
            title = snapshot.title
            status = snapshot.status
            generatedAt = snapshot.generatedAt
            lastSuccessAt = snapshot.lastSuccessAt
            nextRefreshAt = snapshot.nextRefreshAt
        }

        /// The snapshot of widget `id` as far as the summary tells: no entries, error or warnings.
        func snapshot(id: String) -> Snapshot {
            Snapshot(
                id: id, title: title, status: status, generatedAt: generatedAt, lastSuccessAt: lastSuccessAt,
                nextRefreshAt: nextRefreshAt, entries: [], error: nil)
        }
    }
}
