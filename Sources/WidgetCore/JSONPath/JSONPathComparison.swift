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
            if let u = fastDouble(x.text), let v = fastDouble(y.text) { return u == v }
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
            if let u = fastDouble(x.text), let v = fastDouble(y.text) { return u < v }
            return x < y
        case (.string(let x), .string(let y)):
            // UTF-8 byte order is Unicode scalar order.
            return x.utf8.lexicographicallyPrecedes(y.utf8)
        default:
            return false
        }
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// The number as a `Double` when that conversion is exact in order: at most 15 significant digits and a
    /// decimal exponent within ±22, so the value is correctly rounded (one exact operation) and distinct
    /// numbers stay distinct and ordered. `nil` otherwise; callers then compare ``WidgetNumber``s.
    @inline(__always)
    static func fastDouble(_ text: String) -> Double? {
        var mantissa: UInt64 = 0
        var negative = false
        var scale = 0
        var inFraction = false
        var exponent = 0
        var exponentNegative = false
        var inExponent = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let digit = UInt64(byte &- UInt8(ascii: "0"))
                if inExponent {
                    exponent = exponent * 10 + Int(digit)
                    if exponent > 1000 { return nil }
                } else {
                    mantissa = mantissa * 10 + digit
                    if mantissa >= 1_000_000_000_000_000 { return nil }
                    if inFraction { scale -= 1 }
                }
            case UInt8(ascii: "-"):
                if inExponent { exponentNegative = true } else { negative = true }
            case UInt8(ascii: "."):
                inFraction = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                inExponent = true
            default:
                break
            }
        }
        if mantissa == 0 { return 0 }
        let power = scale + (exponentNegative ? -exponent : exponent)
        guard power >= -22, power <= 22 else { return nil }
        let magnitude =
            power >= 0 ? Double(mantissa) * powersOfTen[power] : Double(mantissa) / powersOfTen[-power]
        return negative ? -magnitude : magnitude
    }
}
