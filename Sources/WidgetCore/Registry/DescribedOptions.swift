import Synchronization
public import WidgetJSON

/// Options whose keys describe themselves: `widgetd schema` lists each with its meaning, JSON shape, default
/// and allowed values, and flags keys it does not list, as `widgetd validate` does.
///
/// Conform a stage's `Options` by declaring its `CodingKeys` as a ``DescribedKey`` enum. Each key is then
/// said once, in its ``KeyDescription``: the synthesized `Decodable` reads the keys the schema lists, and
/// the ``OptionsDecoder`` enforces each key's bounds and choices and supplies its default, so a property
/// with a default is not optional and the stage checks neither:
///
/// ```swift
/// struct Options: Decodable, Sendable, DescribedOptions {
///     var places: Int
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
/// // {}               → places == 0
/// // {"places": 12}   → $.places: "places" must be from 0 to 10, not 12
/// ```
///
/// Options that share keys with others (every HTTP-speaking stage reads `RequestOptions`) decode the shared
/// part from the same decoder and list its keys first in ``describedKeys``.
///
/// Conforming is optional: the options of a stage that does not conform still decode strictly, and the
/// schema accepts any members beside its `type`.
public protocol DescribedOptions {
    /// The options' own keys, one case each, in the order the schema and "known keys" hints list them.
    associatedtype CodingKeys: DescribedKey

    /// Every key the options read, in order: their ``CodingKeys`` by default; options that read a shared
    /// part from the same object list its keys too.
    static var describedKeys: [any DescribedKey] { get }

    /// Keys of which exactly one must be written (an `each` timeline's `at`, `every` or `date`); none by
    /// default. The schema states the rule; the type's own checks enforce it.
    static var exactlyOneOf: [CodingKeys] { get }

    /// Keys of which at most one may be written; none by default.
    static var atMostOneOf: [CodingKeys] { get }
}

extension DescribedOptions {
    /// The options' ``CodingKeys``.
    public static var describedKeys: [any DescribedKey] { CodingKeys.allCases.map { $0 } }

    /// The keys whose templates may read secrets (``KeyDescription/allowsSecrets``).
    public static var secretKeys: [any DescribedKey] { describedKeys.filter(\.keyDescription.allowsSecrets) }

    /// No group of keys of which exactly one must be written.
    public static var exactlyOneOf: [CodingKeys] { [] }
    /// No group of keys of which at most one may be written.
    public static var atMostOneOf: [CodingKeys] { [] }

    /// The object these options are: their described keys, and no others.
    public static var shape: ObjectShape {
        ObjectShape(
            keys: describedKeys.map { OptionKey(name: $0.stringValue, description: $0.keyDescription) },
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

/// The keys of one ``DescribedKey`` type that the decoder has something to do for (a default, a bound, a
/// choice), by name: made once a type, when an object is first decoded with it.
final class KeyRules: Sendable {
    /// The descriptions of the keys with rules, by name.
    let descriptions: [String: KeyDescription]
    /// Whether a key has integer bounds, choices, or a shortest list: only then is a written number, string,
    /// or list looked up.
    private let bounds: Bool
    private let choices: Bool
    private let lengths: Bool

    /// The description of `key`, written as `value` (`nil` when absent), when it has a rule to apply to
    /// it: a default for an absent or null member, bounds for a number, choices for a string, a shortest
    /// length for a list.
    func description(of key: String, for value: WidgetValue?) -> KeyDescription? {
        switch value {
        case .number?: bounds ? descriptions[key] : nil
        case .string?: choices ? descriptions[key] : nil
        case .array?: lengths ? descriptions[key] : nil
        case nil, .null?: descriptions.isEmpty ? nil : descriptions[key]
        default: nil
        }
    }

    private init(descriptions: [String: KeyDescription]) {
        self.descriptions = descriptions
        bounds = descriptions.values.contains { if case .integer = $0.shape { true } else { false } }
        choices = descriptions.values.contains { if case .oneOf = $0.shape { true } else { false } }
        lengths = descriptions.values.contains { if case .array(_, let minItems) = $0.shape { minItems > 0 } else { false } }
    }

    /// The rules of each key type seen, `nil` for a type that does not describe its keys.
    private static let cache = Mutex<[ObjectIdentifier: KeyRules?]>([:])

    /// The rules of `type` (none, for a type without defaults or bounds), or `nil` when it does not
    /// describe its keys.
    static func of(_ type: any CodingKey.Type) -> KeyRules? {
        let id = ObjectIdentifier(type)
        if let known = cache.withLock({ $0[id] }) { return known }
        let rules = make(type)
        cache.withLock { $0[id] = rules }
        return rules
    }

    private static func make(_ type: any CodingKey.Type) -> KeyRules? {
        func rules<Key: DescribedKey>(_ type: Key.Type) -> KeyRules? {
            var descriptions: [String: KeyDescription] = [:]
            for key in Key.allCases {
                let description = key.keyDescription
                if description.hasRules { descriptions[key.stringValue] = description }
            }
            return KeyRules(descriptions: descriptions)
        }
        guard let described = type as? any DescribedKey.Type else { return nil }
        return rules(described)
    }
}

extension DescribedOptions where Self: Decodable {
    /// The options a definition that writes only `members` gives: each key left out takes its declared
    /// default. `JSONParser.Options.decoded()` are a `json` parser's options when it is written bare.
    ///
    /// - Throws: ``OptionsError``, as `validate` reports it, when `members` leave out a required key or
    ///   break a key's bounds.
    public static func decoded(_ members: WidgetObject = [:]) throws(OptionsError) -> Self {
        try OptionsDecoder().decode(Self.self, from: .object(members))
    }
}
