import WidgetJSON

/// Ruby's `item[property]` as Liquid's list filters (`map`, `where`, `find`, `has`, …) use it.
enum LiquidLookup {
    /// `item[property]`: an object's member, a string's matching substring or character, a list's element.
    /// Returns `nil` when the item cannot be indexed at all (`nil`, booleans, floats) and throws when the
    /// property has the wrong type for the item (a name on a list or a number).
    static func index(_ item: WidgetValue, _ property: WidgetValue, context: FilterContext) throws(ExpressionError)
        -> WidgetValue?
    {
        switch (item, property) {
        case (.object(let object), .string(let key)):
            return object[key] ?? .null
        case (.object, _):
            return .null
        case (.string(let text), .string(let part)):
            return part.isEmpty || text.contains(part) ? .string(part) : .null
        case (.string, .null):
            // No property: the string itself is tested, as Ruby Liquid does for `reject: nosuchthing`.
            return item
        case (.string(let text), .number(let number)) where number.isInteger:
            let characters = Array(text)
            guard let position = number.int else { return .null }
            let index = position < 0 ? characters.count + position : position
            return characters.indices.contains(index) ? .string(String(characters[index])) : .null
        case (.array(let array), .number(let number)) where number.isInteger:
            return number.int.flatMap { WidgetValue.array(array)[$0] } ?? .null
        case (.number(let number), .number(let bit)) where !LiquidValue.isFloat(number) && bit.isInteger:
            guard let value = number.int, let shift = bit.int, shift >= 0 else { return .number(0) }
            return .number(WidgetNumber(shift >= 64 ? (value < 0 ? 1 : 0) : (value >> shift) & 1))
        case (.string, _), (.array, _):
            throw propertyError(item, property, context: context)
        case (.number(let number), _) where !LiquidValue.isFloat(number):
            throw propertyError(item, property, context: context)
        default:
            return nil
        }
    }

    private static func propertyError(_ item: WidgetValue, _ property: WidgetValue, context: FilterContext)
        -> ExpressionError
    {
        context.error(
            "cannot select a property that is \(LiquidValue.describe(property)) from \(LiquidValue.describe(item))",
            hint: "use a property name on a list of objects")
    }

    enum Mode {
        case `where`, reject, find, findIndex, has
    }

    /// `where`, `reject`, `find`, `find_index` and `has`: items whose `property` is truthy, or equals the
    /// target value when one is given.
    static func select(_ input: WidgetValue, _ arguments: [WidgetValue], context: FilterContext, mode: Mode)
        throws(ExpressionError) -> WidgetValue
    {
        let list = LiquidValue.list(input)
        let property = arguments[0]
        let target = arguments.count > 1 ? arguments[1] : .null
        var kept: [WidgetValue] = []
        for (position, item) in list.enumerated() {
            guard let value = try index(item, property, context: context) else { return .null }
            let matches = target.isNull ? value.isTruthy : value == target
            switch mode {
            case .where: if matches { kept.append(item) }
            case .reject: if !matches { kept.append(item) }
            case .find: if matches { return item }
            case .findIndex: if matches { return .number(WidgetNumber(position)) }
            case .has: if matches { return .bool(true) }
            }
        }
        switch mode {
        case .where, .reject: return .array(kept)
        case .find, .findIndex: return .null
        case .has: return .bool(false)
        }
    }
}
