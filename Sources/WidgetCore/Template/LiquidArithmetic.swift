import Foundation

/// Liquid's `divided_by`, `modulo` and rounding on exact decimals.
///
/// Integer by integer is integer division rounding down, as in Liquid; with a float operand the quotient is
/// exact when it has at most 16 significant digits, and otherwise the nearest binary double (what Liquid
/// prints for `20 | divided_by: 7.0`).
enum LiquidArithmetic {
    static func divide(_ lhs: LiquidValue.Number, _ rhs: LiquidValue.Number, context: FilterContext)
        throws(ExpressionError) -> LiquidValue.Number
    {
        guard rhs.value != WidgetNumber(0) else {
            throw context.error("cannot divide by zero")
        }
        if !lhs.isFloat, !rhs.isFloat {
            if let a = lhs.value.int, let b = rhs.value.int, !(a == .min && b == -1) {
                var quotient = a / b
                if (a % b != 0) && ((a < 0) != (b < 0)) { quotient -= 1 }
                return LiquidValue.Number(WidgetNumber(quotient), isFloat: false)
            }
            let quotient = (lhs.value / rhs.value) ?? WidgetNumber(0)
            return LiquidValue.Number(rounded(quotient, places: 0, mode: .down), isFloat: false)
        }
        var quotient = (lhs.value / rhs.value) ?? WidgetNumber(0)
        if quotient.canonical.digits.count > 16, let double = WidgetNumber(lhs.value.double / rhs.value.double) {
            quotient = double
        }
        return LiquidValue.Number(quotient, isFloat: true)
    }

    /// Ruby's modulo: the result has the sign of the divisor.
    static func modulo(_ lhs: LiquidValue.Number, _ rhs: LiquidValue.Number, context: FilterContext)
        throws(ExpressionError) -> LiquidValue.Number
    {
        guard rhs.value != WidgetNumber(0) else {
            throw context.error("cannot take the remainder of a division by zero")
        }
        let isFloat = lhs.isFloat || rhs.isFloat
        if !isFloat, let a = lhs.value.int, let b = rhs.value.int, !(a == .min && b == -1) {
            var remainder = a % b
            if remainder != 0, (remainder < 0) != (b < 0) { remainder += b }
            return LiquidValue.Number(WidgetNumber(remainder), isFloat: false)
        }
        let quotient = rounded((lhs.value / rhs.value) ?? WidgetNumber(0), places: 0, mode: .down)
        return LiquidValue.Number(lhs.value - rhs.value * quotient, isFloat: isFloat)
    }

    /// Rounds to `places` decimal places (negative rounds to tens, hundreds, …); `.plain` rounds halves away
    /// from zero, `.down` toward negative infinity, `.up` toward positive infinity.
    static func rounded(_ number: WidgetNumber, places: Int, mode: NSDecimalNumber.RoundingMode) -> WidgetNumber {
        if mode == .plain, places >= 0, let small = SmallDecimal(number.text) {
            return small.rounded(places: places).number
        }
        guard var decimal = number.decimal else {
            let scale = pow(10, Double(places))
            let value = number.double * scale
            let result: Double =
                switch mode {
                case .up: value.rounded(.up)
                case .down: value.rounded(.down)
                default: value.rounded(.toNearestOrAwayFromZero)
                }
            return WidgetNumber(result / scale) ?? number
        }
        var result = Decimal()
        NSDecimalRound(&result, &decimal, max(-127, min(127, places)), mode)
        return WidgetNumber(result) ?? number
    }
}
