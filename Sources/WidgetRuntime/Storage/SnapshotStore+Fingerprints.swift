public import Foundation
import Synchronization
public import WidgetCore
import WidgetJSON

/// What tells a bucket whether an object changed, so that a refresh that got the same data costs no PUT
/// (see `OutputObject`'s ``OutputObject/fingerprint`` and ``OutputObject/heartbeat``). Every refresh
/// moves the times in what it writes — a snapshot's `generatedAt`, a page's "updated" — so the bytes
/// always differ; the fingerprint leaves those times out, and the heartbeat sends the object again once
/// its upload is that old, so the times a reader of the bucket sees are never older than the heartbeat.
///
/// | object | fingerprint: what counts | heartbeat |
/// |---|---|---|
/// | `<id>.json` | the snapshot without `generatedAt`, `lastSuccessAt`, `nextRefreshAt`, and entries dated at or before the refresh counted without their date | ``OutputObject/contentHeartbeat`` |
/// | `<id>.html` | the snapshot's fingerprint, the definition as written, its zone and step limit, the gallery's release | the same |
/// | `.state/<id>.json` | the state without `lastSuccessAt`, `lastAttemptAt`, `nextDueAt`, `budgetUsed`, and its last good entries as the snapshot's | the same |
/// | `index.json`, `index.html` | the list of widgets (id, title, status, page) and each page's fingerprint, without `generatedAt`, next refreshes and card generations | the same |
/// | `shards/K-of-N.json`, `shards/K-of-N.html` (a shard's part) | as `index.json` and `index.html`, without `nextWriteAt` | ``OutputObject/recordHeartbeat`` |
/// | `.state/_daemon.json` (a shard's `daemon.json`) | the record without `lastWaveAt` and the uploads' figures | the same |
/// | `widgetd.prom` (a shard's `.prom`) | nothing: sent at most every heartbeat | the same |
///
/// A shard's part goes at least every minute while its widgets refresh: the gallery of every shard
/// calls a shard late two minutes past the part's `nextWriteAt`, and a part that lags a minute never
/// is. Its page goes with it, so that the part's generation is the page's.
///
/// A folder output ignores both, and the store computes neither for one.
extension SnapshotStore {
    /// Whether the output compares fingerprints: every output but a folder.
    var marksChanges: Bool { !(output is FolderOutput) }

    /// The fingerprint of a snapshot: everything a front-end reads but the times that move with every
    /// refresh (`generatedAt`, `lastSuccessAt`, `nextRefreshAt`). Status, title, error, warnings and
    /// entries count; an entry dated at or before the refresh (the `single` timeline dates its entry at
    /// the refresh) counts by its content and place, not its date, since a front-end shows the last such
    /// entry whatever its date; an entry dated after it counts with its date.
    public static func snapshotFingerprint(of snapshot: Snapshot) -> String {
        snapshotFingerprint(ofValue: snapshot.value, entries: snapshot.entries, generatedAt: snapshot.generatedAt)
    }

    /// ``snapshotFingerprint(of:)`` from the snapshot's value, already made.
    static func snapshotFingerprint(ofValue value: WidgetValue, entries: [TimelineEntry], generatedAt: Date) -> String {
        guard case .object(var object) = value else { return WidgetDefinition.fingerprint(of: value) }
        for key in ["generatedAt", "lastSuccessAt", "nextRefreshAt"] { object[key] = .null }
        object["entries"] = .array(undated(entries, upTo: generatedAt))
        return WidgetDefinition.fingerprint(of: .object(object))
    }

    /// The fingerprint of a widget's state: everything but the times that move with every refresh
    /// (`lastSuccessAt`, `lastAttemptAt`, `nextDueAt`) and the budget's count of refreshes (`budgetUsed`,
    /// which every refresh raises). Validators, cached fetches, fallback items, last good entries (as a
    /// snapshot's), failures in a row, the error and the budget's day count.
    ///
    /// A state restored from the bucket (a shard started on another machine) may therefore lag the one
    /// in the working folder by up to ``OutputObject/contentHeartbeat``: its next refresh comes a little
    /// early, and the day's budget may count the refreshes of that last quarter hour fewer, so a widget
    /// with `maxPerDay` may refresh that many more times on the day of the move. Every changed validator,
    /// item or error is there.
    public static func stateFingerprint(of state: WidgetState) -> String {
        guard case .object(var object) = state.value else { return "" }
        for key in ["lastSuccessAt", "lastAttemptAt", "nextDueAt", "budgetUsed"] { object[key] = .null }
        object["lastGoodEntries"] = .array(undated(state.lastGoodEntries, upTo: state.lastSuccessAt ?? .distantPast))
        return WidgetDefinition.fingerprint(of: .object(object))
    }

    /// The fingerprint of a widget's page: the snapshot's (``snapshotFingerprint(of:)``) and what
    /// else the card is rendered with — the definition as written (its view and partials), its zone and
    /// template step limit, the history its views read — and the gallery's release. The times the page shows (its footer's "updated"
    /// and "next refresh", and a view that renders `now` or an entry's date at or before the refresh)
    /// do not count: they are at most ``OutputObject/contentHeartbeat`` old in the bucket. Which entry
    /// shows without the script (the last dated at or before the refresh) follows from the snapshot's.
    static func pageFingerprint(snapshot: String, definition: WidgetDefinition?, history: WidgetValue = .object([:])) -> String {
        var parts: [WidgetValue] = [.string(snapshot), .string(BuildInfo.release), .string(GalleryPage.contentSecurityPolicy)]
        // The views may draw the history: a new point is a new page.
        if history != .object([:]) { parts.append(history) }
        if let definition {
            parts += [
                .string(definition.fingerprint), .string(definition.timeZone.identifier),
                .number(WidgetNumber(definition.templateStepLimit)),
            ]
        }
        return WidgetDefinition.fingerprint(of: .array(parts))
    }

    /// The fingerprint of `index.json` (`value`, as written): without its `generatedAt`, each widget's
    /// `nextRefreshAt`, and the generations of the gallery and of each card (which change with the times
    /// a card shows), each widget's page counted by its fingerprint instead (``pageFingerprint(of:generation:)``).
    func indexFingerprint(of value: WidgetValue) -> String {
        guard case .object(var index) = value else { return WidgetDefinition.fingerprint(of: value) }
        index["generatedAt"] = .null
        index["generation"] = .null
        if let widgets = index["widgets"]?.array {
            index["widgets"] = .array(
                widgets.map { widget in
                    guard case .object(var object) = widget else { return widget }
                    object["nextRefreshAt"] = .null
                    if let id = object["id"]?.string, let generation = object["generation"]?.string {
                        object["generation"] = .string(pageFingerprint(of: id, generation: generation))
                    }
                    return .object(object)
                })
        }
        return WidgetDefinition.fingerprint(of: .object(index))
    }

    /// The fingerprint of `index.html` with `cards`: its title, the gallery's release, and each card's
    /// widget and page fingerprint, in order (not the time it was written, nor the times the cards show).
    func galleryFingerprint(title: String, cards: [GalleryCard]) -> String {
        var parts: [WidgetValue] = [.string(title), .string(BuildInfo.release), .string(GalleryPage.contentSecurityPolicy)]
        for card in cards {
            parts.append(.array([.string(card.id), .string(pageFingerprint(of: card.id, generation: card.generation))]))
        }
        return WidgetDefinition.fingerprint(of: .array(parts))
    }

    /// The fingerprint of the page of widget `id` whose card has `generation`: as this store last wrote
    /// it, or, for a card it did not write (one an earlier process left in the page), the card's
    /// generation, which stays until the page is written again.
    func pageFingerprint(of id: String, generation: String) -> String {
        pageFingerprints.fingerprint(of: id, generation: generation) ?? generation
    }

    /// The fingerprint of the daemon's record: without `lastWaveAt` and the uploads' figures (`output`),
    /// which change with every wave. A start, a stop, the number of widgets or an unwritten widget count.
    static func recordFingerprint(of record: DaemonRecord) -> String {
        guard case .object(var object) = record.value else { return "" }
        object["lastWaveAt"] = .null
        object["output"] = .null
        return WidgetDefinition.fingerprint(of: .object(object))
    }

    /// The fingerprint of `widgetd.prom`: always the same, so the metrics go at most every
    /// ``OutputObject/recordHeartbeat``.
    static let metricsFingerprint = "widgetd.prom"

    /// `entries` as fingerprints count them: those dated at or before `reference` without their date.
    static func undated(_ entries: [TimelineEntry], upTo reference: Date) -> [WidgetValue] {
        entries.map { entry in
            guard case .object(var object) = Snapshot.entryValue(entry) else { return .null }
            if entry.date <= reference { object["date"] = .null }
            return .object(object)
        }
    }
}

extension OutputObject {
    /// How old, in seconds, the bucket's copy of an unchanged snapshot, page, state, `index.json` or
    /// `index.html` may grow before a write sends it again with its new times: 15 minutes.
    public static let contentHeartbeat: Double = 900
    /// How often, at most, the bucket gets the daemon's record (`.state/_daemon.json`), `widgetd.prom`
    /// and a shard's part of the index while they change only by their times and figures, in seconds:
    /// 60.
    public static let recordHeartbeat: Double = 60

    /// This object, to be compared by `fingerprint` and sent again after `heartbeat` seconds.
    func marked(_ fingerprint: String, heartbeat: Double) -> OutputObject {
        var object = self
        object.fingerprint = fingerprint
        object.heartbeat = heartbeat
        return object
    }
}

/// The fingerprint of each widget's page as a store last wrote it, and the one before, each with its
/// card's generation, shared by the store's copies: `index.json` and `index.html` count a page by it. The
/// one before stays for a gallery written while a refresh replaces the page, which reads the old card.
final class PageFingerprints: Sendable {
    private let pages = Mutex<[String: [(generation: String, fingerprint: String)]]>([:])

    /// The fingerprint of `id`'s page when its card is the one of `generation`.
    func fingerprint(of id: String, generation: String) -> String? {
        pages.withLock { pages in pages[id]?.first { $0.generation == generation }?.fingerprint }
    }

    /// Notes the page of `id` written with the card of `generation`.
    func set(_ fingerprint: String, for id: String, generation: String) {
        pages.withLock { pages in
            let previous = pages[id]?.first.map { [$0] } ?? []
            pages[id] = [(generation, fingerprint)] + previous.filter { $0.generation != generation }
        }
    }

    /// Forgets `id`'s page.
    func remove(_ id: String) {
        _ = pages.withLock { $0.removeValue(forKey: id) }
    }
}
