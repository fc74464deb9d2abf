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
