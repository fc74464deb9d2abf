public import Foundation
public import WidgetCore
public import WidgetJSON

/// What the daemon remembers about a widget between refreshes and restarts: its line in
/// `OUT/.state/_states.jsonl` (see ``SnapshotStore/writeState(_:for:syncsFolder:)``).
///
/// Front-ends ignore this folder. It holds the last good entries, the items kept for fallback, the
/// validators for conditional requests, the budget counter and the next due time.
public struct WidgetState: Sendable, Hashable {
    /// The entries of the last successful refresh.
    public var lastGoodEntries: [TimelineEntry] = []
    /// When the last refresh succeeded.
    public var lastSuccessAt: Date?
    /// The contents of recent good entries, newest first, for `fallback.keep` and `pick`.
    public var fallbackItems: [WidgetValue] = []
    /// When the next refresh is due.
    public var nextDueAt: Date?
    /// When the last refresh (good or bad) ran.
    public var lastAttemptAt: Date?
    /// The last refresh's error, if it failed.
    public var lastError: String?
    /// Failed refreshes in a row, for retry backoff.
    public var consecutiveFailures = 0
    /// The local day (`yyyy-MM-dd` in the widget's zone) the budget counter belongs to.
    public var budgetDay: String?
    /// Refreshes run on `budgetDay`.
    public var budgetUsed = 0
    /// When `budgetDay` ends (the next local midnight): from then on ``budgetUsed`` counts for a day
    /// that is over, which `status` can tell without knowing the widget's zone.
    public var budgetDayEndsAt: Date?

    /// The daily budget's count, as ``budgetDay``, ``budgetUsed`` and ``budgetDayEndsAt`` keep it: what
    /// `RefreshPolicy` counts refreshes in.
    public var budget: DailyBudget {
        get { DailyBudget(day: budgetDay, used: budgetUsed, dayEndsAt: budgetDayEndsAt) }
        set {
            budgetDay = newValue.day
            budgetUsed = newValue.used
            budgetDayEndsAt = newValue.dayEndsAt
        }
    }

    /// The refreshes counted for the day of `now`: ``budgetUsed`` until ``budgetDayEndsAt``, then 0.
    public func refreshesToday(at now: Date) -> Int {
        budget.used(at: now)
    }
    /// Validators and parsed values of the last successful fetches, for conditional requests.
    public var fetchCache: [FetchCacheKey: CachedFetch] = [:]

    /// The state of a widget never refreshed: no data, no budget used, nothing due.
    public init() {}

    /// The state as the JSON object saved in its line of `_states.jsonl`, with every member (null when
    /// absent) and dates as RFC 3339 timestamps.
    public var value: WidgetValue {
        var object: WidgetObject = [:]
        object["lastGoodEntries"] = .array(lastGoodEntries.map(Snapshot.entryValue))
        object["lastSuccessAt"] = lastSuccessAt.map { .string(Timestamp.string($0)) } ?? .null
        object["fallbackItems"] = .array(fallbackItems)
        object["nextDueAt"] = nextDueAt.map { .string(Timestamp.string($0)) } ?? .null
        object["lastAttemptAt"] = lastAttemptAt.map { .string(Timestamp.string($0)) } ?? .null
        object["lastError"] = lastError.map(WidgetValue.string) ?? .null
        object["consecutiveFailures"] = .number(WidgetNumber(consecutiveFailures))
        object["budgetDay"] = budgetDay.map(WidgetValue.string) ?? .null
        object["budgetUsed"] = .number(WidgetNumber(budgetUsed))
        object["budgetDayEndsAt"] = budgetDayEndsAt.map { .string(Timestamp.string($0)) } ?? .null
        var cache = WidgetObject()
        for (key, fetch) in fetchCache.sorted(by: { $0.key < $1.key }) {
            cache[key.description] = ["validators": WidgetState.value(of: fetch.validators), "value": fetch.value]
        }
        object["fetchCache"] = .object(cache)
        return .object(object)
    }

    /// Reads a state saved as ``value``; it never fails: a missing or unreadable member keeps its initial
    /// value, and a cached fetch without its validators or value is dropped.
    public init(value: WidgetValue) {
        lastGoodEntries = (value["lastGoodEntries"]?.array ?? []).compactMap(Snapshot.entry(from:))
        lastSuccessAt = value["lastSuccessAt"]?.string.flatMap(Timestamp.date)
        fallbackItems = value["fallbackItems"]?.array ?? []
        nextDueAt = value["nextDueAt"]?.string.flatMap(Timestamp.date)
        lastAttemptAt = value["lastAttemptAt"]?.string.flatMap(Timestamp.date)
        lastError = value["lastError"]?.string
        consecutiveFailures = value["consecutiveFailures"]?.number?.int ?? 0
        budgetDay = value["budgetDay"]?.string
        budgetUsed = value["budgetUsed"]?.number?.int ?? 0
        budgetDayEndsAt = value["budgetDayEndsAt"]?.string.flatMap(Timestamp.date)
        for (text, entry) in value["fetchCache"]?.object ?? [:] {
            guard let key = FetchCacheKey(text), let validators = entry["validators"]?.object, let cached = entry["value"] else {
                continue
            }
            fetchCache[key] = CachedFetch(validators: WidgetState.validators(from: validators), value: cached)
        }
    }

    /// Validators as saved: `{"etag": …, "last-modified": …, "parser": …, "request": …}`, the members
    /// there are, in that order.
    static func value(of validators: FetchValidators) -> WidgetValue {
        let members: [(String, String?)] = [
            ("etag", validators.etag), ("last-modified", validators.lastModified), ("parser", validators.parser),
            ("request", validators.request),
        ]
        return .object(WidgetObject(members.compactMap { name, text in text.map { (name, WidgetValue.string($0)) } }))
    }

    /// Validators read back from what ``value(of:)`` saved.
    static func validators(from object: WidgetObject) -> FetchValidators {
        FetchValidators(
            etag: object["etag"]?.string, lastModified: object["last-modified"]?.string,
            request: object["request"]?.string, parser: object["parser"]?.string)
    }
}
