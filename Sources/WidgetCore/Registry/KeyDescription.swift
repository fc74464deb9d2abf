public import WidgetJSON

/// What one key of an options object holds: the one declaration of its meaning, JSON shape, default and
/// bounds that `widgetd schema`, the ``OptionsDecoder``, `widgetd validate` and the docs all read.
///
/// The decoder keeps to it: a key written outside the shape's bounds (``ValueShape/integer(minimum:maximum:)``)
/// or choices (``ValueShape/oneOf(_:)``) is an error at the key, and an absent (or null) key with a
/// ``defaultValue`` decodes as that default, so an options type declares `var offset: Int` and its stage
/// repeats neither the default nor the bound:
///
/// ```swift
/// case .offset: KeyDescription("How many items to skip first.", .integer(minimum: 0), default: 0)
/// // {"offset": -1} → $.offset: "offset" must be 0 or more, not -1
/// // {}             → offset == 0
/// ```
public struct KeyDescription: Sendable {
    /// One sentence: what the key is for.
    public var summary: String
    /// The JSON the key takes; the decoder enforces its bounds and choices.
    public var shape: ValueShape
    /// The value used when the key is absent, as JSON; `nil` when there is none to state. The decoder
    /// decodes it in place of an absent or null member.
    public var defaultValue: WidgetValue?
    /// Whether the key must be written.
    public var isRequired: Bool
    /// Whether the key's templates may read secrets (`{{ env.NAME }}`, `{{ secret.NAME }}`): only the
    /// options of a stage that sends requests of its own (the `fetch` transform's `url`, `headers`, `body`).
    public var allowsSecrets: Bool
    /// What would work, ending the sentence for a written value that is not one of the shape's choices (in
    /// place of the list of them: `use "fail" (fail the refresh) or "drop" (leave the item out)`) or is a
    /// list shorter than its `minItems` (in place of `needs at least 1 item`).
    public var fix: String?

    /// Creates a key's description; by default the key is optional, states no default and reads no secret.
    public init(
        _ summary: String, _ shape: ValueShape, default defaultValue: WidgetValue? = nil, required: Bool = false,
        secrets allowsSecrets: Bool = false, fix: String? = nil
    ) {
        self.summary = summary
        self.shape = shape
        self.defaultValue = defaultValue
        self.isRequired = required
        self.allowsSecrets = allowsSecrets
        self.fix = fix
    }

    /// Whether the decoder has anything to do for the key beyond decoding it: a default or a bound.
    var hasRules: Bool {
        if defaultValue != nil { return true }
        switch shape {
        case .integer(let minimum, let maximum): return minimum != nil || maximum != nil
        case .oneOf: return true
        case .array(_, let minItems): return minItems > 0
        default: return false
        }
    }

    /// The sentence for `value`, written under `key`, when the shape's bounds or choices do not allow it;
    /// `nil` when they do, or when the value is not of the shape's kind at all (the decoder says so).
    ///
    /// `"count" must be 0 or more, not -1`; `"concurrency" must be from 1 to 32, not 0`; `"maxBytes" must
    /// be above 0`; `"order" is "down"; use "ascending" or "descending"`.
    public func violation(of value: WidgetValue, key: String) -> String? {
        switch shape {
        case .integer(let minimum, let maximum):
            guard case .number(let number) = value, let int = number.int else { return nil }
            if let minimum, int < minimum {
                if let maximum { return "\"\(key)\" must be from \(minimum) to \(maximum), not \(int)" }
                return minimum == 1 ? "\"\(key)\" must be above 0" : "\"\(key)\" must be \(minimum) or more, not \(int)"
            }
            if let maximum, int > maximum {
                if let minimum { return "\"\(key)\" must be from \(minimum) to \(maximum), not \(int)" }
                return "\"\(key)\" must be \(maximum) or less, not \(int)"
            }
            return nil
        case .oneOf(let choices):
            guard case .string(let text) = value, !choices.contains(text) else { return nil }
            return "\"\(key)\" is \"\(text)\"; " + (fix ?? "use " + Self.list(choices))
        case .array(_, let minItems):
            guard case .array(let items) = value, items.count < minItems else { return nil }
            return "\"\(key)\" " + (fix ?? "needs at least \(minItems) item" + (minItems == 1 ? "" : "s"))
        default:
            return nil
        }
    }

    /// `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
    private static func list(_ choices: [String]) -> String {
        let quoted = choices.map { "\"\($0)\"" }
        guard let last = quoted.last else { return "" }
        return quoted.count == 1 ? last : quoted.dropLast().joined(separator: ", ") + " or " + last
    }
}

/// A key of an object with its description.
public struct OptionKey: Sendable {
    /// The key as written in JSON.
    public var name: String
    /// What the key holds: its meaning, shape, default and bounds.
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

    /// The values the keys take when absent: each key's declared default, by name.
    public var defaults: WidgetObject {
        var object = WidgetObject()
        for key in keys { if let value = key.description.defaultValue { object[key.name] = value } }
        return object
    }
}
