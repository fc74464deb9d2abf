import Dispatch
import Foundation
public import WidgetCore
import WidgetJSON
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
        /// The output folder; it writes as ``shard`` (its `shard` is kept equal to this configuration's).
        public var store: SnapshotStore
        /// Reads and checks definitions.
        public var reader: DefinitionReader
        /// Runs refreshes.
        public var refresher: WidgetRefresher
        /// The source of time.
        public var clock: any WidgetClock
        /// How many widgets refresh at once.
        public var maximumConcurrentRefreshes: Int
        /// When several daemons share the definitions: the one this daemon is; it runs only its widgets,
        /// and writes its part of the index, gallery and metrics.
        public var shard: Shard? {
            didSet { store.shard = shard }
        }
        /// Where the daemon reports, one record at a time.
        public var log: @Sendable (LogRecord) -> Void
        /// Called as the daemon's state changes (ready, reloading, stopping): for a service manager.
        public var lifecycle: @Sendable (LifecycleEvent) -> Void
        /// Whether ``WidgetDaemon/refreshes`` keeps every report until it is read (tests that read them
        /// afterwards). Otherwise it keeps only the newest unread one, so a daemon nobody listens to does
        /// not grow with each refresh.
        public var keepsEveryRefreshReport: Bool
        /// Checks that the output folder is still the one this process holds (``SnapshotStore`` writes by
        /// path): called before each wave and before each refresh's files are written. When it throws,
        /// the refresh's files are not written and the daemon stops with its error (`widgetd run` passes
        /// its lock's check: the folder removed or replaced under it).
        public var outputCheck: (@Sendable () throws -> Void)?

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
            keepsEveryRefreshReport: Bool = false,
            outputCheck: (@Sendable () throws -> Void)? = nil
        ) {
            self.definitions = definitions
            self.store = store
            self.reader = reader
            self.refresher = refresher
            self.clock = clock
            self.maximumConcurrentRefreshes = maximumConcurrentRefreshes
            self.shard = shard
            self.store.shard = shard
            self.log = log
            self.lifecycle = lifecycle
            self.keepsEveryRefreshReport = keepsEveryRefreshReport
            self.outputCheck = outputCheck
        }
    }

    /// A change in the daemon's state, as ``Configuration/lifecycle`` hears of it.
    public enum LifecycleEvent: Sendable, Equatable {
        /// The definitions are loaded and the index written (with many widgets, being written beside the
        /// loop); refreshing begins.
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
    /// Delivers the notifications the widgets' rules make, beside the refreshes.
    let sender: NotificationSender
    private let refreshStream: AsyncStream<RefreshReport>
    private let refreshContinuation: AsyncStream<RefreshReport>.Continuation

    /// One finished refresh, as reported on ``refreshes``.
    public struct RefreshReport: Sendable {
        /// The widget's id.
        public var id: String
        /// The snapshot the refresh produced.
        public var snapshot: Snapshot
        /// The failure, when the refresh failed or was not run.
        public var error: RefreshFailure?
    }

    /// A daemon with `configuration`; nothing happens until ``run()`` or ``runOnce()``.
    ///
    /// Without `HostLimits` among the refresher's resources, the daemon adds its own, on its clock and
    /// with no rates: a server's `Retry-After` then holds back every widget on its host.
    public init(configuration: Configuration) {
        var configuration = configuration
        // OAuth2 tokens are kept in the output folder's state, shared by every refresh of this daemon.
        if configuration.refresher.resources[OAuth2Tokens.self] == nil {
            configuration.refresher.resources.insert(OAuth2Tokens(storage: OAuth2TokenFiles(store: configuration.store)))
        }
        if configuration.refresher.resources[HostLimits.self] == nil {
            configuration.refresher.resources.insert(HostLimits(clock: configuration.clock))
        }
        self.configuration = configuration
        sender = WidgetDaemon.makeSender(for: configuration)
        (refreshStream, refreshContinuation) = AsyncStream.makeStream(
            bufferingPolicy: configuration.keepsEveryRefreshReport ? .unbounded : .bufferingNewest(1))
    }

    /// A refresh that takes this many seconds or more makes its widget slow (a server that stalls or
    /// trickles until its transfer fails): slow widgets take at most half the places for refreshes, so
    /// the others always find one, however many slow hosts there are.
    public static let slowRefreshSeconds: Double = 5

    /// From this many widgets on, the index written at start is written beside the loop (see
    /// ``run()``): ``LifecycleEvent/ready(widgets:)`` may then come before it is on disk.
    static let manyWidgets = 1_000

    /// A wave counts as over when no refresh is under way and none is due within this many seconds: its
    /// idle connections are closed and its free pages returned then, and the index is written at once
    /// rather than paced (see `IndexPacing`).
    static let quietSeconds: Double = 2

    /// `widgetd reload` requests for a widget that arrive within this many seconds after a manual
    /// refresh of it started are merged into that refresh.
    public static let reloadCoalescingInterval: Double = 1

    /// How long `run --once` starts sending notifications after it wrote the index and the metrics: what
    /// is left stays queued for the next run (an attempt started ends within the sender's request timeout).
    public static let onceSendingLimit: Duration = .seconds(15)

    /// The refreshes the daemon finishes, in order, for embedders and tests that wait for work: a reader
    /// that falls behind gets only the newest unless ``Configuration/keepsEveryRefreshReport`` is set.
    public var refreshes: AsyncStream<RefreshReport> { refreshStream }

    /// Asks the daemon to reload its definitions (what SIGHUP does); while ``run()`` runs, returns once
    /// its loop has taken the request.
    public func reloadDefinitions() async {
        await mailbox.postWaitingForTheLoop(.reloadDefinitions)
    }

    /// Asks the daemon to look for `widgetd reload` requests (what SIGUSR1 does); while ``run()`` runs,
    /// returns once its loop has taken the request.
    public func checkReloadRequests() async {
        await mailbox.postWaitingForTheLoop(.reloadRequested)
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
    /// The refreshes are child tasks of one task group, started the way the loop of ``run()`` starts
    /// them, at most ``Configuration/maximumConcurrentRefreshes`` at a time; this returns once every one
    /// has ended.
    ///
    /// - Throws: ``StoreError`` when the output folder cannot be prepared.
    public func runOnce() async throws -> OnceReport {
        try await configuration.store.prepare()
        let loaded = await loadDefinitionsOffThePool()
        recordProblems(loaded.diagnostics)
        var book = Book(store: configuration.store)
        configuration.store.indexStates()
        for widget in loaded.widgets {
            book.add(widget, saved: configuration.store.savedState(for: widget.id), now: configuration.clock.now(), startup: false)
        }
        updateNotifications(book.widgets)
        let now = configuration.clock.now()
        // Identical requests of this run share one fetch.
        let refresher = coalescingRefresher()
        let limit = max(1, configuration.maximumConcurrentRefreshes)
        var outcomes: [WidgetRefresher.Outcome] = []
        await withDiscardingTaskGroup { group in
            var waiting = loaded.widgets[...]
            var underWay = 0
            while underWay > 0 || !waiting.isEmpty {
                while underWay < limit, let widget = waiting.popFirst() {
                    launch(widget, start: 0, book: book, refresher: refresher, now: now, respectBudget: false, in: &group)
                    underWay += 1
                }
                // Every refresh started posts its end, even when this task is cancelled.
                for refresh in await mailbox.waitForFinished() {
                    underWay -= 1
                    guard let widget = book.widgets[refresh.id] else { continue }
                    if case .skipped = refresh.written {
                        logInterrupted(refresh.id)
                        continue
                    }
                    book.record(refresh.outcome, for: widget, duration: refresh.duration, written: refresh.written, log: configuration.log)
                    refreshContinuation.yield(
                        RefreshReport(id: refresh.id, snapshot: refresh.outcome.snapshot, error: refresh.outcome.error))
                    outcomes.append(refresh.outcome)
                }
            }
        }
        book.writeIndexAndMetrics(now: now, log: configuration.log)
        // What the rules made is delivered before the run ends, within a bound; what fails or is left
        // waits for the next run.
        await sender.sendDue(within: Self.onceSendingLimit)
        return OnceReport(diagnostics: loaded.diagnostics, outcomes: outcomes.sorted { $0.snapshot.id < $1.snapshot.id })
    }

    // MARK: - Loop

    /// Runs until the calling task is cancelled (SIGTERM and SIGINT cancel it in `widgetd run`).
    ///
    /// The loop owns a task group: each refresh, and each reload's reading of the definitions, is a child
    /// task of it. On a stop the loop cancels them and waits for every one before it returns: a refresh
    /// returns at once when cancelled (whatever its stage still does is ignored, as at its deadline) and
    /// writes nothing unless its files were being written already; then its widget keeps its last
    /// snapshot and state.
    ///
    /// - Throws: ``StoreError`` when the output folder cannot be prepared.
    public func run() async throws {
        let store = configuration.store
        try await store.prepare()
        var book = Book(store: store)
        apply(await loadDefinitionsOffThePool(), into: &book, startup: true)
        book.recordStart(
            pid: Int(ProcessInfo.processInfo.processIdentifier), at: configuration.clock.now(), shard: configuration.shard?.description)
        // Describe the widgets at once, even when none is due: the index may be missing or list
        // widgets removed while the daemon was down. This first gallery renders every card again (a
        // view may have changed while the daemon was down), which takes a while with many widgets:
        // then it is written beside the loop, which starts the refreshes due meanwhile on time.
        book.writeIndexAndMetrics(
            now: configuration.clock.now(), busy: book.widgets.count >= Self.manyWidgets, log: configuration.log)
        ProcessMemory.returnFreePages()
        defer { refreshContinuation.finish() }
        configuration.lifecycle(.ready(widgets: book.widgets.count))

        var running = RunningRefreshes(limit: max(1, configuration.maximumConcurrentRefreshes))
        // The output folder removed or replaced under the daemon: it stops rather than write beside
        // whatever writes to the new one.
        var outputLost: (any Error)?
        mailbox.setLooping(true)
        await withDiscardingTaskGroup { group in
            group.addTask { await self.sender.run() }
            outputLost = await loop(&book, running: &running, group: &group)
            mailbox.setLooping(false)
            configuration.lifecycle(.stopping)
            // Every refresh under way stops; the group waits for them (and for a reload's reading).
            group.cancelAll()
        }
        // Each refresh posted its end before its task returned: the ones not taken in yet are all here.
        let finished = mailbox.take().finished
        if outputLost == nil {
            record(finished.filter { if case .skipped = $0.written { false } else { true } }, in: &book, running: &running)
        }
        var forgotten = false
        for id in running.ids {
            running.abandon(id)
            logInterrupted(id)
            // A first refresh interrupted leaves no data: the widget is missing again, not refreshing.
            if outputLost == nil, book.forgetFirstRefresh(of: id) { forgotten = true }
        }
        if forgotten || book.indexPacing.pending { book.writeIndexAndMetrics(now: configuration.clock.now(), log: configuration.log) }
        if let outputLost {
            configuration.log(LogRecord(.error, "output-lost", "\(outputLost)", error: "\(outputLost)"))
            throw outputLost
        }
        configuration.log(LogRecord(.notice, "stopping", "stopping"))
        book.recordStop(at: configuration.clock.now(), log: configuration.log)
    }

    /// The daemon's loop, in its task group: until the task is cancelled or the output folder is lost
    /// (returned).
    private func loop(_ book: inout Book, running: inout RunningRefreshes, group: inout DiscardingTaskGroup) async -> (any Error)? {
        // A reload reads the definitions beside the loop (see `startReload`): one at a time, and one more
        // when asked again meanwhile.
        var reloading = false
        var reloadAgain = false
        while !Task.isCancelled {
            if let lost = checkOutput() { return lost }
            let now = configuration.clock.now()
            let busy = !running.isEmpty || book.hasDue(at: now.addingTimeInterval(Self.quietSeconds))
            book.writePutOffIndex(now: now, busy: busy, log: configuration.log)
            startDue(&book, running: &running, group: &group)
            await markStale(&book, running: running)
            // With refreshes or a reload under way the loop waits for them too: it is not idle.
            let wakeAt = book.wakeTime(refreshesCanStart: !running.isFull)
            let mail = await mailbox.wait(until: wakeAt, clock: configuration.clock, busy: !running.isEmpty || reloading)
            if Task.isCancelled {
                // What ended meanwhile is taken in after the stop, with the rest.
                for refresh in mail.finished { mailbox.post(refresh) }
                return nil
            }
            if let lost = checkOutput() { return lost }
            if !mail.finished.isEmpty { record(mail.finished, in: &book, running: &running) }
            if let loaded = mail.loaded {
                apply(loaded, into: &book, startup: false)
                for id in running.ids where book.widgets[id] == nil { running.abandon(id) }
                book.writeIndexAndMetrics(now: configuration.clock.now(), log: configuration.log)
                ProcessMemory.returnFreePages()
                configuration.lifecycle(.reloaded(widgets: book.widgets.count))
                reloading = reloadAgain
                reloadAgain = false
                if reloading { startReload(in: &group) }
            }
            for event in mail.events {
                switch event {
                case .reloadDefinitions:
                    if reloading {
                        reloadAgain = true
                    } else {
                        reloading = true
                        startReload(in: &group)
                    }
                case .reloadRequested:
                    takeReloadRequests(into: &book)
                }
            }
        }
        return nil
    }

    /// Schedules the widgets `widgetd reload` asked for now; requests within a second of the last manual
    /// refresh of a widget are merged into it.
    private func takeReloadRequests(into book: inout Book) {
        let now = configuration.clock.now()
        for id in takeReloadRequests() {
            guard book.widgets[id] != nil else {
                configuration.log(
                    LogRecord(.warning, "reload-ignored", "\(id): reload requested for an unknown widget; ignored", widget: id))
                continue
            }
            guard book.requestManualRefresh(of: id, at: now) else {
                configuration.log(
                    LogRecord(
                        .debug, "reload-merged", "\(id): reload requested again within a second; merged into the last one",
                        widget: id))
                continue
            }
            configuration.log(LogRecord(.info, "reload-requested", "\(id): reload requested", widget: id))
        }
    }

    /// Logs that the refresh of `id` was stopped before it wrote anything.
    private func logInterrupted(_ id: String) {
        configuration.log(
            LogRecord(.notice, "refresh-interrupted", "\(id): refresh interrupted by the stop; its last snapshot stays", widget: id))
    }

    /// The error of ``Configuration/outputCheck``, or `nil` when the output folder is still the daemon's.
    private func checkOutput() -> (any Error)? {
        do {
            try configuration.outputCheck?()
            return nil
        } catch {
            return error
        }
    }

    /// The configured refresher, with a ``FetchCoalescer``: identical requests of the refreshes started
    /// together share one fetch.
    private func coalescingRefresher() -> WidgetRefresher {
        var refresher = configuration.refresher
        refresher.resources.insert(FetchCoalescer())
        return refresher
    }

    /// Starts the refreshes that are due, as many as there are free places; the others stay due. A widget
    /// whose refresh is still under way refreshes again once it is done.
    ///
    /// Only as many due widgets are taken from the queue as there are free places (the earliest due
    /// first), so a first wave over many widgets costs each start O(log n), not a pass over every widget
    /// still due. A widget already under way, or a slow one waiting for a place of its own, takes no
    /// place: more are taken then.
    private func startDue(_ book: inout Book, running: inout RunningRefreshes, group: inout DiscardingTaskGroup) {
        let now = configuration.clock.now()
        var starting: [(widget: WidgetPipeline, start: Int, abandonment: Abandonment)] = []
        while !running.isFull {
            let popped = book.due(at: now, limit: running.limit - running.count)
            guard !popped.isEmpty else { break }
            // Widgets whose refreshes are fast first: a slow one may have to wait for a place of its own.
            for widget in popped.filter({ !running.isSlow($0.id) }) + popped.filter({ running.isSlow($0.id) }) {
                if running.contains(widget.id) {
                    running.again.insert(widget.id)
                    continue
                }
                // Slow hosts take at most half the places; this one waits for one of theirs to end.
                if running.mustWait(widget.id) { continue }
                let start = running.nextStart()
                let abandonment = Abandonment()
                running.add(widget.id, start: start, abandonment: abandonment)
                starting.append((widget, start, abandonment))
            }
        }
        guard !starting.isEmpty else { return }
        let refresher = coalescingRefresher()
        // Widgets with no data yet are listed as refreshing, with when it started, until their refresh
        // ends: their snapshots and the index are written before any of them starts.
        var refreshing: [String: Snapshot] = [:]
        for (widget, _, _) in starting where book.awaitsFirstRefresh(widget.id) {
            refreshing[widget.id] = book.recordFirstRefreshStart(of: widget, at: now)
        }
        // Paced while other refreshes are under way or more are due soon (a first wave starts many batches).
        if !refreshing.isEmpty {
            let busy = running.count > starting.count || book.hasDue(at: now.addingTimeInterval(Self.quietSeconds))
            book.writeIndexAndMetrics(now: now, busy: busy, log: configuration.log)
        }
        for (widget, start, abandonment) in starting {
            launch(
                widget, start: start, book: book, refresher: refresher, now: now, respectBudget: true,
                due: book.dueTime(of: widget.id), refreshing: refreshing[widget.id], abandonment: abandonment, in: &group)
        }
    }

    /// Starts the refresh of `widget` as a child task of `group`: the one way a refresh starts, for the
    /// loop and for `run --once`.
    ///
    /// The child writes `refreshing` (the snapshot of a first refresh, see
    /// ``Book/recordFirstRefreshStart(of:at:)``), reads the widget's saved state, refreshes, writes the
    /// files unless it was cancelled first (the daemon stopping, or `abandonment` used: its widget
    /// removed), and posts a ``FinishedRefresh`` to the mailbox, whatever happened, with how late it
    /// started against `due`.
    private func launch(
        _ widget: WidgetPipeline, start: Int, book: Book, refresher: WidgetRefresher, now: Date, respectBudget: Bool,
        due: Date? = nil, refreshing: Snapshot? = nil, abandonment: Abandonment? = nil, in group: inout DiscardingTaskGroup
    ) {
        let (kept, onDisk) = book.keptState(of: widget.id)
        let mailbox = mailbox
        let store = configuration.store
        let check = configuration.outputCheck
        let clock = configuration.clock
        let sender = sender
        let work: @Sendable () async -> Void = {
            let started = ContinuousClock.now
            let startedAt = clock.now()
            if let refreshing { await WidgetDaemon.writeRefreshing(refreshing, to: store) }
            let state = onDisk ? await WidgetDaemon.savedState(widget.id, kept: kept, store: store) : kept
            let history = store.history.templateValue(for: widget.definition, now: now).object ?? [:]
            let outcome = await refresher.refresh(widget, state: state, now: now, respectBudget: respectBudget, history: history)
            let duration = ContinuousClock.now - started
            // A refresh cancelled (its widget removed, or the daemon stopping) writes nothing.
            let stopped = Task.isCancelled || outcome.error?.isCancellation == true
            let written =
                stopped
                ? .skipped : await WidgetDaemon.write(outcome, definition: widget.definition, to: store, check: check, sender: sender)
            let elapsed = clock.now().timeIntervalSince(startedAt)
            mailbox.post(
                FinishedRefresh(
                    id: widget.id, start: start, outcome: outcome, duration: duration, elapsed: elapsed, written: written,
                    lateness: due.map { startedAt.timeIntervalSince($0) }))
        }
        if let abandonment {
            group.addTask { await abandonment.run(work) }
        } else {
            group.addTask { await work() }
        }
    }

    /// Rewrites as `stale` the snapshots whose data turned stale by now, at the moment it did rather than
    /// at the next refresh (which may be an interval away, or a day for a spent budget). A widget whose
    /// refresh is under way is left to it: the refresh writes `stale` itself if it fails.
    private func markStale(_ book: inout Book, running: RunningRefreshes) async {
        let now = configuration.clock.now()
        let ids = book.turningStale(at: now).filter { !running.contains($0) }
        guard !ids.isEmpty else { return }
        var marked = 0
        for (id, mark) in await WidgetDaemon.markStale(
            ids, at: now, definitions: book.widgets.mapValues(\.definition), store: configuration.store, sender: sender)
        {
            switch mark {
            case .marked(let snapshot):
                book.recordMarkedStale(snapshot)
                marked += 1
                configuration.log(
                    LogRecord(
                        .notice, "stale", "\(id): stale, its last good data is from \(snapshot.lastSuccessAt.map(Timestamp.string) ?? "-")",
                        widget: id, status: Snapshot.Status.stale.rawValue, next: snapshot.nextRefreshAt))
            case .failed(let reason):
                book.recordWriteFailure(of: id, reason: reason)
                configuration.log(
                    LogRecord(.error, "write-failed", "\(id): stale, but it was not written — \(reason)", widget: id, error: reason))
            case .unchanged:
                break
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
            book.record(
                refresh.outcome, for: widget, duration: refresh.duration, written: refresh.written, lateness: refresh.lateness,
                log: configuration.log)
            running.noteDuration(of: refresh.id, seconds: refresh.elapsed)
            refreshContinuation.yield(RefreshReport(id: refresh.id, snapshot: refresh.outcome.snapshot, error: refresh.outcome.error))
            if running.again.remove(refresh.id) != nil { book.makeDue([refresh.id], at: configuration.clock.now()) }
            recorded += 1
            if refresh.outcome.snapshot.status == .fresh { fresh += 1 }
        }
        book.makeDue(running.takeWaitingSlow(), at: configuration.clock.now())
        guard recorded > 0 else { return }
        let ended = configuration.clock.now()
        book.recordWave(at: ended)
        // The index's write flushes the folders first, once for the renames of every refresh recorded
        // since the last: paced with it, so that a steady stream of refreshes does not flush the folders
        // (on the loop) for each few of them.
        // Paced while refreshes are under way or due soon (see `IndexPacing`): many widgets refresh in a
        // steady stream, one or a few at a time, and the index would otherwise be written after each.
        let busy = !running.isEmpty || book.hasDue(at: ended.addingTimeInterval(Self.quietSeconds))
        book.writeIndexAndMetrics(now: ended, busy: busy, log: configuration.log)
        // The wave is over, and the next is not about to start (as it always is when many widgets keep a
        // steady stream of refreshes going): its connections close, and what its refreshes parsed and
        // wrote is free, between the blocks kept. Trimming the heap takes about a millisecond per
        // thousand widgets, on the loop.
        if running.isEmpty, book.nextDue.map({ $0.timeIntervalSince(ended) >= Self.quietSeconds }) ?? true {
            StageHTTPClient(resources: configuration.refresher.resources).client.closeIdleConnections()
            ProcessMemory.returnFreePages()
        }
        configuration.log(
            LogRecord(
                .debug, "wave",
                "wave done: \(recorded) refreshed, \(fresh) fresh, \(running.count) under way; "
                    + (book.indexPacing.pending ? "index put off" : "index written"),
                next: book.nextDue,
                details: [
                    "refreshed": .number(WidgetNumber(recorded)), "fresh": .number(WidgetNumber(fresh)),
                    "running": .number(WidgetNumber(running.count)),
                ]))
    }

    /// Starts reading the definitions beside the loop, in a child task of its group, while the loop goes on
    /// starting and recording refreshes; the result arrives in the mailbox.
    ///
    /// A definition's templates are rendered as it loads (its title, placeholder and constant templates):
    /// each file's are bounded by a ``TemplateSteps`` budget, and the whole read runs on a thread of its
    /// own, so a folder of slow definitions delays only the reload, never a refresh.
    private func startReload(in group: inout DiscardingTaskGroup) {
        configuration.lifecycle(.reloading)
        group.addTask { [self] in
            mailbox.post(await loadDefinitionsOffThePool())
        }
    }

    /// Reads the definitions (see ``loadDefinitions()``) on a thread of its own, not on the few threads
    /// Swift's tasks share.
    private func loadDefinitionsOffThePool() async -> DefinitionDirectory.LoadResult {
        await withCheckedContinuation { continuation in
            DispatchQueue(label: "widgetd.load").async { [self] in
                continuation.resume(returning: loadDefinitions())
            }
        }
    }

    /// Applies the definitions `loaded` to `book`, keeping the last valid version of widgets whose file
    /// broke, and logs what changed.
    private func apply(_ loaded: DefinitionDirectory.LoadResult, into book: inout Book, startup: Bool) {
        let log = configuration.log
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
        updateNotifications(book.widgets, removed: removed)
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
}
