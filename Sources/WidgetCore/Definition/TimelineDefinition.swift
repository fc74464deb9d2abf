public import WidgetJSON
public import WidgetLiquid

/// The timeline stage plus the per-entry templates every timeline accepts.
///
/// Written as a name (`"single"`) or an object, `{"type": "each", "at": ["08:00"], "relevance": "…"}`,
/// whose `relevance`, `url` and `limit` are the pipeline's and every other member the stage's option.
public struct TimelineDefinition: Sendable {
    /// The timeline stage (`single`, `each`).
    public var stage: StageSpec
    /// A template for each entry's relevance (a number), evaluated with the entry's content as the item.
    public var relevance: Template?
    /// A template for each entry's deep link.
    public var url: Template?
    /// The most entries to keep.
    public var limit: Int?

    /// Creates a timeline definition from its parts; by default the `single` timeline, with no
    /// per-entry templates and no limit.
    public init(
        stage: StageSpec = StageSpec(typeName: WidgetDefinition.defaultTimeline, path: ValuePath.root.appending("timeline")),
        relevance: Template? = nil,
        url: Template? = nil,
        limit: Int? = nil
    ) {
        self.stage = stage
        self.relevance = relevance
        self.url = url
        self.limit = limit
    }
}

extension TimelineDefinition: Decodable, DescribedOptions {
    /// The keys every timeline has beside its stage's options.
    public enum CodingKeys: String, DescribedKey {
        case type, relevance, url, limit

        public var keyDescription: KeyDescription {
            switch self {
            case .type: KeyDescription("The registered timeline that dates the entries.", .string(), required: true)
            case .relevance: KeyDescription("A template for each entry's relevance (a number); the entry's content is the item.", .template)
            case .url: KeyDescription("A template for each entry's deep link; the entry's content is the item.", .template)
            case .limit: KeyDescription("The most entries to keep.", .integer(minimum: 1))
            }
        }
    }

    /// The keys every timeline accepts beside its own options.
    public static let commonKeys = CodingKeys.allCases.filter { $0 != .type }.map(\.rawValue)

    public init(from decoder: any Decoder) throws {
        let decoder = try ValueDecoder(decoder)
        self.init(stage: try StageSpec(reading: decoder, kind: .timeline, reservedKeys: Self.commonKeys))
        guard case .object = decoder.value else { return }
        let members = try DescribedMembers(decoder, keyedBy: CodingKeys.self) { _ in "" }
        relevance = try members.template(.relevance)
        url = try members.template(.url)
        limit = try members.integer(.limit, in: 1...Int.max, problem: "\"limit\" must be a whole number of entries above 0, e.g. 4")
    }
}
