package import Foundation

// MARK: - Exact arithmetic past Decimal

extension WidgetNumber {
    /// The most significant digits an exact sum, difference or product may have: 1,000. Past it (`1e999 + 1`
    /// has 1,000 digits, `1e999999999 + 1` a billion) there is no exact result, and arithmetic that must
    /// be exact says so instead of rounding.
    public static let exactDigitLimit = 1_000

    /// The largest decimal exponent a result may have, either way: `1e999999999` and `1e-999999999` are
    /// the largest and smallest magnitudes arithmetic gives; past them it says so instead of writing
    /// infinity or zero.
    public static let exponentLimit = 999_999_999

    /// The exact sum, or `nil` when it has more than ``exactDigitLimit`` significant digits or lies
    /// beyond 1e±``exponentLimit``.
    ///
    /// ```swift
    /// WidgetNumber("1e30")!.adding(WidgetNumber(1))          // 1000000000000000000000000000001
    /// WidgetNumber("1e999999999")!.adding(WidgetNumber(1))   // nil: a billion digits
    /// ```
    public func adding(_ other: WidgetNumber) -> WidgetNumber? {
        if let a = SmallDecimal(text), let b = SmallDecimal(other.text), let sum = a.adding(b) { return sum.number }
        return ExactDecimal.sum(ExactDecimal(self), ExactDecimal(other))?.number
    }

    /// The exact difference, or `nil` past the limits of ``adding(_:)``.
    public func subtracting(_ other: WidgetNumber) -> WidgetNumber? {
        if let a = SmallDecimal(text), let b = SmallDecimal(other.text), let difference = a.adding(b.negated) {
            return difference.number
        }
        return ExactDecimal.sum(ExactDecimal(self), ExactDecimal(other).negated)?.number
    }

    /// The exact product, or `nil` past the limits of ``adding(_:)``: `1e300 × 1e300` is `1e600`, and a
    /// product of two 20-digit numbers keeps all its 39 or 40 digits.
    public func multiplied(by other: WidgetNumber) -> WidgetNumber? {
        if let a = SmallDecimal(text), let b = SmallDecimal(other.text), let product = a.multiplied(by: b) {
            return product.number
        }
        return ExactDecimal.product(ExactDecimal(self), ExactDecimal(other))?.number
    }

    /// The quotient to 38 significant digits (halves away from zero), or `nil` when `other` is zero or the
    /// quotient lies beyond 1e±``exponentLimit``.
    public func divided(by other: WidgetNumber) -> WidgetNumber? {
        if other.canonical.digits.isEmpty { return nil }
        // Within Decimal's range and 38 digits, Decimal divides (and spells) as it always has.
        if canonical.digits.count <= 38, other.canonical.digits.count <= 38, let a = decimal, let b = other.decimal,
            let result = WidgetNumber(a / b), result.double.isFinite, !result.canonical.digits.isEmpty
        {
            return result
        }
        return ExactDecimal.quotient(ExactDecimal(self), ExactDecimal(other), significantDigits: 38)?.number
    }

    /// Rounded to `places` decimals (negative: to tens, hundreds, …) in `mode`: `.plain` halves away from
    /// zero, `.up` toward +∞, `.down` toward −∞; exactly, however many digits or large the exponent.
    package func exactlyRounded(places: Int, mode: NSDecimalNumber.RoundingMode) -> WidgetNumber {
        ExactDecimal(self).rounded(places: places, mode: mode).number
    }

    /// The quotient rounded toward negative infinity to a whole number, exactly; `nil` when `other` is zero
    /// or the quotient has more than ``exactDigitLimit`` digits.
    public func flooredQuotient(by other: WidgetNumber) -> WidgetNumber? {
        ExactDecimal.flooredQuotient(ExactDecimal(self), ExactDecimal(other))?.number
    }
}

/// A decimal as `± coefficient × 10^exponent`, the coefficient's decimal digits held least significant
/// first: exact arithmetic for what `Decimal` (38 digits, exponents to ±128) cannot hold.
package struct ExactDecimal {
    package var negative: Bool
    /// Decimal digits, least significant first, without zeros at either end; empty for zero.
    package var digits: [UInt8]
    package var exponent: Int

    package init(negative: Bool, digits: [UInt8], exponent: Int) {
        self.negative = negative
        self.digits = digits
        self.exponent = exponent
        normalize()
    }

    package init(_ number: WidgetNumber) {
        let canonical = number.canonical
        let bytes = Array(canonical.digits.utf8)
        self.init(
            negative: canonical.negative, digits: bytes.reversed().map { $0 &- UInt8(ascii: "0") },
            exponent: canonical.exponent - bytes.count)
    }

    package var negated: ExactDecimal {
        var copy = self
        copy.negative.toggle()
        return copy
    }

    package var isZero: Bool { digits.isEmpty }

    /// Drops zeros at both ends of the digits, moving the exponent for those at the low end.
    private mutating func normalize() {
        while digits.last == 0 { digits.removeLast() }
        var low = 0
        while low < digits.count, digits[low] == 0 { low += 1 }
        if low > 0 {
            digits.removeFirst(low)
            exponent += low
        }
        if digits.isEmpty {
            negative = false
            exponent = 0
        }
    }

    /// Whether the value lies within 1e±``WidgetNumber/exponentLimit`` and has at most
    /// ``WidgetNumber/exactDigitLimit`` digits.
    private var isWithinLimits: Bool {
        if isZero { return true }
        let top = exponent + digits.count - 1
        return digits.count <= WidgetNumber.exactDigitLimit && top <= WidgetNumber.exponentLimit
            && exponent >= -WidgetNumber.exponentLimit
    }

    // MARK: Operations

    package static func sum(_ a: ExactDecimal, _ b: ExactDecimal) -> ExactDecimal? {
        if a.isZero { return b.isWithinLimits ? b : nil }
        if b.isZero { return a.isWithinLimits ? a : nil }
        let low = min(a.exponent, b.exponent)
        let high = max(a.exponent + a.digits.count, b.exponent + b.digits.count)
        guard high - low <= WidgetNumber.exactDigitLimit + 1 else { return nil }
        let x = shifted(a.digits, by: a.exponent - low)
        let y = shifted(b.digits, by: b.exponent - low)
        let result: ExactDecimal
        if a.negative == b.negative {
            result = ExactDecimal(negative: a.negative, digits: add(x, y), exponent: low)
        } else if compare(x, y) >= 0 {
            result = ExactDecimal(negative: a.negative, digits: subtract(x, y), exponent: low)
        } else {
            result = ExactDecimal(negative: b.negative, digits: subtract(y, x), exponent: low)
        }
        return result.isWithinLimits ? result : nil
    }

    package static func product(_ a: ExactDecimal, _ b: ExactDecimal) -> ExactDecimal? {
        if a.isZero || b.isZero { return ExactDecimal(negative: false, digits: [], exponent: 0) }
        guard a.digits.count + b.digits.count <= WidgetNumber.exactDigitLimit + 1 else { return nil }
        let (exponent, overflow) = a.exponent.addingReportingOverflow(b.exponent)
        guard !overflow else { return nil }
        let result = ExactDecimal(negative: a.negative != b.negative, digits: multiply(a.digits, b.digits), exponent: exponent)
        return result.isWithinLimits ? result : nil
    }

    /// `a / b` to `significantDigits` digits, halves away from zero.
    package static func quotient(_ a: ExactDecimal, _ b: ExactDecimal, significantDigits: Int) -> ExactDecimal? {
        guard !b.isZero else { return nil }
        if a.isZero { return a }
        guard a.digits.count <= WidgetNumber.exactDigitLimit, b.digits.count <= WidgetNumber.exactDigitLimit else { return nil }
        // Enough zeros after a's digits that the integer quotient has one digit more than asked for.
        let shift = max(0, significantDigits + 1 + b.digits.count - a.digits.count)
        var (digits, _) = divide(shifted(a.digits, by: shift), b.digits)
        var exponent = a.exponent - b.exponent - shift
        if digits.count > significantDigits {
            let dropped = digits.count - significantDigits
            let roundUp = digits[dropped - 1] >= 5
            digits.removeFirst(dropped)
            exponent += dropped
            if roundUp { digits = add(digits, [1]) }
        }
        let result = ExactDecimal(negative: a.negative != b.negative, digits: digits, exponent: exponent)
        return result.isWithinLimits ? result : nil
    }

    /// `⌊a / b⌋`, exactly.
    package static func flooredQuotient(_ a: ExactDecimal, _ b: ExactDecimal) -> ExactDecimal? {
        guard !b.isZero else { return nil }
        if a.isZero { return a }
        // The quotient has at most `orders + 1` digits; below -1 it is certainly under one.
        let orders = (a.exponent + a.digits.count) - (b.exponent + b.digits.count)
        if orders < -1 { return floorOfSmall(a, b) }
        let limit = WidgetNumber.exactDigitLimit
        guard orders < limit, a.digits.count <= limit, b.digits.count <= limit else { return nil }
        // With the orders close, neither shift exceeds about two limits' worth of zeros.
        let shift = a.exponent - b.exponent
        let (quotient, remainder) =
            shift >= 0 ? divide(shifted(a.digits, by: shift), b.digits) : divide(a.digits, shifted(b.digits, by: -shift))
        let negative = a.negative != b.negative
        var digits = quotient
        if negative, !remainder.isEmpty { digits = add(digits, [1]) }
        return ExactDecimal(negative: negative, digits: digits, exponent: 0)
    }

    /// `⌊a / b⌋` when `|a| < |b|`: 0, or -1 when the signs differ.
    private static func floorOfSmall(_ a: ExactDecimal, _ b: ExactDecimal) -> ExactDecimal {
        a.negative != b.negative
            ? ExactDecimal(negative: true, digits: [1], exponent: 0) : ExactDecimal(negative: false, digits: [], exponent: 0)
    }

    /// Rounded to `places` decimals in `mode` (`.plain`, `.up`, `.down`; others as `.plain`).
    package func rounded(places: Int, mode: NSDecimalNumber.RoundingMode) -> ExactDecimal {
        let places = Swift.max(-4 * WidgetNumber.exponentLimit, Swift.min(4 * WidgetNumber.exponentLimit, places))
        guard !isZero, exponent < -places else { return self }
        let drop = -places - exponent
        let kept = drop < digits.count ? Array(digits[drop...]) : []
        let away: Bool
        switch mode {
        case .up: away = !negative
        case .down: away = negative
        default: away = drop <= digits.count && digits[drop - 1] >= 5
        }
        return ExactDecimal(negative: negative, digits: away ? Self.add(kept, [1]) : kept, exponent: -places)
    }

    // MARK: Spelling

    /// The number as JSON text: plainly (`123456789012345678901234567890123456789`, `0.000012`) when that
    /// takes at most 20 zeros beyond the digits, otherwise in exponent form (`1e600`, `-2.5e-400`).
    ///
    /// A result `Decimal` holds exactly (38 digits, exponents to ±127) is spelt as `Decimal` spells it, as
    /// before there was this type.
    package var number: WidgetNumber {
        if isZero { return WidgetNumber(unchecked: "0") }
        var text = negative ? "-" : ""
        let spelt = String(decoding: digits.reversed().map { $0 &+ UInt8(ascii: "0") }, as: UTF8.self)
        if digits.count <= 38, exponent >= -127, exponent + digits.count <= 127,
            let decimal = Decimal(string: text + spelt + "e" + String(exponent), locale: Locale(identifier: "en_US_POSIX")),
            let number = WidgetNumber(decimal)
        {
            return number
        }
        let leadingZeros = -exponent - digits.count
        if exponent >= 0, exponent <= 20 {
            text += spelt + String(repeating: "0", count: exponent)
        } else if exponent < 0, leadingZeros <= 20 {
            if leadingZeros >= 0 {
                text += "0." + String(repeating: "0", count: leadingZeros) + spelt
            } else {
                let point = spelt.index(spelt.startIndex, offsetBy: spelt.count + exponent)
                text += spelt[..<point] + "." + spelt[point...]
            }
        } else {
            let first = spelt.prefix(1)
            let rest = spelt.dropFirst()
            text += first + (rest.isEmpty ? "" : "." + rest) + "e" + String(exponent + digits.count - 1)
        }
        return WidgetNumber(unchecked: text)
    }

    // MARK: Digit arithmetic (least significant digit first)

    private static func shifted(_ digits: [UInt8], by zeros: Int) -> [UInt8] {
        zeros > 0 ? [UInt8](repeating: 0, count: zeros) + digits : digits
    }

    /// -1, 0 or 1 as `x` is less than, equal to or greater than `y` (neither with zeros at the top).
    private static func compare(_ x: [UInt8], _ y: [UInt8]) -> Int {
        if x.count != y.count { return x.count < y.count ? -1 : 1 }
        for index in stride(from: x.count - 1, through: 0, by: -1) where x[index] != y[index] {
            return x[index] < y[index] ? -1 : 1
        }
        return 0
    }

    private static func add(_ x: [UInt8], _ y: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(max(x.count, y.count) + 1)
        var carry: UInt8 = 0
        for index in 0..<max(x.count, y.count) {
            let digit = (index < x.count ? x[index] : 0) + (index < y.count ? y[index] : 0) + carry
            result.append(digit % 10)
            carry = digit / 10
        }
        if carry > 0 { result.append(carry) }
        return result
    }

    /// `x - y` for `x ≥ y`, without zeros at the top.
    private static func subtract(_ x: [UInt8], _ y: [UInt8]) -> [UInt8] {
        var result = x
        var borrow: Int = 0
        for index in 0..<x.count {
            var digit = Int(x[index]) - borrow - (index < y.count ? Int(y[index]) : 0)
            borrow = digit < 0 ? 1 : 0
            if digit < 0 { digit += 10 }
            result[index] = UInt8(digit)
        }
        while result.last == 0 { result.removeLast() }
        return result
    }

    private static func multiply(_ x: [UInt8], _ y: [UInt8]) -> [UInt8] {
        var sums = [Int](repeating: 0, count: x.count + y.count)
        for (i, a) in x.enumerated() where a != 0 {
            // A column holds at most 81 × 1,001 before the carry: far inside Int.
            for (j, b) in y.enumerated() { sums[i + j] += Int(a) * Int(b) }
        }
        var result: [UInt8] = []
        result.reserveCapacity(sums.count)
        var carry = 0
        for sum in sums {
            let total = sum + carry
            result.append(UInt8(total % 10))
            carry = total / 10
        }
        while carry > 0 {
            result.append(UInt8(carry % 10))
            carry /= 10
        }
        while result.last == 0 { result.removeLast() }
        return result
    }

    /// `x / y` and `x % y` by long division (`y` not zero).
    private static func divide(_ x: [UInt8], _ y: [UInt8]) -> (quotient: [UInt8], remainder: [UInt8]) {
        var quotient = [UInt8](repeating: 0, count: x.count)
        var remainder: [UInt8] = []
        for index in stride(from: x.count - 1, through: 0, by: -1) {
            if !remainder.isEmpty || x[index] != 0 { remainder.insert(x[index], at: 0) }
            var digit: UInt8 = 0
            while compare(remainder, y) >= 0 {
                remainder = subtract(remainder, y)
                digit += 1
            }
            quotient[index] = digit
        }
        while quotient.last == 0 { quotient.removeLast() }
        return (quotient, remainder)
    }
}
