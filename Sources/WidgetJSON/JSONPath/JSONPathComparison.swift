/// Comparison of filter values (RFC 9535 §2.3.5.2.2): numbers compare exactly, strings by Unicode scalar
/// values, arrays and objects by deep equality; `nil` stands for Nothing.
enum JSONPathComparison {
    static func equal(_ a: WidgetValue?, _ b: WidgetValue?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (nil, _), (_, nil): return false
        case (.some(let a), .some(let b)): return equal(a, b)
        }
    }

    static func equal(_ a: WidgetValue, _ b: WidgetValue) -> Bool {
        switch (a, b) {
        case (.null, .null):
            return true
        case (.bool(let x), .bool(let y)):
            return x == y
        case (.number(let x), .number(let y)):
            return x == y
        case (.string(let x), .string(let y)):
            return x.utf8.elementsEqual(y.utf8)
        case (.array(let x), .array(let y)):
            guard x.count == y.count else { return false }
            for position in x.indices where !equal(x[position], y[position]) { return false }
            return true
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            let keys = x.keys
            let values = x.values
            for position in keys.indices {
                guard let other = JSONPathEvaluator.position(of: keys[position], in: y),
                    equal(values[position], y.values[other])
                else { return false }
            }
            return true
        default:
            return false
        }
    }

    /// `a < b`: only numbers and strings are ordered; anything else, including Nothing, is not.
    static func less(_ a: WidgetValue?, _ b: WidgetValue?) -> Bool {
        switch (a, b) {
        case (.number(let x), .number(let y)):
            return x < y
        case (.string(let x), .string(let y)):
            // UTF-8 byte order is Unicode scalar order.
            return x.utf8.lexicographicallyPrecedes(y.utf8)
        default:
            return false
        }
    }
}
