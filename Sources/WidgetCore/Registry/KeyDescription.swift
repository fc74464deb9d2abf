public import WidgetJSON

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

    /// Creates a key's description; by default the key is optional and states no default.
    public init(_ summary: String, _ shape: ValueShape, default defaultValue: WidgetValue? = nil, required: Bool = false) {
        self.summary = summary
        self.shape = shape
        self.defaultValue = defaultValue
        self.isRequired = required
    }
}

/// A key of an object with its description.
public struct OptionKey: Sendable {
    /// The key as written in JSON.
    public var name: String
    public var description: KeyDescription

    /// Creates a key from its name and description.
    public init(name: String, description: KeyDescription) {
        self.name = name
        self.description = description
    }
}

/// An object's keys and the rules between them.
public struct ObjectShape: Sendable {
    /// The keys the object may have, each with its description.
    public var keys: [OptionKey]
    /// Keys of which exactly one must be present.
    public var exactlyOneOf: [String]
    /// Keys of which at most one may be present.
    public var atMostOneOf: [String]
    /// Whether members other than ``keys`` are accepted.
    public var isOpen: Bool

    /// Creates a closed object shape from its keys, with no rules between them unless given.
    public init(keys: [OptionKey], exactlyOneOf: [String] = [], atMostOneOf: [String] = [], isOpen: Bool = false) {
        self.keys = keys
        self.exactlyOneOf = exactlyOneOf
        self.atMostOneOf = atMostOneOf
        self.isOpen = isOpen
    }

    /// The keys that must be present.
    public var required: [String] { keys.filter(\.description.isRequired).map(\.name) }
}
