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
    /// No group of keys of which exactly one must be written.
    public static var exactlyOneOf: [CodingKeys] { [] }
    /// No group of keys of which at most one may be written.
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
