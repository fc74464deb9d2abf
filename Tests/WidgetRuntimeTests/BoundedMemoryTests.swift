import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetTestSupport
import WidgetTesting

/// Memory is bounded by design: whatever a server sends or a template builds, every value stays within
/// ``ValueLimits`` (depth and values) and ``RenderBudget`` (text and lists), headers and trailers within
/// their cap, and snapshots within theirs; and whatever was written can be read back.
@Suite(.timeLimit(.minutes(5)))
struct BoundedMemoryTests {
    /// `[[[…0…]]]`, nested `depth` deep.
    static func nested(_ depth: Int) -> WidgetValue {
        var value = WidgetValue.number(0)
        for _ in 0..<depth { value = .array([value]) }
        return value
    }

    // MARK: - Depth

    /// A value at the depth limit, the deepest any stage may give, is written to the state and the
    /// snapshot and read back whole: the last good data is never lost to depth.
    @Test func stateAndSnapshotAtTheDepthLimitRoundTrip() throws {
        let folder = try TemporaryFolder()
        let store = SnapshotStore(directory: folder.file("out"))
        try FolderOutput(folder: store.directory).prepareFolder()
        let deepest = Self.nested(ValueLimits.maximumDepth)
        let entry = TimelineEntry(date: Date(timeIntervalSince1970: 1_800_000_000), content: deepest)
        var state = WidgetState()
        state.lastGoodEntries = [entry]
        state.lastSuccessAt = entry.date
        state.fallbackItems = [deepest]
        state.fetchCache = [
            FetchCacheKey(.source): CachedFetch(validators: FetchValidators(etag: "\"v1\"", parser: "json {}"), value: deepest)
        ]
        let snapshot = Snapshot(
            id: "deep", title: nil, status: .fresh, generatedAt: entry.date, lastSuccessAt: entry.date, nextRefreshAt: nil,
            entries: [entry], error: nil)
        try store.writeRefresh(snapshot, state: state)
        store.syncFolders()
        #expect(store.state(for: "deep") == state)
        #expect(store.savedState(for: "deep") == state)
        #expect(store.snapshot(for: "deep")?.entries == [entry])
    }

    /// A transform that nests the value past the limit fails its refresh: what it made could be written
    /// but not read back.
    @Test func aTransformThatNestsPastTheLimitFails() async throws {
        let source = InMemorySource()
        source.set("deep", json: JSONWriter.string(["v": Self.nested(ValueLimits.maximumDepth - 1)]))
        let widget = try TestWidgets.pipeline(
            """
            {"source": {"type": "memory", "key": "deep"}, "parser": "json", "timeline": "single",
             "transforms": [{"type": "map", "fields": {"wrapped": {"again": "{{ v }}"}}}]}
            """)
        let outcome = await TestWidgets.refresher(source).refresh(widget, state: WidgetState(), now: Date())
        let error = try #require(outcome.error?.description)
        #expect(error.hasPrefix("transforms[0] (map): the value it made nests lists and objects deeper than 512 levels"), "\(error)")
    }

    // MARK: - Snapshot size

    /// A widget's gallery page stops adding entries at its limit (4 times the source's `maxBytes`, at
    /// least 1 MiB) and says so.
    @Test func aPagePastItsLimitLeavesOutTheLaterEntriesAndSaysSo() throws {
        let widget = try TestWidgets.pipeline(
            #"{"source": {"path": "data.json", "maxBytes": 1000}, "parser": "json", "timeline": "single"}"#)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let text = WidgetValue.string(String(repeating: "w", count: 1_000))
        let entries = (0..<2_000).map { TimelineEntry(date: start.addingTimeInterval(Double($0) * 60), content: ["text": text]) }
        let snapshot = Snapshot(
            id: "x", title: nil, status: .fresh, generatedAt: start, lastSuccessAt: start, nextRefreshAt: nil, entries: entries,
            error: nil)
        let card = GalleryCard.render(snapshot, definition: widget.definition, now: start)
        #expect(card.html.utf8.count < 1_100_000)
        #expect(card.html.contains("the page reached its limit of 1048576 bytes"))
        #expect(
            card.html.contains("raise the source&#39;s &quot;maxBytes&quot;") || card.html.contains("raise the source's"),
            "\(card.html.suffix(400))")
        let smaller = Snapshot(
            id: "x", title: nil, status: .fresh, generatedAt: start, lastSuccessAt: start, nextRefreshAt: nil,
            entries: Array(entries.prefix(100)), error: nil)
        #expect(!GalleryCard.render(smaller, definition: widget.definition, now: start).html.contains("page reached its limit"))
    }

}
