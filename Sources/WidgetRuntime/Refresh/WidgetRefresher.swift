public import Foundation
import Synchronization
public import WidgetCore
public import WidgetJSON
import WidgetLiquid

/// Runs one refresh of one widget and works out what to serve and when to try next.
///
/// A successful refresh gives a `fresh` snapshot and becomes the new last good data. A failed one serves
/// the last good data (`cached`, or `stale` once older than `staleAfter`), chosen by the widget's
/// `fallback` policy, or the placeholder when there never was data; `error` says what failed: a stage,
/// the daily budget, the deadline.
/// Failures are retried with exponential backoff (30 s, 1 m, 2 m … capped at the schedule's interval),
/// never sooner than a source's `Retry-After`. Refreshes per local day are capped by `maxPerDay` when set.
public struct WidgetRefresher: Sendable {
    /// Secrets for `{{ env.NAME }}`.
    public var secrets: SecretStore
    /// Shared services for stages.
    public var resources: StageResources
    /// Where assets go, when snapshots are written.
    public var assetsDirectory: URL?
    /// Where stages report (`StageContext/log` lines become `stage` records of their widget).
    public var log: @Sendable (LogRecord) -> Void

    /// A refresher; by default with the process environment as secrets, no resources, no assets folder
    /// (the `assets` transform then leaves image URLs as they are) and stage log lines dropped.
    public init(
        secrets: SecretStore = .processEnvironment,
        resources: StageResources = StageResources(),
        assetsDirectory: URL? = nil,
        log: @escaping @Sendable (LogRecord) -> Void = { _ in }
    ) {
        self.secrets = secrets
        self.resources = resources
        self.assetsDirectory = assetsDirectory
        self.log = log
    }

    /// What a refresh produced.
    public struct Outcome: Sendable {
        /// The snapshot to serve: `fresh` after a success, else the fallback or the placeholder.
        public var snapshot: Snapshot
        /// The widget's state after the refresh, to save and pass to the next one.
        public var state: WidgetState
        /// The failure, when the refresh failed or was not run: a stage's error, the used-up budget, the
        /// deadline or a cancellation.
        public var error: RefreshFailure?
        /// Whether the pipeline ran (false when the daily budget was used up).
        public var ran: Bool
        /// Seconds spent fetching and bytes fetched, for a refresh that succeeded.
        public var fetchSeconds: Double?
        /// The bytes the fetch stages returned, for a refresh that succeeded.
        public var fetchBytes: Int?
    }

    /// The context stages see for `pipeline` at `now`, its templates reading `history` (the widget's
    /// history before this refresh; empty by default).
    public func context(for pipeline: WidgetPipeline, now: Date, history: WidgetObject = [:]) -> StageContext {
        let definition = pipeline.definition
        let base = definition.file.isEmpty ? nil : WidgetRefresher.folder(of: definition.file)
        var context = StageContext(
            widgetID: definition.id,
            widgetTitle: definition.title,
            now: now,
            timeZone: definition.timeZone,
            params: definition.params,
            secrets: secrets,
            baseDirectory: base,
            assetsDirectory: assetsDirectory,
            resources: resources,
            log: { [log] message in
                log(LogRecord(.warning, "stage", "\(definition.id): \(message)", widget: definition.id))
            }
        )
        context.templateSteps = TemplateSteps(limit: definition.templateStepLimit)
        context.history = history
        return context
    }

    /// The folder that holds the definition file at `path`, as a URL: made once for each folder, as the
    /// definitions of a daemon share one or a few (building it for every refresh was 1.5% of `run --once`).
    static func folder(of path: String) -> URL {
        let folder = DefinitionReader.folder(of: path)
        if let known = folders.withLock({ $0[folder] }) { return known }
        let url = URL(fileURLWithPath: path).deletingLastPathComponent()
        folders.withLock { folders in
            // A bound for a process that reads definitions from ever new folders (tests).
            if folders.count >= 64 { folders.removeAll() }
            folders[folder] = url
        }
        return url
    }

    private static let folders = Mutex<[String: URL]>([:])

    /// Refreshes `pipeline` once.
    ///
    /// - Parameters:
    ///   - pipeline: the widget's built stages and its definition.
    ///   - state: what was remembered about the widget.
    ///   - now: the moment of the refresh.
    ///   - respectBudget: whether `maxPerDay` may stop the refresh.
    ///   - trace: where each stage adds its step as it ends (`preview --trace`); none by default.
    ///   - history: what templates read as `history`: the widget's history before this refresh (see
    ///     `HistoryStore.templateValue(for:now:)`); empty by default.
    public func refresh(
        _ pipeline: WidgetPipeline, state: WidgetState, now: Date, respectBudget: Bool = true, trace: PipelineTrace? = nil,
        history: WidgetObject = [:]
    ) async -> Outcome {
        let definition = pipeline.definition
        let policy = definition.refreshPolicy
        var state = state
        if case .usedUp(let limit, let next) = policy.spendBudget(&state.budget, at: now, enforced: respectBudget) {
            state.nextDueAt = next
            let error = RefreshFailure.budgetUsedUp(limit: limit, next: next)
            let snapshot = fallbackSnapshot(pipeline, state: state, now: now, error: error.description, next: next)
            return Outcome(snapshot: snapshot, state: state, error: error, ran: false)
        }
        state.lastAttemptAt = now

        do {
            let result = try await runWithinDeadline(
                pipeline, context: context(for: pipeline, now: now, history: history), cache: state.fetchCache, trace: trace)
            let entries = result.entries
            try Self.checkSnapshotSize(of: entries, limits: definition.valueLimits)
            state.fetchCache = result.cache
            state.lastGoodEntries = entries
            state.lastSuccessAt = now
            state.lastError = nil
            state.consecutiveFailures = 0
            state.fallbackItems = definition.fallback.kept(entries.map(\.content), after: state.fallbackItems)
            let next = policy.nextRefresh(after: now, lastEntryDate: entries.last?.date, sourcesFreshFor: result.sourcesFreshFor)
            state.nextDueAt = next
            let snapshot = Snapshot(
                id: definition.id, title: definition.title, status: .fresh, generatedAt: now,
                lastSuccessAt: now, nextRefreshAt: next, entries: entries, error: nil,
                // Like errors, warnings keep no secret of the widget's.
                warnings: result.warnings.map { definition.redact($0.description, secrets: secrets) }
            )
            return Outcome(
                snapshot: snapshot, state: state, error: nil, ran: true, fetchSeconds: result.fetchSeconds,
                fetchBytes: result.fetchBytes
            )
        } catch {
            // Whatever stage failed, and however it worded it, no secret of the widget's goes further.
            var error = error
            error.message = definition.redact(error.message, secrets: secrets)
            if let place = error.template, let data = FileManager.default.contents(atPath: definition.file),
                let location = DefinitionReader.locate(place.path, column: place.column, in: data)
            {
                error.location = "\(definition.file):\(location)"
            }
            state.lastError = error.description
            state.consecutiveFailures += 1
            let next = policy.retryTime(failures: state.consecutiveFailures, after: now, retryAfter: error.retryAfter)
            state.nextDueAt = next
            let snapshot = fallbackSnapshot(pipeline, state: state, now: now, error: error.description, next: next)
            return Outcome(snapshot: snapshot, state: state, error: error, ran: true)
        }
    }

    /// Runs `pipeline`, stopping it at its definition's `deadline`.
    ///
    /// The refresh returns at the deadline, or as soon as the calling task is cancelled, even when a stage
    /// does not stop when asked: what it does afterwards is ignored.
    func runWithinDeadline(
        _ pipeline: WidgetPipeline, context: StageContext, cache: [FetchCacheKey: CachedFetch], trace: PipelineTrace? = nil
    ) async throws(RefreshFailure) -> PipelineResult {
        let deadline = pipeline.definition.deadline
        do {
            return try await Deadline.run(within: .seconds(deadline.seconds)) {
                try await pipeline.run(context: context, cache: cache, trace: trace)
            }
        } catch {
            throw Self.failure(error, deadline: deadline)
        }
    }

    /// The failure that `error`, thrown by a pipeline run within `deadline`, stands for: a stage's error
    /// as it is, ``RefreshFailure/deadline(_:)`` when the deadline passed, else a cancellation.
    static func failure(_ error: any Error, deadline: WidgetDuration) -> RefreshFailure {
        switch error {
        case let error as PipelineError: .stage(error)
        case is Deadline.Exceeded: .deadline(deadline)
        default: .cancelled
        }
    }

    /// Fails the refresh when a snapshot of `entries` would pass ``ValueLimits/maximumSnapshotBytes``:
    /// the entries then do not become the last good data, and the snapshot written serves the data before.
    static func checkSnapshotSize(of entries: [TimelineEntry], limits: ValueLimits) throws(RefreshFailure) {
        // The entries are the snapshot's bulk; what surrounds them takes well under a kilobyte.
        let limit = limits.maximumSnapshotBytes
        let size = JSONWriter.size(of: .array(entries.map(Snapshot.entryValue)), style: .pretty, indent: 1, upTo: limit)
        guard size > limit else { return }
        throw .stage(PipelineError(stage: .timeline, kind: .timeline, underlying: StageError(limits.snapshotTooLargeMessage(size))))
    }

    // MARK: - Fallback

    /// The snapshot to serve when a refresh did not succeed.
    func fallbackSnapshot(_ pipeline: WidgetPipeline, state: WidgetState, now: Date, error: String, next: Date?) -> Snapshot {
        let definition = pipeline.definition
        guard let lastSuccessAt = state.lastSuccessAt, !state.lastGoodEntries.isEmpty || !state.fallbackItems.isEmpty else {
            let entries =
                definition.placeholder.map { [TimelineEntry(date: now, content: placeholderWithLocalImages($0, definition: definition))] }
                ?? []
            return Snapshot(
                id: definition.id, title: definition.title, status: .placeholder, generatedAt: now,
                lastSuccessAt: nil, nextRefreshAt: next, entries: entries, error: error
            )
        }
        let stale = definition.refreshPolicy.isStale(lastSuccessAt: lastSuccessAt, at: now)
        let entries: [TimelineEntry]
        if let item = definition.fallback.choose(
            among: state.fallbackItems.isEmpty ? state.lastGoodEntries.map(\.content) : state.fallbackItems,
            day: WidgetRefresher.dayNumber(now, timeZone: definition.timeZone))
        {
            entries = [TimelineEntry(date: now, content: item)]
        } else {
            entries = state.lastGoodEntries
        }
        return Snapshot(
            id: definition.id, title: definition.title, status: stale ? .stale : .cached, generatedAt: now,
            lastSuccessAt: lastSuccessAt, nextRefreshAt: next, entries: entries, error: error
        )
    }

    // MARK: - Days

    /// Days since 1970-01-01 of the local date of `date` in `timeZone`.
    public static func dayNumber(_ date: Date, timeZone: TimeZone) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let midnight = utc.date(from: DateComponents(year: parts.year, month: parts.month, day: parts.day))!
        return Int((midnight.timeIntervalSince1970 / 86_400).rounded(.down))
    }
}
