public import Foundation
public import WidgetCore
public import WidgetJSON

/// A widget's history: named series of points, one point per fresh refresh, each the time of the refresh
/// and the exact value its series' JSONPath found in the current entry's content.
///
/// The definition's `history` block says which series there are and how much of them is kept
/// (`HistoryDefinition`); ``adapted(to:now:)`` fits a history read back to a definition that may have
/// changed, ``record(_:at:definition:)`` adds a refresh's points and drops those past the bounds. The file
/// `OUT/<id>.history.json` holds it (``fileData(generatedAt:)`` and ``init(fileData:)``):
///
/// ```json
/// {
///   "schemaVersion": 1,
///   "id": "portfolio",
///   "generatedAt": "2026-11-29T07:05:00Z",
///   "keep": "7d",
///   "points": 1000,
///   "series": {
///     "total": {"path":"$.totalValue","times":[1795935600,1795935900],"values":[1234.50,1240.125]}
///   }
/// }
/// ```
///
/// Times are whole seconds since 1970 (UTC), increasing; values are numbers (kept as written, however many
/// digits), strings or booleans.
public struct WidgetHistory: Sendable, Equatable {
    /// One point of a series: when, and the value then.
    public struct Point: Sendable, Equatable {
        /// The refresh's time, in whole seconds since 1970.
        public var time: Int64
        /// The value: a number (exact), a string or a boolean.
        public var value: WidgetValue

        /// A point of `value` at `time` (whole seconds since 1970).
        public init(time: Int64, value: WidgetValue) {
            self.time = time
            self.value = value
        }

        /// The point as templates see it: `{"at": "2026-11-29T07:00:00Z", "value": 123.45}`.
        public var templateValue: WidgetValue {
            .object(["at": .string(Timestamp.string(Date(timeIntervalSince1970: Double(time)))), "value": value])
        }
    }

    /// One named series: the path its values come from and its points, oldest first.
    public struct Series: Sendable, Equatable {
        /// The series' name (`history.NAME`).
        public var name: String
        /// The JSONPath its values come from, as written: a series whose path changes starts anew.
        public var path: String
        /// The points, oldest first, their times increasing.
        public var points: [Point]

        /// The series `name` of the values at `path`, with `points`.
        public init(name: String, path: String, points: [Point] = []) {
            self.name = name
            self.path = path
            self.points = points
        }
    }

    /// The version of the file's format.
    public static let schemaVersion = 1

    /// The widget's id.
    public var id: String
    /// How old a point may grow: one this old is dropped.
    public var keep: WidgetDuration
    /// How many points each series keeps at most.
    public var limit: Int
    /// The series, in the order the definition writes them.
    public var series: [Series]

    /// An empty history of the widget `id`, with the bounds of `definition`'s `history` (the defaults
    /// when it has none).
    public init(id: String, definition: HistoryDefinition? = nil) {
        self.id = id
        keep = definition?.keep ?? HistoryDefinition.defaultKeep
        limit = definition?.points ?? HistoryDefinition.defaultPoints
        series = definition?.values.map { Series(name: $0.name, path: $0.path.text) } ?? []
    }

    /// The series named `name`, if there is one.
    public subscript(name: String) -> Series? {
        series.first { $0.name == name }
    }

    /// Every series' points together.
    public var pointCount: Int { series.reduce(0) { $0 + $1.points.count } }

    // MARK: - Changing

    /// This history fitted to `definition`: the series whose name and path did not change keep their
    /// points, the others start empty, those no longer named are dropped, and the bounds are the
    /// definition's, applied at once (as of `now`).
    public func adapted(to definition: HistoryDefinition, now: Date) -> WidgetHistory {
        var fitted = WidgetHistory(id: id, definition: definition)
        for index in fitted.series.indices {
            if let old = self[fitted.series[index].name], old.path == fitted.series[index].path {
                fitted.series[index].points = old.points
            }
        }
        fitted.prune(now: now)
        return fitted
    }

    /// Adds the points of a fresh refresh at `now` whose current entry's content is `content`: to each
    /// series of `definition` whose path selects exactly one number, string or boolean. A point replaces
    /// those of its series at the same second or later (a clock set back), then the points older than
    /// ``keep`` and past ``limit`` go.
    public mutating func record(_ content: WidgetValue, at now: Date, definition: HistoryDefinition) {
        if !fits(definition) { self = adapted(to: definition, now: now) }
        let time = Self.seconds(now)
        for (index, written) in definition.values.enumerated() {
            let selected = written.path.select(content)
            guard selected.count == 1, let value = selected.first, Self.isKept(value) else { continue }
            while let last = series[index].points.last, last.time >= time { series[index].points.removeLast() }
            series[index].points.append(Point(time: time, value: value))
        }
        prune(now: now)
    }

    /// Adds the points of `snapshot` when it is fresh: from the content of the entry current at its
    /// generation (the last not after it, else the first), at that time (see ``record(_:at:definition:)``).
    public mutating func record(_ snapshot: Snapshot, definition: HistoryDefinition) {
        guard snapshot.status == .fresh, !snapshot.entries.isEmpty else { return }
        let now = snapshot.generatedAt
        record(snapshot.entries[GalleryCard.currentIndex(of: snapshot.entries, at: now)].content, at: now, definition: definition)
    }

    /// Whether this history has `definition`'s series, in its order, with its paths and bounds.
    func fits(_ definition: HistoryDefinition) -> Bool {
        keep == definition.keep && limit == definition.points && series.count == definition.values.count
            && zip(series, definition.values).allSatisfy { $0.name == $1.name && $0.path == $1.path.text }
    }

    /// Drops the points ``keep`` old or older as of `now`, then the oldest past ``limit`` in each series:
    /// with `7d` and a refresh every 5 minutes, 2016 points stay.
    public mutating func prune(now: Date) {
        let expired = Self.seconds(now) - Int64(keep.seconds)
        for index in series.indices {
            let kept = series[index].points.firstIndex { $0.time > expired } ?? series[index].points.count
            let dropped = max(kept, series[index].points.count - limit)
            if dropped > 0 { series[index].points.removeFirst(dropped) }
        }
    }

    /// Whether `value` makes a point: a number, a string or a boolean.
    static func isKept(_ value: WidgetValue) -> Bool {
        switch value {
        case .number, .string, .bool: true
        default: false
        }
    }

    /// `date` in whole seconds since 1970, rounded down.
    static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }

    // MARK: - Templates

    /// What templates read as `history`: each series' name with its points, oldest first, each
    /// `{"at": …, "value": …}` (see ``Point/templateValue``).
    public var templateValue: WidgetValue {
        .object(WidgetObject(series.map { ($0.name, WidgetValue.array($0.points.map(\.templateValue))) }))
    }
}
