public import WidgetCore
public import WidgetJSON

/// Keeps `count` items of a list, after skipping `offset`: `{"type": "limit", "count": 4}`.
public struct LimitTransform: Transformer {
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// How many items to keep.
        public var count: Int
        /// How many items to skip first.
        public var offset: Int

        public enum CodingKeys: String, DescribedKey {
            case count, offset

            public var keyDescription: KeyDescription {
                switch self {
                case .count: KeyDescription("How many items to keep.", .integer(minimum: 0), required: true)
                case .offset: KeyDescription("How many items to skip first.", .integer(minimum: 0), default: 0)
                }
            }
        }
    }

    public static let typeName = "limit"
    public static let summary = "Keeps the first count items of a list, after skipping offset."

    /// How many items to keep, 0 or more; a shorter list is kept whole.
    public let count: Int
    /// How many items to skip before keeping any, 0 or more; 0 by default.
    public let offset: Int

    /// Takes the options as the decoder checked them: both 0 or more, `offset` 0 when absent.
    public init(options: Options) throws {
        count = options.count
        offset = options.offset
    }

    public func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue {
        guard case .array(let items) = value else {
            throw StageError("limit needs a list, but the value is \(value.typeName); select a list first")
        }
        return .array(Array(items.dropFirst(offset).prefix(count)))
    }
}
