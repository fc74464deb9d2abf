import WidgetJSON

/// The `sort` and `sort_natural` filters: numbers with numbers, text with text, `nil` last.
enum LiquidSort {
    static func sort(_ input: WidgetValue, property: WidgetValue, natural: Bool, context: FilterContext)
        throws(ExpressionError) -> WidgetValue
    {
        let list = LiquidValue.list(input)
        var keyed: [(key: WidgetValue, item: WidgetValue)] = []
        keyed.reserveCapacity(list.count)
        for item in list {
            if property.isNull {
                keyed.append((item, item))
            } else {
                guard let key = try LiquidLookup.index(item, property, context: context) else { return .null }
                keyed.append((key, item))
            }
        }
        let present = keyed.filter { !$0.key.isNull }
        let missing = keyed.filter { $0.key.isNull }
        var sorted: [(key: WidgetValue, item: WidgetValue)]
        if natural {
            sorted = present.map { (LiquidValue.string($0.key).lowercased(), $0) }
                .sorted { $0.0.unicodeScalars.lexicographicallyPrecedes($1.0.unicodeScalars) }
                .map(\.1)
        } else if present.allSatisfy({ $0.key.number != nil }) {
            sorted = present.sorted { $0.key.number! < $1.key.number! }
        } else if present.allSatisfy({ $0.key.string != nil }) {
            sorted = present.sorted { $0.key.string!.unicodeScalars.lexicographicallyPrecedes($1.key.string!.unicodeScalars) }
        } else {
            let types = Set(present.map(\.key.typeName)).sorted().joined(separator: " and ")
            throw context.error("cannot compare \(types) values", hint: "sort a list of numbers or a list of strings")
        }
        return .array((sorted + missing).map(\.item))
    }
}
