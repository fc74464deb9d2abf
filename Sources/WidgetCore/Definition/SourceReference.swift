import WidgetJSON
public import WidgetLiquid

/// A source as a definition writes it: `{"url": …}` is HTTP, `{"path": …}` a file, `{"type": NAME, …}` any
/// registered fetcher, each with an optional `when`.
///
/// `when` is the pipeline's (see ``InputDefinition/when``), not the fetcher's; every other member is the
/// fetcher's option, checked when the fetcher is built.
public struct SourceReference: Sendable, Hashable {
    /// The fetcher and its options.
    public var stage: StageSpec
    /// Whether the source is fetched at all; `nil` for always.
    public var when: Template?

    /// The keys that name the source's type when `type` is not written, in the order they are tried:
    /// `url` is HTTP, `path` a local file.
    public static let impliedTypes: [(key: String, typeName: String)] = [("url", "http"), ("path", "file")]

    /// A source fetched by `stage`, only when `when` renders a true value if it is given.
    public init(stage: StageSpec, when: Template? = nil) {
        self.stage = stage
        self.when = when
    }
}

extension SourceReference: Decodable, DescribedOptions {
    /// The keys every source has beside its fetcher's options.
    public enum CodingKeys: String, DescribedKey {
        case type, when

        public var keyDescription: KeyDescription {
            switch self {
            case .type:
                KeyDescription("The registered source to fetch with; without it, \"url\" means HTTP and \"path\" a local file.", .string())
            case .when:
                KeyDescription(
                    "A template rendered before the fetch, without secrets: when it gives nil, false or \"\", nothing is fetched or parsed and the value is null.",
                    .string(examples: ["{{ inputs.airport.id }}"])
                )
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        try self.init(reading: ValueDecoder(decoder), reservedKeys: [])
    }

    /// Reads a source whose object also holds `reservedKeys`, read by its owner (an input's `parser`).
    ///
    /// - Throws: ``OptionsError`` when the value is not an object, or names no type.
    init(reading decoder: ValueDecoder, reservedKeys: [String]) throws {
        let path = decoder.path
        let members = try DescribedMembers(decoder, keyedBy: CodingKeys.self) {
            "a source must be an object such as {\"url\": \"https://…\"}, not \($0)"
        }
        when = try members.template(.when)
        // The whole object: its other members are the fetcher's options.
        var object = decoder.claim().object ?? [:]
        let ownerKeys = CodingKeys.allCases.map(\.rawValue) + reservedKeys
        for key in ownerKeys where key != CodingKeys.type.rawValue { object[key] = nil }
        switch object["type"] {
        case .string(let name)?:
            object["type"] = nil
            stage = StageSpec(typeName: name, options: object, path: path, typePath: path.appending("type"), ownerKeys: ownerKeys)
        case _?:
            throw OptionsError(path: path.appending("type"), message: "\"type\" must be a string naming a registered source")
        case nil:
            guard let implied = Self.impliedTypes.first(where: { object[$0.key] != nil }) else {
                throw OptionsError(
                    path: path, message: "a source needs \"url\" (HTTP), \"path\" (a local file) or \"type\" (a registered source)")
            }
            stage = StageSpec(typeName: implied.typeName, options: object, path: path, ownerKeys: ownerKeys)
        }
    }
}
