public import WidgetCore
public import WidgetJSON

/// Picks part of the value with an RFC 9535 JSONPath: `{"type": "select", "path": "$.data.artworks[*]"}`.
///
/// A singular path (names and indexes only, like `$.data.items`) gives its one value, or `null` when it
/// matches nothing; any other path gives the list of everything it matches. `"one": true` or `false`
/// overrides that choice.
public struct SelectTransform: Transformer {
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// The RFC 9535 JSONPath of the part to keep, such as `$.data.items`.
        public var path: JSONPath
        /// `true`: the first match (or null); `false`: the list of matches. Default: by the path's shape.
        public var one: Bool?

        public enum CodingKeys: String, DescribedKey {
            case path, one

            public var keyDescription: KeyDescription {
                switch self {
                case .path: KeyDescription("The JSONPath of the part to keep.", .jsonPath, required: true)
                case .one:
                    KeyDescription(
                        "true: the first match (or null); false: the list of matches. By default one value for a singular path (names and indexes only).",
                        .boolean)
                }
            }
        }
    }

    public static let typeName = "select"
    public static let summary = "Picks part of the value with a JSONPath: one value or the list of matches."

    /// The JSONPath of the part to keep.
    public let path: JSONPath
    /// Whether the result is the first match (or `null`) rather than the list of matches; unless the
    /// definition says, `true` exactly when ``path`` is singular.
    public let one: Bool

    public init(options: Options) {
        path = options.path
        one = options.one ?? options.path.isSingular
    }

    public func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue {
        let matches = path.select(value)
        return one ? (matches.first ?? .null) : .array(matches)
    }
}
