public import Foundation
import WidgetLiquid

/// Every rule about a widget's timing, in one place: when its next refresh is due (schedule and jitter),
/// when to retry after failures (backoff and `Retry-After`), when its data turns stale, and how its daily
/// budget (`maxPerDay`, when set) is counted. The daemon, `run --once`, `list`, `next` and `status` all ask it, so
/// they cannot disagree.
///
/// ```swift
/// let policy = definition.refreshPolicy
/// let due = policy.nextRefresh(after: now)          // jitter included
/// let staleAt = policy.staleAt(lastSuccessAt: last) // nil without staleAfter
/// ```
public struct RefreshPolicy: Sendable {
    /// The widget's id, which its jitter is derived from.
    public let widgetID: String
    /// The widget's schedule: its rule, jitter and daily budget.
    public let schedule: Schedule
    /// The zone of `at` and `cron` times and of the budget's days.
    public let timeZone: TimeZone
    /// How old the last good data may be before it is served as `stale`.
    public let staleAfter: WidgetDuration?
    /// The widget's stable delay, added to each due time: in `0..<jitter`, the same on every run.
    public let jitterOffset: TimeInterval

    /// The first retry after a failure; each further failure doubles it, up to the schedule's interval.
    public static let firstRetry: TimeInterval = 30
    /// The longest a server's `Retry-After` can delay a widget: a day.
    public static let longestRetryAfter: TimeInterval = 86_400

    /// Creates the policy of a widget, working out its jitter offset from its id once.
    public init(widgetID: String, schedule: Schedule, timeZone: TimeZone, staleAfter: WidgetDuration?) {
        self.widgetID = widgetID
        self.schedule = schedule
        self.timeZone = timeZone
        self.staleAfter = staleAfter
        jitterOffset = schedule.jitterOffset(for: widgetID)
    }

    // MARK: - Due times

    /// When the refresh after one at `date` is due, jitter included; nil for `never`, and for `atEnd`
    /// without a last entry.
    ///
    /// - Parameters:
    ///   - date: the moment of the refresh the next one follows.
    ///   - lastEntryDate: the date of the timeline's last entry, for `atEnd`.
    public func nextRefresh(after date: Date, lastEntryDate: Date? = nil) -> Date? {
        schedule.nextRefresh(after: date, timeZone: timeZone, lastEntryDate: lastEntryDate)
            .map { $0.addingTimeInterval(jitterOffset) }
    }

    /// The next `count` due times after `date`, each computed from the one before as the daemon does
    /// (a refresh at a due time schedules the next from there).
    public func upcoming(after date: Date, count: Int) -> [Date] {
        var times: [Date] = []
        var cursor = date
        while times.count < count, let next = nextRefresh(after: cursor) {
            times.append(next)
            cursor = next
        }
        return times
    }

    /// When to retry after `failures` failures in a row ending at `date`: 30 s doubling, capped at the
    /// schedule's typical interval (and at least 30 s), never before the source's `Retry-After` (itself
    /// capped at a day). Nil for `never` without a `Retry-After`.
    public func retryTime(failures: Int, after date: Date, retryAfter: TimeInterval?) -> Date? {
        if case .never = schedule.rule, retryAfter == nil { return nil }
        let cap = schedule.typicalInterval(after: date, timeZone: timeZone)
        var delay = min(Self.firstRetry * pow(2, Double(min(failures, 20) - 1)), max(Self.firstRetry, cap))
        if let retryAfter { delay = max(delay, min(retryAfter, Self.longestRetryAfter)) }
        return date.addingTimeInterval(delay)
    }

    // MARK: - Staleness

    /// The moment data last refreshed at `lastSuccessAt` turns stale; nil without `staleAfter` or data.
    public func staleAt(lastSuccessAt: Date?) -> Date? {
        guard let staleAfter, let lastSuccessAt else { return nil }
        return lastSuccessAt.addingTimeInterval(staleAfter.timeInterval)
    }

    /// Whether data last refreshed at `lastSuccessAt` is stale at `now`: older than `staleAfter`.
    public func isStale(lastSuccessAt: Date?, at now: Date) -> Bool {
        guard let staleAt = staleAt(lastSuccessAt: lastSuccessAt) else { return false }
        return now > staleAt
    }

    // MARK: - Daily budget

    /// The local day of `date` in the widget's zone, `yyyy-MM-dd`: the budget's unit.
    public func budgetDay(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        // (String(format:) took as long as the calendar.)
        let year = String(parts.year ?? 0).leftPadded(to: 4)
        return "\(year)-\(String(parts.month ?? 0).leftPadded(to: 2))-\(String(parts.day ?? 0).leftPadded(to: 2))"
    }

    /// When the budget day of `date` ends: the start of the next local day.
    public func budgetDayEnds(after date: Date) -> Date {
        let start = calendar.startOfDay(for: date)
        return calendar.date(byAdding: .day, value: 1, to: start) ?? date.addingTimeInterval(86_400)
    }

    /// When a spent budget allows the next refresh: the start of the next local day, jitter included.
    public func budgetRenews(after date: Date) -> Date {
        budgetDayEnds(after: date).addingTimeInterval(jitterOffset)
    }

    /// What a refresh at some moment does with the daily budget (see ``spendBudget(_:at:enforced:)``).
    public enum BudgetDecision: Sendable, Hashable {
        /// The refresh runs; it is counted.
        case spent
        /// The day's `maxPerDay` refreshes (`limit`) have run: the refresh waits until `renewsAt`, not counted.
        case usedUp(limit: Int, renewsAt: Date)
    }

    /// Counts a refresh at `now` in `budget`: a new local day starts the count from 0; a refresh past
    /// the schedule's `maxPerDay`, when it has one, is refused when `enforced` (a manual `run --once` is
    /// not). Without `maxPerDay` every refresh is counted and none refused.
    ///
    /// ```swift
    /// if case .usedUp(_, let next) = policy.spendBudget(&state.budget, at: now, enforced: true) { … }
    /// ```
    public func spendBudget(_ budget: inout DailyBudget, at now: Date, enforced: Bool) -> BudgetDecision {
        let today = budgetDay(now)
        if budget.day != today {
            budget.day = today
            budget.used = 0
        }
        budget.dayEndsAt = budgetDayEnds(after: now)
        if enforced, let limit = schedule.maxPerDay, budget.used >= limit {
            return .usedUp(limit: limit, renewsAt: budgetRenews(after: now))
        }
        budget.used += 1
        return .spent
    }

    // MARK: - Source freshness

    /// The longest a source's `Cache-Control: max-age` can delay a widget's next refresh: a day.
    public static let longestMaxAge: TimeInterval = 86_400

    /// When the refresh after a successful one at `date` is due: the schedule's next time (see
    /// ``nextRefresh(after:lastEntryDate:)``), but not before the sources' answers stop being fresh —
    /// `maxAge` seconds after `date`, capped at ``longestMaxAge``.
    public func nextRefresh(after date: Date, lastEntryDate: Date?, sourcesFreshFor maxAge: TimeInterval?) -> Date? {
        let scheduled = nextRefresh(after: date, lastEntryDate: lastEntryDate)
        guard let maxAge, maxAge > 0, let scheduled else { return scheduled }
        return max(scheduled, date.addingTimeInterval(min(maxAge, Self.longestMaxAge)))
    }

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }
}

extension WidgetDefinition {
    /// This widget's timing rules.
    public var refreshPolicy: RefreshPolicy {
        RefreshPolicy(widgetID: id, schedule: self.schedule, timeZone: timeZone, staleAfter: self.staleAfter)
    }
}
