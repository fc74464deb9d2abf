import Foundation
public import WidgetCore
public import WidgetJSON

/// Sorts a list by a value inside each item: `{"type": "sort", "by": "$.price", "order": "descending"}`.
///
/// Numbers compare as numbers (exactly), strings that are ISO 8601 dates as instants (read in the
/// widget's zone when they carry no offset), other strings by Unicode code points, booleans false before
/// true. Items where `by` finds nothing, or finds a value of another kind than most items, go last in
/// either order. The sort is stable.
public struct SortTransform: Transformer {
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// A JSONPath into each item (`$` is the item).
        public var by: JSONPath
        /// `ascending` or `descending` (`asc`, `desc`).
        public var order: String

        public enum CodingKeys: String, DescribedKey {
            case by, order

            public var keyDescription: KeyDescription {
                switch self {
                case .by:
                    KeyDescription(
                        "A JSONPath into each item ($ is the item) to sort by; items without the value go last.", .jsonPath, required: true)
                case .order:
                    KeyDescription(
                        "ascending or descending (asc, desc).", .oneOf(SortTransform.orders.map(\.name)), default: "ascending",
                        fix: "use \"ascending\" or \"descending\"")
                }
            }
        }
    }

    /// The names `order` takes, and whether each is descending.
    static let orders: [(name: String, descending: Bool)] = [("ascending", false), ("descending", true), ("asc", false), ("desc", true)]

    public static let typeName = "sort"
    public static let summary = "Sorts a list by a value inside each item: numbers, dates and strings as such."

    /// The JSONPath into each item (`$` is the item) whose first match is the sort key.
    public let by: JSONPath
    /// Whether the order is descending (`"descending"` or `"desc"`); `false` by default. Items without a
    /// usable key go last either way.
    public let descending: Bool

    public init(options: Options) throws {
        by = options.by
        // The decoder let only the names of `orders` through.
        descending = Self.orders.first { $0.name == options.order }?.descending ?? false
    }

    enum Key: Comparable {
        case bool(Bool)
        case number(WidgetNumber)
        case date(Date)
        case string(String)

        var rank: Int {
            switch self {
            case .bool: 0
            case .number: 1
            case .date: 2
            case .string: 3
            }
        }

        static func < (lhs: Key, rhs: Key) -> Bool {
            switch (lhs, rhs) {
            case (.bool(let a), .bool(let b)): !a && b
            case (.number(let a), .number(let b)): a < b
            case (.date(let a), .date(let b)): a < b
            case (.string(let a), .string(let b)): a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
            default: lhs.rank < rhs.rank
            }
        }
    }

    static func key(_ value: WidgetValue?, timeZone: TimeZone) -> Key? {
        switch value {
        case .bool(let flag)?: return .bool(flag)
        case .number(let number)?: return .number(number)
        case .string(let text)?:
            if let date = EachTimeline.date(from: .string(text), timeZone: timeZone) {
                return .date(date)
            }
            return .string(text)
        default: return nil
        }
    }

    public func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue {
        guard case .array(let items) = value else {
            throw StageError("sort needs a list, but the value is \(value.typeName); select a list first")
        }
        let keyed = items.enumerated().map {
            (offset: $0.offset, item: $0.element, key: SortTransform.key(by.select($0.element).first, timeZone: context.timeZone))
        }
        // The kind most items share; keys of other kinds go last with the missing ones.
        var counts: [Int: Int] = [:]
        for entry in keyed { if let key = entry.key { counts[key.rank, default: 0] += 1 } }
        let main = counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
        let sorted = keyed.sorted { a, b in
            let aKey = a.key.flatMap { $0.rank == main ? $0 : nil }
            let bKey = b.key.flatMap { $0.rank == main ? $0 : nil }
            switch (aKey, bKey) {
            case (let x?, let y?):
                if x == y { return a.offset < b.offset }
                return descending ? y < x : x < y
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a.offset < b.offset
            }
        }
        return .array(sorted.map(\.item))
    }
}
