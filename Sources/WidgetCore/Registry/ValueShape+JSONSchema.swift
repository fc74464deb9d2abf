public import WidgetJSON

// MARK: - JSON Schema (draft 2020-12)

extension ValueShape {
    /// The shape as a JSON Schema.
    public var jsonSchema: WidgetValue {
        switch self {
        case .any:
            return [:]
        case .string(let pattern, let examples):
            var schema: WidgetObject = ["type": "string"]
            if let pattern { schema["pattern"] = .string(pattern) }
            if !examples.isEmpty { schema["examples"] = .array(examples.map(WidgetValue.string)) }
            return .object(schema)
        case .boolean:
            return ["type": "boolean"]
        case .integer(let minimum, let maximum):
            var schema: WidgetObject = ["type": "integer"]
            if let minimum { schema["minimum"] = .number(WidgetNumber(minimum)) }
            if let maximum { schema["maximum"] = .number(WidgetNumber(maximum)) }
            return .object(schema)
        case .number:
            return ["type": "number"]
        case .oneOf(let values):
            return ["enum": .array(values.map(WidgetValue.string))]
        case .array(let element, let minItems):
            var schema: WidgetObject = ["type": "array", "items": element.jsonSchema]
            if minItems > 0 { schema["minItems"] = .number(WidgetNumber(minItems)) }
            return .object(schema)
        case .map(let member):
            return ["type": "object", "additionalProperties": member.jsonSchema]
        case .object(let shape):
            return .object(shape.jsonSchema)
        case .either(let shapes):
            return ["anyOf": .array(shapes.map(\.jsonSchema))]
        case .reference(let name):
            return ["$ref": .string("#/$defs/\(name)")]
        }
    }
}

extension KeyDescription {
    /// The key's JSON Schema: its shape with its description and default.
    public var jsonSchema: WidgetValue {
        guard case .object(var schema) = shape.jsonSchema else { return shape.jsonSchema }
        schema["description"] = .string(summary)
        if let defaultValue { schema["default"] = defaultValue }
        return .object(schema)
    }
}

extension ObjectShape {
    /// The object as a JSON Schema: its properties, required keys, the rules between keys and, unless it is
    /// open, `additionalProperties: false`.
    public var jsonSchema: WidgetObject {
        var properties = WidgetObject()
        for key in keys { properties[key.name] = key.description.jsonSchema }
        var schema: WidgetObject = ["type": "object", "properties": .object(properties)]
        if !required.isEmpty { schema["required"] = .array(required.map(WidgetValue.string)) }
        if !exactlyOneOf.isEmpty {
            schema["oneOf"] = .array(exactlyOneOf.map { ["required": [.string($0)]] })
        }
        if atMostOneOf.count > 1 {
            var pairs: [WidgetValue] = []
            for (index, first) in atMostOneOf.enumerated() {
                for second in atMostOneOf[(index + 1)...] { pairs.append(["required": [.string(first), .string(second)]]) }
            }
            schema["not"] = ["anyOf": .array(pairs)]
        }
        if !isOpen { schema["additionalProperties"] = false }
        return schema
    }
}
