public import WidgetJSON

// MARK: - Examples

extension ValueShape {
    /// A value of this shape: the first example or allowed value, the lowest number allowed, one element
    /// of a list, one member of a map, every key of an object. For documentation and for checking that a
    /// description matches what decoding reads (``ObjectShape/example(leaving:)``).
    public var example: WidgetValue {
        switch self {
        case .any: "x"
        case .string(_, let examples): .string(examples.first ?? "x")
        case .boolean: true
        case .integer(let minimum, let maximum): .number(WidgetNumber(minimum ?? maximum ?? 1))
        case .number: 1
        case .oneOf(let values): .string(values.first ?? "")
        case .array(let element, _): [element.example]
        case .map(let member): ["name": member.example]
        case .object(let shape): .object(shape.example())
        case .either(let shapes): shapes.first?.example ?? .null
        case .reference: "x"
        }
    }
}

extension ObjectShape {
    /// An object with an example of every key but those in `leaving`.
    public func example(leaving: Set<String> = []) -> WidgetObject {
        var object = WidgetObject()
        for key in keys where !leaving.contains(key.name) { object[key.name] = key.description.shape.example }
        return object
    }
}
