import Foundation
public import WidgetCore
public import WidgetJSON
import WidgetLiquid

/// One entry per item of a list, dated by time of day, by interval, or by a date inside the item.
///
/// - `{"type": "each", "at": ["08:00", "12:00", "16:00", "20:00"]}`: item *i* is dated at the *i*-th time
///   of day, in the widget's zone, on the day of the refresh. Slots already past are kept with their
///   past date, so the front-end shows the latest slot that has begun (at 13:00, the 12:00 item).
///   When there are more items than times, the times repeat on the following days.
/// - `{"type": "each", "every": "1h"}`: item *i* is dated at the refresh time + *i* × the interval.
/// - `{"type": "each", "date": "$.published"}`: each item is dated by the JSONPath's value in it (an ISO
///   8601 date or a Unix time in seconds; without a zone offset, in the widget's zone); items without a
///   readable date are dropped, and entries are sorted by date. A date outside the years 1 to 9999
///   (a Unix time of `1e19`) fails the refresh with an error that names it.
///
/// A value that is not a list is one item.
public struct EachTimeline: TimelineBuilder {
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// Times of day (`"08:00"`), in the widget's zone: item *i* at the *i*-th, repeating on the next days.
        public var at: [String]?
        /// An interval above 0 s (`"1h"`): item *i* at the refresh time plus *i* intervals.
        public var every: WidgetDuration?
        /// A JSONPath into each item to its date (ISO 8601 or Unix seconds); items without one are dropped.
        public var date: JSONPath?

        public enum CodingKeys: String, DescribedKey {
            case at, every, date

            public var keyDescription: KeyDescription {
                switch self {
                case .at:
                    KeyDescription(
                        "Item i at the i-th of these times of day, in the widget's zone, repeating on the next days.",
                        .array(.timeOfDay, minItems: 1), fix: #"needs at least one time of day, e.g. ["08:00"]"#
                    )
                case .every: KeyDescription("Item i at the refresh time plus i intervals.", .duration)
                case .date: KeyDescription("Each item at the date this JSONPath finds in it (ISO 8601 or Unix seconds).", .jsonPath)
                }
            }
        }

        public static var exactlyOneOf: [CodingKeys] { [.at, .every, .date] }
    }

    enum Rule: Sendable {
        case at([TimeOfDay])
        case every(WidgetDuration)
        case date(JSONPath)
    }

    public static let typeName = "each"
    public static let summary = "One entry per item, dated by times of day, an interval, or a date in the item."

    let rule: Rule

    public init(options: Options) throws {
        let given = [options.at != nil, options.every != nil, options.date != nil].filter { $0 }.count
        guard given == 1 else {
            throw StageError(
                "an \"each\" timeline needs exactly one of \"at\" (times of day), \"every\" (an interval) or \"date\" (a JSONPath into each item)"
            )
        }
        if let at = options.at {
            var times: [TimeOfDay] = []
            for text in at {
                guard let time = TimeOfDay(text) else {
                    throw StageError("\"\(text)\" in \"at\" is not a time of day; write e.g. \"08:00\"", option: Options.CodingKeys.at)
                }
                times.append(time)
            }
            rule = .at(times)
        } else if let every = options.every {
            guard every.seconds > 0 else { throw StageError("\"every\" must be longer than 0s", option: Options.CodingKeys.every) }
            rule = .every(every)
        } else {
            rule = .date(options.date!)
        }
    }

    public func entries(for value: WidgetValue, context: StageContext) throws -> [TimelineEntry] {
        let items = value.array ?? [value]
        switch rule {
        case .at(let times):
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = context.timeZone
            let today = calendar.startOfDay(for: context.now)
            return items.enumerated().compactMap { index, item in
                let day = index / times.count
                let time = times[index % times.count]
                guard let dayStart = calendar.date(byAdding: .day, value: day, to: today),
                    let date = calendar.nextDate(
                        after: dayStart.addingTimeInterval(-1),
                        matching: DateComponents(hour: time.hour, minute: time.minute, second: time.second),
                        matchingPolicy: .nextTimePreservingSmallerComponents,
                        repeatedTimePolicy: .first,
                        direction: .forward
                    )
                else { return nil }
                return TimelineEntry(date: date, content: item)
            }
        case .every(let interval):
            var entries: [TimelineEntry] = []
            for (index, item) in items.enumerated() {
                let date = context.now.addingTimeInterval(Double(index) * interval.timeInterval)
                guard InternetDate.isWritable(date.timeIntervalSince1970) else {
                    throw StageError(
                        "item \(index) of an \"every\" timeline would be dated after the year 9999; "
                            + "shorten \"every\" or limit the list", option: Options.CodingKeys.every)
                }
                entries.append(TimelineEntry(date: date, content: item))
            }
            return entries
        case .date(let path):
            var dated: [TimelineEntry] = []
            for item in items {
                guard let found = path.select(item).first, let date = EachTimeline.date(from: found, timeZone: context.timeZone)
                else { continue }
                guard InternetDate.isWritable(date.timeIntervalSince1970) else {
                    throw StageError(
                        "the date \(JSONWriter.string(found)) at \(path) is outside the years 1 to 9999; "
                            + "dates must be ISO 8601 strings or Unix times in seconds between -62135596800 and 253402300799")
                }
                dated.append(TimelineEntry(date: date, content: item))
            }
            if dated.isEmpty, !items.isEmpty {
                throw StageError("no item has a readable date at \(path); dates must be ISO 8601 strings or Unix times in seconds")
            }
            return dated.enumerated().sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }.map(\.element)
        }
    }

    /// The instant `value` names: an ISO 8601 / RFC 3339 string or a Unix time in seconds.
    ///
    /// A string without a zone offset (`2026-06-15T10:00`, as weather APIs send local hours) is read in
    /// `timeZone`, and a date alone (`2026-06-15`) is the start of that day there. Seconds may be left
    /// out, and a space may stand for the `T`.
    static func date(from value: WidgetValue, timeZone: TimeZone = .gmt) -> Date? {
        switch value {
        case .string(let raw):
            var text = raw.trimmingCharacters(in: .whitespaces)
            guard text.count >= 10, text.first?.isNumber == true else { return nil }
            var characters = Array(text)
            if characters.count > 10, characters[10] == " " || characters[10] == "t" { characters[10] = "T" }
            if characters.last == "z" { characters[characters.count - 1] = "Z" }
            // `2026-06-15T10:00` and `2026-06-15T10:00Z`: the seconds are 0.
            if characters.count >= 16, characters[10] == "T", characters[13] == ":",
                characters.count == 16 || characters[16] != ":"
            {
                characters.insert(contentsOf: ":00", at: 16)
            }
            text = String(characters)
            if let date = try? Date(text, strategy: .iso8601) { return date }
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
            // Foundation's partial formats accept trailing text, so the shape is checked first.
            if text.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil {
                return try? Date(text, strategy: Date.ISO8601FormatStyle(timeZone: timeZone).year().month().day())
            }
            if text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?/) != nil {
                let local = Date.ISO8601FormatStyle(timeZone: timeZone).year().month().day()
                    .dateTimeSeparator(.standard).time(includingFractionalSeconds: text.count > 19)
                return try? Date(text, strategy: local)
            }
            return nil
        case .number(let number):
            return Date(timeIntervalSince1970: number.double)
        default:
            return nil
        }
    }
}
