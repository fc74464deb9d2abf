import WidgetJSON
public import WidgetLiquid

/// A named extra source: `"inputs": {"daily": {"url": …, "parser": "firestore"}}`.
///
/// Decoded from one member of `inputs`, whose key is its name: a source (see ``SourceReference``) that
/// may also name its own `parser`.
public struct InputDefinition: Sendable, Hashable {
    /// The input's key in `inputs`: templates read its value as `inputs.NAME`.
    public var name: String
    /// The fetcher and its options: `http` for `url`, `file` for `path`, or the `type` written.
    public var source: StageSpec
    /// The parser for this input's payload; `json` when the input names none.
    public var parser: StageSpec
    /// A template that decides whether the source is fetched at all: `"when": "{{ inputs.airport.id }}"`.
    ///
    /// It is rendered before the fetch, with `inputs` (those fetched so far), `params`, `now` and `widget`
    /// in scope but no secrets. When it gives `nil`, `false` or an empty string (see
    /// `WidgetValue.passesTest`) nothing is fetched or parsed and the value is `null`, for the transforms
    /// to handle; otherwise the source is fetched as usual. `nil` (no `when`): always fetched.
    public var when: Template?

    /// Creates an input from its parts; without `when` it is always fetched.
    public init(name: String, source: StageSpec, parser: StageSpec, when: Template? = nil) {
        self.name = name
        self.source = source
        self.parser = parser
        self.when = when
    }
}

extension InputDefinition: Decodable, DescribedOptions {
    /// The keys an input has beside its source's options.
    public enum CodingKeys: String, DescribedKey {
        case type, when, parser

        public var keyDescription: KeyDescription {
            switch self {
            case .type, .when: SourceReference.CodingKeys(rawValue: rawValue)!.keyDescription
            case .parser:
                KeyDescription(
                    "The parser for this input's payload: a name, or an object with \"type\" and its options.", .reference("parser"),
                    default: "json")
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        let decoder = try ValueDecoder(decoder)
        let path = decoder.path
        let source = try SourceReference(reading: decoder, reservedKeys: [CodingKeys.parser.rawValue])
        let members = try DescribedMembers(decoder, keyedBy: CodingKeys.self) { _ in "" }
        let parser = try members.decode(.parser, as: ParserReference.self)?.stage
        self.init(
            name: decoder.codingPath.last?.stringValue ?? "",
            source: source.stage,
            parser: parser ?? StageSpec(typeName: WidgetDefinition.defaultParser, path: path.appending("parser")),
            when: source.when
        )
    }
}
