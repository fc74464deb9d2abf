/// Options whose keys describe themselves: `widgetd schema` lists each with its meaning, JSON shape, default
/// and allowed values, and flags keys it does not list, as `widgetd validate` does.
///
/// Conform a stage's `Options` by declaring its `CodingKeys` as a ``DescribedKey`` enum; the synthesized
/// `Decodable` reads the same keys the schema lists, so the two cannot drift apart:
///
/// ```swift
/// struct Options: Decodable, Sendable, DescribedOptions {
///     var places: Int?
///
///     enum CodingKeys: String, DescribedKey {
///         case places
///
///         var keyDescription: KeyDescription {
///             switch self {
///             case .places: KeyDescription("Digits after the decimal point.", .integer(minimum: 0, maximum: 10), default: 0)
///             }
///         }
///     }
/// }
/// ```
///
/// Conforming is optional: the options of a stage that does not conform still decode strictly, and the
/// schema accepts any members beside its `type`.
public protocol DescribedOptions {
    /// The keys, one case each, in the order the schema and "known keys" hints list them.
    associatedtype CodingKeys: DescribedKey

    /// Keys of which exactly one must be written (an `each` timeline's `at`, `every` or `date`); none by
    /// default. The schema states the rule; the type's own checks enforce it.
    static var exactlyOneOf: [CodingKeys] { get }

    /// Keys of which at most one may be written; none by default.
    static var atMostOneOf: [CodingKeys] { get }
}

extension DescribedOptions {
    public static var exactlyOneOf: [CodingKeys] { [] }
    public static var atMostOneOf: [CodingKeys] { [] }

    /// The object these options are: their described keys, and no others.
    public static var shape: ObjectShape {
        ObjectShape(
            keys: CodingKeys.allCases.map { OptionKey(name: $0.stringValue, description: $0.keyDescription) },
            exactlyOneOf: exactlyOneOf.map(\.stringValue),
            atMostOneOf: atMostOneOf.map(\.stringValue)
        )
    }
}

/// A coding key that says what its member holds, for the schema and for "known keys" hints.
public protocol DescribedKey: CodingKey, CaseIterable, Sendable {
    /// The member's meaning, JSON shape, default and whether it is required.
    var keyDescription: KeyDescription { get }
}

/// What one key of an options object holds.
public struct KeyDescription: Sendable {
    /// One sentence: what the key is for.
    public var summary: String
    /// The JSON the key takes.
    public var shape: ValueShape
    /// The value used when the key is absent, as JSON; `nil` when there is none to state.
    public var defaultValue: WidgetValue?
    /// Whether the key must be written.
    public var isRequired: Bool

    public init(_ summary: String, _ shape: ValueShape, default defaultValue: WidgetValue? = nil, required: Bool = false) {
        self.summary = summary
        self.shape = shape
        self.defaultValue = defaultValue
        self.isRequired = required
    }
}

/// A key of an object with its description.
public struct OptionKey: Sendable {
    public var name: String
    public var description: KeyDescription

    public init(name: String, description: KeyDescription) {
        self.name = name
        self.description = description
    }
}

/// An object's keys and the rules between them.
public struct ObjectShape: Sendable {
    public var keys: [OptionKey]
    /// Keys of which exactly one must be present.
    public var exactlyOneOf: [String]
    /// Keys of which at most one may be present.
    public var atMostOneOf: [String]
    /// Whether members other than ``keys`` are accepted.
    public var isOpen: Bool

    public init(keys: [OptionKey], exactlyOneOf: [String] = [], atMostOneOf: [String] = [], isOpen: Bool = false) {
        self.keys = keys
        self.exactlyOneOf = exactlyOneOf
        self.atMostOneOf = atMostOneOf
        self.isOpen = isOpen
    }

    /// The keys that must be present.
    public var required: [String] { keys.filter(\.description.isRequired).map(\.name) }
}

/// The JSON a key takes, as `widgetd schema` states it.
public indirect enum ValueShape: Sendable {
    /// Any JSON value.
    case any
    /// A string, optionally matching a regular expression (ECMA 262), with examples editors offer.
    case string(pattern: String? = nil, examples: [String] = [])
    /// `true` or `false`.
    case boolean
    /// A whole number within the bounds given.
    case integer(minimum: Int? = nil, maximum: Int? = nil)
    /// Any number.
    case number
    /// One of these strings.
    case oneOf([String])
    /// An array of values of one shape.
    case array(ValueShape, minItems: Int = 0)
    /// An object whose member names are free, each member of one shape.
    case map(ValueShape)
    /// An object with described keys.
    case object(ObjectShape)
    /// A value of any of these shapes.
    case either([ValueShape])
    /// A shape the schema defines once under `$defs` (the definition's `source`, `transform`, …).
    case reference(String)

    /// A duration: `90s`, `15m`, `24h`, `1d`, `1h30m` (see ``WidgetDuration``).
    public static let duration = ValueShape.string(pattern: WidgetDuration.pattern, examples: ["30s", "15m", "24h", "1h30m"])
    /// A local time of day, `HH:MM` or `HH:MM:SS` (see ``TimeOfDay``).
    public static let timeOfDay = ValueShape.string(pattern: TimeOfDay.pattern, examples: ["08:00", "20:30"])
    /// A template: text with `{{ expression | filter }}` parts.
    public static let template = ValueShape.string(examples: ["{{ title | strip }}"])
    /// An RFC 9535 JSONPath query, starting with `$`.
    public static let jsonPath = ValueShape.string(pattern: "^\\$", examples: ["$.items[*]"])
    /// A JSONPath filter expression over an item `@`.
    public static let jsonPathFilter = ValueShape.string(examples: ["@.price > 10"])
}
