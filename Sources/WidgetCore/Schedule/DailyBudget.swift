public import Foundation

/// How much of its daily budget (`maxPerDay`) a widget has spent: what its state keeps, and what
/// ``RefreshPolicy/spendBudget(_:at:enforced:)`` counts in.
public struct DailyBudget: Sendable, Hashable {
    /// The local day (`yyyy-MM-dd` in the widget's zone) the count belongs to; nil before any refresh.
    public var day: String?
    /// Refreshes run on ``day``.
    public var used: Int
    /// When ``day`` ends (the next local midnight): from then on ``used`` counts for a day that is over,
    /// which can be told without knowing the widget's zone.
    public var dayEndsAt: Date?

    /// A count of `used` refreshes on `day`, which ends at `dayEndsAt`; by default none.
    public init(day: String? = nil, used: Int = 0, dayEndsAt: Date? = nil) {
        self.day = day
        self.used = used
        self.dayEndsAt = dayEndsAt
    }

    /// The refreshes counted for the day of `now`: ``used`` until ``dayEndsAt``, then 0.
    public func used(at now: Date) -> Int {
        guard day != nil else { return 0 }
        if let dayEndsAt, now >= dayEndsAt { return 0 }
        return used
    }
}
