import Foundation
import Testing
import WidgetCore
import WidgetJSON

@testable import WidgetRuntime

/// Each object's `Content-Type` and `Cache-Control`: a snapshot and its page may be kept until the
/// snapshot can next change, the earlier of its next refresh and its next entry's date.
struct OutputObjectKindsTests {
    let generated = TestWidgets.date("2026-11-22T15:00:00Z")

    func snapshot(status: Snapshot.Status = .fresh, next: Date?, entries: [Date]) -> Snapshot {
        Snapshot(
            id: "news", title: nil, status: status, generatedAt: generated, lastSuccessAt: generated, nextRefreshAt: next,
            entries: entries.map { TimelineEntry(date: $0, content: ["n": 1]) }, error: nil)
    }

    @Test func theNextRefreshBoundsTheAgeWhenNoEntryComesSooner() {
        let snapshot = snapshot(next: generated.addingTimeInterval(900), entries: [generated.addingTimeInterval(-60)])
        #expect(OutputObject.snapshotMaxAge(of: snapshot) == 900)
        #expect(OutputObject.snapshot(snapshot).cacheControl == "public, max-age=900")
        #expect(OutputObject.page(of: snapshot).cacheControl == "public, max-age=900")
    }

    @Test func theNextEntrysDateBoundsTheAgeWhenItComesBeforeTheNextRefresh() {
        let snapshot = snapshot(
            next: generated.addingTimeInterval(3_600),
            entries: [generated, generated.addingTimeInterval(600.7), generated.addingTimeInterval(1_200)])
        #expect(OutputObject.snapshotMaxAge(of: snapshot) == 600)
        // Without a next refresh, the next entry alone.
        #expect(OutputObject.snapshotMaxAge(of: self.snapshot(next: nil, entries: [generated.addingTimeInterval(1_200)])) == 1_200)
    }

    @Test func aPastNextRefreshGivesZeroAndNothingKnownTheDefault() {
        #expect(OutputObject.snapshotMaxAge(of: snapshot(next: generated.addingTimeInterval(-30), entries: [])) == 0)
        #expect(OutputObject.snapshotMaxAge(of: snapshot(next: nil, entries: [generated])) == OutputObject.defaultSnapshotMaxAge)
        #expect(OutputObject.snapshotMaxAge(of: snapshot(status: .refreshing, next: nil, entries: [])) == 0)
    }

    @Test func eachKindHasItsContentTypeAndCacheControl() {
        let snapshot = snapshot(next: generated.addingTimeInterval(60), entries: [])
        #expect(OutputObject.snapshot(snapshot).contentType == "application/json")
        #expect(OutputObject.snapshot(snapshot).durability == .durable)
        #expect(OutputObject.page(of: snapshot).contentType == "text/html; charset=utf-8")
        #expect(OutputObject.page(of: snapshot).durability == .rebuildable)
        #expect(OutputObject.listing(contentType: OutputObject.jsonType).cacheControl == "public, max-age=5")
        #expect(OutputObject.metricsType == "text/plain; version=0.0.4")
        #expect(OutputObject.state.cacheControl == "no-store")
        #expect(
            OutputObject.asset(named: "ab12.png")
                == OutputObject(contentType: "image/png", cacheControl: "public, max-age=31536000, immutable"))
        #expect(OutputObject.assetContentType(of: "ab12.JPG") == "image/jpeg")
        #expect(OutputObject.assetContentType(of: "ab12.webp") == "image/webp")
        #expect(OutputObject.assetContentType(of: "ab12") == "application/octet-stream")
    }
}
