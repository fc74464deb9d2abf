import Foundation
import Testing
import WidgetCore
import WidgetJSON

@testable import WidgetRuntime

struct StateCacheTests {
    /// A state with every member set, its dates with fractions of a second.
    private func fullState() -> WidgetState {
        var state = WidgetState()
        state.lastGoodEntries = [TimelineEntry(date: Date(timeIntervalSince1970: 1_800_000_000.25), content: ["n": 1])]
        state.lastSuccessAt = Date(timeIntervalSince1970: 1_800_000_000.123456)
        state.fallbackItems = [["n": 1]]
        state.nextDueAt = Date(timeIntervalSince1970: 1_800_000_900.5)
        state.lastAttemptAt = Date(timeIntervalSince1970: 1_800_000_001.000001)
        state.lastError = "source: 127.0.0.1:8123 answered 503 Service Unavailable"
        state.consecutiveFailures = 3
        state.budgetDay = "2027-01-15"
        state.budgetUsed = 12
        state.budgetDayEndsAt = Date(timeIntervalSince1970: 1_800_028_800)
        state.fetchCache = [FetchCacheKey(.source): CachedFetch(validators: FetchValidators(etag: "\"v1\""), value: ["n": 1])]
        return state
    }

    @Test func aSavedStateIsKeptWithoutWhatTheJournalHoldsAndEveryOtherMemberExactly() {
        var cache = WidgetDaemon.StateCache()
        let state = fullState()
        cache.keep(state, for: "news", savedOnDisk: true)
        var slim = state
        slim.lastGoodEntries = []
        slim.fallbackItems = []
        slim.fetchCache = [:]
        #expect(cache["news"] == slim)
        #expect(cache.isCachedOnDisk("news"))
    }

    @Test func aStateNotSavedIsKeptWhole() {
        var cache = WidgetDaemon.StateCache()
        cache.keep(fullState(), for: "news", savedOnDisk: false)
        #expect(cache["news"] == fullState())
        #expect(!cache.isCachedOnDisk("news"))
        // Saved afterwards: slim again.
        cache.keep(fullState(), for: "news", savedOnDisk: true)
        #expect(cache["news"]?.fetchCache.isEmpty == true)
        #expect(cache.isCachedOnDisk("news"))
    }

    @Test func aStateWithNothingOnDiskOrCountersTooLargeStaysAsItIs() {
        var cache = WidgetDaemon.StateCache()
        cache.keep(WidgetState(), for: "empty", savedOnDisk: true)
        #expect(cache["empty"] == WidgetState())
        #expect(!cache.isCachedOnDisk("empty"))
        var large = fullState()
        large.consecutiveFailures = Int(Int32.max) + 1
        cache.keep(large, for: "large", savedOnDisk: true)
        #expect(cache["large"] == large)
        cache.remove("large")
        #expect(cache["large"] == nil)
        #expect(cache["empty"] == WidgetState())
    }
}
