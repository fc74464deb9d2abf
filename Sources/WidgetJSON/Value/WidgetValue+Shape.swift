extension WidgetValue {
    /// What the value is, in a few words, for messages and traces: `a list of 12 items`, `an object of 3
    /// members`, `an empty list`, `null`, `a string of 40 characters`, `the number 3.5`, `true`.
    public var shapeDescription: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .number(let number): "the number \(number.text)"
        case .string(let text): text.isEmpty ? "an empty string" : "a string of \(Self.counted(text.count, "character"))"
        case .array(let items): items.isEmpty ? "an empty list" : "a list of \(Self.counted(items.count, "item"))"
        case .object(let object): object.isEmpty ? "an empty object" : "an object of \(Self.counted(object.count, "member"))"
        }
    }

    /// Whether the value holds nothing: `null`, an empty list or an empty object.
    public var isEmptyResult: Bool {
        switch self {
        case .null: true
        case .array(let items): items.isEmpty
        case .object(let object): object.isEmpty
        default: false
        }
    }

    /// `1 item`, `12 items`.
    static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
