import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime

/// What the fingerprints of a snapshot and a state count: not the times every refresh moves, but every
/// change a reader of the bucket would see.
struct SnapshotFingerprintTests {
    let generated = TestWidgets.date("2026-11-22T15:00:00Z")

    func snapshot(at date: Date, content: String = "one", status: Snapshot.Status = .fresh, later: Date? = nil) -> Snapshot {
        var entries = [TimelineEntry(date: date, content: ["headline": .string(content)])]
        if let later { entries.append(TimelineEntry(date: later, content: ["headline": "later"])) }
        return Snapshot(
            id: "news", title: "News", status: status, generatedAt: date, lastSuccessAt: date, nextRefreshAt: date.addingTimeInterval(60),
            entries: entries, error: nil)
    }

    @Test func aSnapshotCountsItsContentNotItsTimes() {
        let first = SnapshotStore.snapshotFingerprint(of: snapshot(at: generated))
        let later = generated.addingTimeInterval(600)
        // The `single` timeline's entry is dated at the refresh: only the times moved.
        #expect(SnapshotStore.snapshotFingerprint(of: snapshot(at: later)) == first)
        #expect(SnapshotStore.snapshotFingerprint(of: snapshot(at: later, content: "two")) != first)
        #expect(SnapshotStore.snapshotFingerprint(of: snapshot(at: later, status: .stale)) != first)
        var warned = snapshot(at: later)
        warned.warnings = ["transforms[0] (filter): gave an empty list"]
        #expect(SnapshotStore.snapshotFingerprint(of: warned) != first)
        // An entry still to come counts with its date: a front-end switches to it then.
        let coming = SnapshotStore.snapshotFingerprint(of: snapshot(at: generated, later: generated.addingTimeInterval(3_600)))
        #expect(coming != first)
        #expect(SnapshotStore.snapshotFingerprint(of: snapshot(at: later, later: generated.addingTimeInterval(3_600))) == coming)
        #expect(SnapshotStore.snapshotFingerprint(of: snapshot(at: generated, later: generated.addingTimeInterval(7_200))) != coming)
    }

    @Test func aStateCountsWhatARestartNeedsNotItsTimesOrItsBudgetCount() {
        var state = WidgetState()
        state.lastGoodEntries = [TimelineEntry(date: generated, content: ["headline": "one"])]
        state.lastSuccessAt = generated
        state.lastAttemptAt = generated
        state.nextDueAt = generated.addingTimeInterval(60)
        state.fallbackItems = [["headline": "one"]]
        state.budgetDay = "2026-11-22"
        state.budgetUsed = 3
        let first = SnapshotStore.stateFingerprint(of: state)

        var next = state
        next.lastGoodEntries = [TimelineEntry(date: generated.addingTimeInterval(60), content: ["headline": "one"])]
        next.lastSuccessAt = generated.addingTimeInterval(60)
        next.lastAttemptAt = generated.addingTimeInterval(60)
        next.nextDueAt = generated.addingTimeInterval(120)
        next.budgetUsed = 4
        #expect(SnapshotStore.stateFingerprint(of: next) == first)

        var items = next
        items.fallbackItems.insert(["headline": "two"], at: 0)
        #expect(SnapshotStore.stateFingerprint(of: items) != first)
        var failing = next
        failing.consecutiveFailures = 1
        failing.lastError = "HTTP 503"
        #expect(SnapshotStore.stateFingerprint(of: failing) != first)
        var tomorrow = next
        tomorrow.budgetDay = "2026-11-23"
        #expect(SnapshotStore.stateFingerprint(of: tomorrow) != first)
    }
}
