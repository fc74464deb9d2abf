public import WidgetJSON

/// A stage as a definition names it: a type name and the options beside it.
///
/// The options are checked later, when ``WidgetPipeline`` decodes them into the stage's own `Options`; the
/// definition's reader only takes off the keys the pipeline itself reads (`when`, a timeline's `limit`).
public struct StageSpec: Sendable, Hashable {
    /// The registered type name (`"http"`, `"json"`, `"map"`).
    public var typeName: String
    /// Every member of the stage's object except `type` (and keys the pipeline itself reads).
    public var options: WidgetObject
    /// Where the stage is in the definition, e.g. `$.transforms[1]`.
    public var path: ValuePath
    /// Where the type name is written: `$.parser` for `"parser": "json"`, `$.transforms[1].type` for an
    /// object, the source itself when `url` or `path` implies the type.
    public var typePath: ValuePath
    /// The keys of the stage's object that its owner reads (`type`, a source's `when`, a timeline's
    /// `limit`): not options, but offered in "did you mean" hints for a misspelt option.
    public var ownerKeys: [String]

    /// Creates a stage reference from its parts; `typePath` is `path` unless given.
    public init(typeName: String, options: WidgetObject = [:], path: ValuePath, typePath: ValuePath? = nil, ownerKeys: [String] = []) {
        self.typeName = typeName
        self.options = options
        self.path = path
        self.typePath = typePath ?? path
        self.ownerKeys = ownerKeys
    }
}

// MARK: - Reading

extension StageSpec {
    /// Reads `"json"` (when `allowsName`) or `{"type": "json", …options}`.
    ///
    /// The object's members other than `type` and `reservedKeys` are the stage's options, checked when the
    /// stage is built.
    ///
    /// - Throws: ``OptionsError`` when the value is neither, or has no string `type`.
    init(reading decoder: ValueDecoder, kind: StageKind, allowsName: Bool = true, reservedKeys: [String] = []) throws {
        let path = decoder.path
        // The whole value: its members belong to the stage, which checks them itself.
        let value = decoder.claim()
        switch value {
        case .string(let name) where allowsName:
            self.init(typeName: name, path: path)
        case .object(let object):
            guard case .string(let name)? = object["type"] else {
                let example = kind == .transformer ? "{\"type\": \"limit\", \"count\": 4}" : "{\"type\": \"\(Self.exampleName(kind))\"}"
                throw OptionsError(
                    path: path,
                    message: object["type"] == nil
                        ? "the \(kind) has no \"type\"; write e.g. \(example)"
                        : "\"type\" must be a string naming a registered \(kind)"
                )
            }
            self.init(
                typeName: name, options: object.removing("type", reservedKeys), path: path, typePath: path.appending("type"),
                ownerKeys: reservedKeys.isEmpty ? Self.typeKey : ["type"] + reservedKeys)
        default:
            let forms = allowsName ? "a name such as \"\(Self.exampleName(kind))\" or an object with \"type\"" : "an object with \"type\""
            throw OptionsError(path: path, message: "the \(kind) must be \(forms), not \(value.typeName)")
        }
    }

    /// A built-in stage of `kind` to name in examples.
    /// The owner keys of a stage reference that reserves none beside `type`, made once.
    private static let typeKey = ["type"]

    static func exampleName(_ kind: StageKind) -> String {
        switch kind {
        case .fetcher: "http"
        case .parser: "json"
        case .transformer: "limit"
        case .timeline: "single"
        }
    }
}

/// A transform as a definition writes it, `{"type": "limit", "count": 4}`: an element of `transforms`.
struct TransformReference: Decodable {
    var stage: StageSpec

    init(from decoder: any Decoder) throws {
        stage = try StageSpec(reading: ValueDecoder(decoder), kind: .transformer, allowsName: false)
    }
}

/// A parser as a definition writes it: `"json"` or `{"type": "json", …options}`.
struct ParserReference: Decodable {
    var stage: StageSpec

    init(from decoder: any Decoder) throws {
        stage = try StageSpec(reading: ValueDecoder(decoder), kind: .parser)
    }
}
