import Foundation
import WidgetJSON

/// Liquid's `divided_by`, `modulo` and rounding on exact decimals.
///
/// Integer by integer is integer division rounding down, as in Liquid; with a float operand the quotient is
/// exact when it has at most 16 significant digits, and otherwise the nearest binary double (what Liquid
/// prints for `20 | divided_by: 7.0`).
enum LiquidArithmetic {
    /// The error for a result with no exact value: more digits than `WidgetNumber.exactDigitLimit` or
    /// beyond 1e±`WidgetNumber.exponentLimit`. It names neither operand: a template may handle secrets.
    static func inexact(context: FilterContext) -> ExpressionError {
        context.error(
            "the result would have more than \(WidgetNumber.exactDigitLimit) significant digits or lie beyond "
                + "1e±\(WidgetNumber.exponentLimit), so it has no exact value",
            hint: "round the operands first (round, floor) or keep numbers within 1e±308")
    }

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
            guard let quotient = lhs.value.flooredQuotient(by: rhs.value) else { throw inexact(context: context) }
            return LiquidValue.Number(quotient, isFloat: false)
        }
        guard var quotient = lhs.value.divided(by: rhs.value) else { throw inexact(context: context) }
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
        guard let quotient = lhs.value.flooredQuotient(by: rhs.value), let product = rhs.value.multiplied(by: quotient),
            let remainder = lhs.value.subtracting(product)
        else { throw inexact(context: context) }
        return LiquidValue.Number(remainder, isFloat: isFloat)
    }

    /// Rounds to `places` decimal places (negative rounds to tens, hundreds, …); `.plain` rounds halves away
    /// from zero, `.down` toward negative infinity, `.up` toward positive infinity.
    static func rounded(_ number: WidgetNumber, places: Int, mode: NSDecimalNumber.RoundingMode) -> WidgetNumber {
        if mode == .plain, places >= 0, let small = SmallDecimal(number.text) {
            return small.rounded(places: places).number
        }
        // Past Decimal's 38 digits or its exponents, rounded digit by digit: exact, never through a Double.
        guard number.canonical.digits.count <= 38, var decimal = number.decimal else {
            return number.exactlyRounded(places: places, mode: mode)
        }
        var result = Decimal()
        NSDecimalRound(&result, &decimal, max(-127, min(127, places)), mode)
        return WidgetNumber(result) ?? number
    }
}
