public import WidgetCore
public import WidgetJSON

/// One entry, dated now, showing the whole value: `"timeline": "single"`.
public struct SingleTimeline: TimelineBuilder {
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// None: the timeline takes no options.
        public enum CodingKeys: DescribedKey {
            public var keyDescription: KeyDescription { switch self {} }
        }

        /// Empty options: the timeline takes none.
        public init() {}

        /// Opens the options object so that the strict options decoder rejects every member: there are none.
        public init(from decoder: any Decoder) throws {
            _ = try decoder.container(keyedBy: CodingKeys.self)
        }
    }

    public static let typeName = "single"
    public static let summary = "One entry, dated now, showing the whole value."

    public init(options: Options) {}

    public func entries(for value: WidgetValue, context: StageContext) throws -> [TimelineEntry] {
        [TimelineEntry(date: context.now, content: value)]
    }
}
