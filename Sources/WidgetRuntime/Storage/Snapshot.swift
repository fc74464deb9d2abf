public import Foundation
public import WidgetCore
public import WidgetJSON
import WidgetLiquid

/// What a front-end reads: `OUT/<id>.json`.
///
/// ```json
/// {"schemaVersion": 2, "id": "jotd", "title": "Joke of the Day", "status": "fresh",
///  "generatedAt": "…", "lastSuccessAt": "…", "nextRefreshAt": "…",
///  "entries": [{"date": "…", "content": {…}}], "error": null, "warnings": []}
/// ```
///
/// A front-end shows the last entry whose `date` is not after now, or the first when all are in the future.
public struct Snapshot: Sendable, Hashable {
    /// The version of this format; it changes only when a front-end would have to change. Version 2
    /// added ``warnings``.
    public static let schemaVersion = 2
    /// The versions ``init(value:)`` reads: files written before ``warnings`` existed are read without any.
    public static let readableSchemaVersions = 1...2

    /// How current the entries are.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        /// The last refresh succeeded.
        case fresh
        /// The last refresh failed; serving the last good data, which is not yet stale.
        case cached
        /// Serving data older than the widget's `staleAfter`.
        case stale
        /// There has never been data; serving the placeholder, if any.
        case placeholder
        /// The widget's first refresh is under way: there is no data yet, and ``generatedAt`` is the
        /// moment that refresh started (see ``Snapshot/refreshing(id:title:startedAt:nextRefreshAt:)``).
        case refreshing
    }

    /// The widget's id, also the file's name without `.json`.
    public var id: String
    /// The widget's `title`, if its definition has one.
    public var title: String?
    /// How current the entries are.
    public var status: Status
    /// When the refresh that produced this snapshot ran.
    public var generatedAt: Date
    /// When the widget last refreshed successfully; nil when it never has.
    public var lastSuccessAt: Date?
    /// When the widget refreshes next; nil when its schedule has no next refresh.
    public var nextRefreshAt: Date?
    /// The timeline: the new data, what the `fallback` picks from the last good data, or the placeholder
    /// (empty when the widget has none).
    public var entries: [TimelineEntry]
    /// Which stage failed and why, when `status` is not `fresh`.
    public var error: String?
    /// What the refresh that gave the entries has to say though it succeeded, one sentence each, naming
    /// the stage (`PipelineWarning`): `transforms[1] (filter): gave an empty list from a list of 12
    /// items; …`. Empty when all went well, and for a snapshot that is not `fresh` (its `error` says why).
    public var warnings: [String]

    /// A snapshot with every member given.
    public init(
        id: String,
        title: String?,
        status: Status,
        generatedAt: Date,
        lastSuccessAt: Date?,
        nextRefreshAt: Date?,
        entries: [TimelineEntry],
        error: String?,
        warnings: [String] = []
    ) {
        self.id = id
        self.title = title
        self.status = status
        self.generatedAt = generatedAt
        self.lastSuccessAt = lastSuccessAt
        self.nextRefreshAt = nextRefreshAt
        self.entries = entries
        self.error = error
        self.warnings = warnings
    }

    /// The snapshot of a widget whose first refresh started at `startedAt`: status ``Status/refreshing``,
    /// no entries, no error. The refresh's own snapshot replaces it when it ends.
    public static func refreshing(id: String, title: String?, startedAt: Date, nextRefreshAt: Date? = nil) -> Snapshot {
        Snapshot(
            id: id, title: title, status: .refreshing, generatedAt: startedAt, lastSuccessAt: nil, nextRefreshAt: nextRefreshAt,
            entries: [], error: nil)
    }

    /// When the first refresh of a ``Status/refreshing`` widget started; nil for any other status.
    public var refreshStartedAt: Date? { status == .refreshing ? generatedAt : nil }

    // MARK: - JSON

    /// The snapshot as the JSON object front-ends read.
    public var value: WidgetValue {
        var object: WidgetObject = [
            "schemaVersion": .number(WidgetNumber(Snapshot.schemaVersion)),
            "id": .string(id),
            "title": title.map(WidgetValue.string) ?? .null,
            "status": .string(status.rawValue),
            "generatedAt": .string(Timestamp.string(generatedAt)),
            "lastSuccessAt": lastSuccessAt.map { .string(Timestamp.string($0)) } ?? .null,
            "nextRefreshAt": nextRefreshAt.map { .string(Timestamp.string($0)) } ?? .null,
        ]
        if let refreshStartedAt { object["refreshStartedAt"] = .string(Timestamp.string(refreshStartedAt)) }
        object["entries"] = .array(entries.map(Snapshot.entryValue))
        object["error"] = error.map(WidgetValue.string) ?? .null
        object["warnings"] = .array(warnings.map(WidgetValue.string))
        return .object(object)
    }

    /// One entry as a snapshot's `entries` hold it: `{"date", "content"}`, with `relevance` and `url`
    /// when it has them.
    public static func entryValue(_ entry: TimelineEntry) -> WidgetValue {
        var object: WidgetObject = ["date": .string(Timestamp.string(entry.date)), "content": entry.content]
        if let relevance = entry.relevance { object["relevance"] = .number(relevance) }
        if let url = entry.url { object["url"] = .string(url) }
        return .object(object)
    }

    static func entry(from value: WidgetValue) -> TimelineEntry? {
        guard let dateText = value["date"]?.string, let date = Timestamp.date(dateText) else { return nil }
        return TimelineEntry(
            date: date,
            content: value["content"] ?? .null,
            relevance: value["relevance"]?.number,
            url: value["url"]?.string
        )
    }

    /// Reads a snapshot file's JSON; `nil` when it is not a snapshot of a schema this version reads
    /// (``readableSchemaVersions``).
    public init?(value: WidgetValue) {
        guard let version = value["schemaVersion"]?.number?.int, Snapshot.readableSchemaVersions.contains(version),
            let id = value["id"]?.string,
            let statusText = value["status"]?.string, let status = Status(rawValue: statusText),
            let generatedText = value["generatedAt"]?.string, let generatedAt = Timestamp.date(generatedText)
        else { return nil }
        self.id = id
        title = value["title"]?.string
        self.status = status
        self.generatedAt = generatedAt
        lastSuccessAt = value["lastSuccessAt"]?.string.flatMap(Timestamp.date)
        nextRefreshAt = value["nextRefreshAt"]?.string.flatMap(Timestamp.date)
        entries = (value["entries"]?.array ?? []).compactMap(Snapshot.entry(from:))
        error = value["error"]?.string
        warnings = (value["warnings"]?.array ?? []).compactMap(\.string)
    }
}

/// RFC 3339 timestamps in UTC, whole seconds: `2026-11-22T05:00:03Z`.
public enum Timestamp {
    /// `date` as an RFC 3339 timestamp in UTC, to the second: `2026-11-22T05:00:03Z`.
    public static func string(_ date: Date) -> String {
        InternetDate.timestamp(date)
    }

    /// With milliseconds, for log lines: `2026-11-22T05:00:03.042Z`.
    public static func milliseconds(_ date: Date) -> String {
        InternetDate.timestamp(date, milliseconds: true)
    }

    /// Reads an RFC 3339 timestamp, with or without fractional seconds; nil when `text` is not one.
    public static func date(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
