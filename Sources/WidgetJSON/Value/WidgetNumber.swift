public import Foundation

/// An exact JSON number.
///
/// A `WidgetNumber` keeps the digits it was written with, so a 20-digit integer or a price with eight
/// decimals survives a trip through a pipeline unchanged. Conversions to `Decimal`, `Double` and `Int`
/// happen on demand. Equality and ordering compare values exactly, whatever the spelling: `1`, `1.0` and
/// `10e-1` are equal.
///
/// ```swift
/// let price = WidgetNumber("0.1")! + WidgetNumber("0.2")!
/// print(price) // 0.3
/// ```
public struct WidgetNumber: Sendable, CustomStringConvertible {
    /// The number as JSON text, for example `-12.50e3`.
    public let text: String

    /// Wraps text the caller has already checked to be a JSON number.
    @usableFromInline
    package init(unchecked text: String) {
        self.text = text
    }

    /// Creates a number from JSON number text; `nil` when `text` is not a JSON number.
    public init?(_ text: String) {
        guard WidgetNumber.isJSONNumber(text.utf8) else { return nil }
        self.text = text
    }

    /// Creates a number from an integer.
    public init(_ value: Int) {
        self.text = String(value)
    }

    /// Creates a number from a decimal; `nil` for NaN.
    public init?(_ value: Decimal) {
        guard !value.isNaN else { return nil }
        var description = value.description
        if description.hasPrefix(".") { description = "0" + description }
        if description.hasPrefix("-.") { description = "-0" + description.dropFirst() }
        guard WidgetNumber.isJSONNumber(description.utf8) else { return nil }
        self.text = description
    }

    /// Creates a number from a binary floating-point value, using its shortest exact spelling; `nil` for
    /// infinities and NaN.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        if value == value.rounded(), abs(value) < 1e15 {
            self.text = String(Int64(value))
            return
        }
        var description = "\(value)"
        if description.hasSuffix(".0") { description.removeLast(2) }
        self.text = description
    }

    public var description: String { text }

    /// The value as a `Decimal`; `nil` when it is outside `Decimal`'s range (about 1e±128).
    public var decimal: Decimal? {
        let parts = canonical
        if parts.digits.isEmpty { return Decimal(0) }
        // Decimal keeps at most 38 significant digits and an exponent in -128...127.
        let exponent = parts.exponent - parts.digits.count
        guard exponent >= -128, exponent + parts.digits.count <= 165 else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    /// The value as the nearest `Double` (infinite when out of range).
    public var double: Double {
        Double(text) ?? (canonical.negative ? -.infinity : .infinity)
    }

    /// The value as an `Int` when it is a whole number within range.
    public var int: Int? {
        if let value = Int(text) { return value }
        let parts = canonical
        if parts.digits.isEmpty { return 0 }
        guard parts.exponent >= parts.digits.count, parts.exponent <= 19 else { return nil }
        let zeros = String(repeating: "0", count: parts.exponent - parts.digits.count)
        return Int((parts.negative ? "-" : "") + parts.digits + zeros)
    }

    /// Whether the number has no fractional part.
    public var isInteger: Bool {
        let parts = canonical
        return parts.digits.isEmpty || parts.exponent >= parts.digits.count
    }

    // MARK: - Canonical form

    /// The value as `sign × 0.DIGITS × 10^exponent`, with no leading or trailing zeros in `DIGITS`;
    /// zero has empty digits.
    package struct Canonical: Hashable {
        package var negative: Bool
        package var digits: String
        package var exponent: Int
    }

    package var canonical: Canonical {
        var negative = false
        var integer: [UInt8] = []
        var fraction: [UInt8] = []
        var exponent = 0
        var bytes = text.utf8.makeIterator()
        var state = 0  // 0 integer, 1 fraction, 2 exponent
        var exponentNegative = false
        var exponentDigits = 0
        while let byte = bytes.next() {
            switch byte {
            case UInt8(ascii: "-"):
                if state == 2 { exponentNegative = true } else { negative = true }
            case UInt8(ascii: "+"):
                break
            case UInt8(ascii: "."):
                state = 1
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                state = 2
            default:
                let digit = byte &- UInt8(ascii: "0")
                switch state {
                case 0: integer.append(byte)
                case 1: fraction.append(byte)
                default:
                    if exponentDigits < 12 {
                        exponent = exponent * 10 + Int(digit)
                        if exponent != 0 { exponentDigits += 1 }
                    }
                }
            }
        }
        if exponentNegative { exponent = -exponent }
        var all = integer + fraction
        var pointPosition = integer.count
        while let first = all.first, first == UInt8(ascii: "0") {
            all.removeFirst()
            pointPosition -= 1
        }
        while let last = all.last, last == UInt8(ascii: "0") { all.removeLast() }
        if all.isEmpty { return Canonical(negative: false, digits: "", exponent: 0) }
        return Canonical(
            negative: negative,
            digits: String(decoding: all, as: UTF8.self),
            exponent: pointPosition + exponent
        )
    }

    /// Checks JSON number syntax (RFC 8259 §6).
    @inlinable
    static func isJSONNumber(_ bytes: some Collection<UInt8>) -> Bool {
        var index = bytes.startIndex
        func peek() -> UInt8? { index < bytes.endIndex ? bytes[index] : nil }
        func isDigit(_ byte: UInt8?) -> Bool { byte.map { $0 >= 48 && $0 <= 57 } ?? false }
        if peek() == UInt8(ascii: "-") { index = bytes.index(after: index) }
        guard let first = peek(), isDigit(first) else { return false }
        index = bytes.index(after: index)
        if first != UInt8(ascii: "0") {
            while isDigit(peek()) { index = bytes.index(after: index) }
        }
        if peek() == UInt8(ascii: ".") {
            index = bytes.index(after: index)
            guard isDigit(peek()) else { return false }
            while isDigit(peek()) { index = bytes.index(after: index) }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index = bytes.index(after: index)
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index = bytes.index(after: index) }
            guard isDigit(peek()) else { return false }
            while isDigit(peek()) { index = bytes.index(after: index) }
        }
        return index == bytes.endIndex
    }
}

// MARK: - Equality and order

extension WidgetNumber: Hashable, Comparable {
    public static func == (lhs: WidgetNumber, rhs: WidgetNumber) -> Bool {
        if lhs.text == rhs.text { return true }
        if let a = fastDouble(lhs.text), let b = fastDouble(rhs.text) { return a == b }
        return lhs.canonical == rhs.canonical
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(canonical)
    }

    public static func < (lhs: WidgetNumber, rhs: WidgetNumber) -> Bool {
        if let a = fastDouble(lhs.text), let b = fastDouble(rhs.text) { return a < b }
        let a = lhs.canonical
        let b = rhs.canonical
        let aSign = a.digits.isEmpty ? 0 : (a.negative ? -1 : 1)
        let bSign = b.digits.isEmpty ? 0 : (b.negative ? -1 : 1)
        if aSign != bSign { return aSign < bSign }
        if aSign == 0 { return false }
        let magnitudeLess: Bool
        if a.exponent != b.exponent {
            magnitudeLess = a.exponent < b.exponent
        } else if a.digits == b.digits {
            return false
        } else {
            magnitudeLess = a.digits.lexicographicallyPrecedes(b.digits)
        }
        return aSign > 0 ? magnitudeLess : !magnitudeLess
    }
}

// MARK: - Exact arithmetic

extension WidgetNumber {
    /// Adds exactly (see ``adding(_:)``); past ``exactDigitLimit`` digits, rounded to the nearest `Double`,
    /// and past 1e±``exponentLimit``, that limit with the sum's sign (never infinity or a wrong 0).
    public static func + (lhs: WidgetNumber, rhs: WidgetNumber) -> WidgetNumber {
        lhs.adding(rhs) ?? approximate(lhs.double + rhs.double)
    }

    /// Subtracts exactly (see ``subtracting(_:)``); past the limits, as ``+(_:_:)``.
    public static func - (lhs: WidgetNumber, rhs: WidgetNumber) -> WidgetNumber {
        lhs.subtracting(rhs) ?? approximate(lhs.double - rhs.double)
    }

    /// Multiplies exactly (see ``multiplied(by:)``); past the limits, as ``+(_:_:)``.
    public static func * (lhs: WidgetNumber, rhs: WidgetNumber) -> WidgetNumber {
        lhs.multiplied(by: rhs) ?? approximate(lhs.double * rhs.double, sign: lhs.canonical.negative != rhs.canonical.negative)
    }

    /// Divides; `nil` when `rhs` is zero. The quotient has up to 38 significant digits; beyond
    /// 1e±``exponentLimit``, as ``+(_:_:)``.
    public static func / (lhs: WidgetNumber, rhs: WidgetNumber) -> WidgetNumber? {
        if rhs.canonical.digits.isEmpty { return nil }
        return lhs.divided(by: rhs) ?? approximate(lhs.double / rhs.double, sign: lhs.canonical.negative != rhs.canonical.negative)
    }

    /// `value` as a number: the nearest one when finite, otherwise (or when it underflowed to zero) the
    /// limit 1e``exponentLimit`` with `value`'s sign (or `sign` when `value` is NaN).
    private static func approximate(_ value: Double, sign negative: Bool? = nil) -> WidgetNumber {
        if value.isFinite, value != 0, let number = WidgetNumber(value) { return number }
        let minus = value.isNaN || value == 0 ? (negative ?? false) : value < 0
        return WidgetNumber(unchecked: (minus ? "-" : "") + (value == 0 ? "1e-" : "1e") + String(exponentLimit))
    }
}

/// A decimal of at most 18 digits, `mantissa × 10^-scale`: the numbers widgets mostly compute with (prices,
/// counts, percentages), added, subtracted, multiplied and rounded exactly in machine integers. Each
/// result is the one `Decimal` gives, spelt as `Decimal` spells it (no trailing zeros, `0` for zero); an
/// operation whose result would not fit returns `nil` and the caller goes through `Decimal`.
package struct SmallDecimal: Equatable {
    package var mantissa: Int64
    package var scale: Int

    private static let powers: [Int64] = (0...18).map { exponent in (0..<exponent).reduce(Int64(1)) { value, _ in value * 10 } }

    package init(mantissa: Int64, scale: Int) {
        self.mantissa = mantissa
        self.scale = scale
    }

    /// Reads JSON number text without an exponent and with at most 18 digits; `nil` otherwise.
    package init?(_ text: String) {
        var text = text
        guard let value = text.withUTF8(SmallDecimal.init) else { return nil }
        self = value
    }

    /// Reads the UTF-8 of JSON number text without an exponent and with at most 18 digits.
    private init?(_ utf8: UnsafeBufferPointer<UInt8>) {
        var mantissa: Int64 = 0
        var scale = 0
        var digits = 0
        var negative = false
        var fraction = false
        var first = true
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if mantissa != 0 || byte != UInt8(ascii: "0") { digits += 1 }
                guard digits <= 18 else { return nil }
                mantissa = mantissa * 10 + Int64(byte &- UInt8(ascii: "0"))
                if fraction { scale += 1 }
            case UInt8(ascii: "-") where first:
                negative = true
            case UInt8(ascii: ".") where !fraction:
                fraction = true
            default:
                return nil
            }
            first = false
        }
        guard scale <= 18 else { return nil }
        self.mantissa = negative ? -mantissa : mantissa
        self.scale = scale
    }

    package var negated: SmallDecimal { SmallDecimal(mantissa: -mantissa, scale: scale) }

    /// The sum, or `nil` when it does not fit.
    package func adding(_ other: SmallDecimal) -> SmallDecimal? {
        let scale = max(self.scale, other.scale)
        guard let a = Self.rescaled(mantissa, by: scale - self.scale), let b = Self.rescaled(other.mantissa, by: scale - other.scale)
        else { return nil }
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard !overflow, sum.magnitude < UInt64(Self.powers[18]) else { return nil }
        return SmallDecimal(mantissa: sum, scale: scale)
    }

    /// The product, or `nil` when it does not fit.
    package func multiplied(by other: SmallDecimal) -> SmallDecimal? {
        let (product, overflow) = mantissa.multipliedReportingOverflow(by: other.mantissa)
        guard !overflow, product.magnitude < UInt64(Self.powers[18]), scale + other.scale <= 18 else { return nil }
        return SmallDecimal(mantissa: product, scale: scale + other.scale)
    }

    /// Rounded to `places` decimals (0 or more), halves away from zero (`NSDecimalNumber`'s `.plain`).
    package func rounded(places: Int) -> SmallDecimal {
        guard places >= 0, places < scale else { return self }
        let divisor = Self.powers[scale - places]
        var quotient = mantissa / divisor
        let remainder = (mantissa % divisor).magnitude
        if remainder * 2 >= UInt64(divisor) { quotient += mantissa < 0 ? -1 : 1 }
        return SmallDecimal(mantissa: quotient, scale: places)
    }

    /// `value × 10^shift`, or `nil` when it does not fit.
    private static func rescaled(_ value: Int64, by shift: Int) -> Int64? {
        guard shift > 0 else { return value }
        guard shift <= 18 else { return value == 0 ? 0 : nil }
        let (result, overflow) = value.multipliedReportingOverflow(by: powers[shift])
        return overflow ? nil : result
    }

    /// The number, spelt as `Decimal` spells it: no trailing zeros after the point, `0` for zero.
    ///
    /// Written digit by digit into the string's own storage (at most 22 bytes: a sign, `0.`, and 18
    /// digits or zeros and digits), which holds short results inline.
    package var number: WidgetNumber {
        var mantissa = self.mantissa
        var scale = self.scale
        if mantissa == 0 { return WidgetNumber(unchecked: "0") }
        while scale > 0, mantissa % 10 == 0 {
            mantissa /= 10
            scale -= 1
        }
        var magnitude = mantissa.magnitude
        var digitCount = 0
        var rest = magnitude
        repeat {
            digitCount += 1
            rest /= 10
        } while rest > 0
        let negative = mantissa < 0
        // The digits, and the point and zeros in front of them when the number is below one.
        let leadingZeros = max(0, scale - digitCount)
        let pointAndZeros = scale == 0 ? 0 : (digitCount > scale ? 1 : 2 + leadingZeros)
        let length = (negative ? 1 : 0) + digitCount + pointAndZeros
        let text = String(unsafeUninitializedCapacity: length) { bytes in
            var position = length
            var written = 0
            repeat {
                if scale > 0, written == scale {
                    position -= 1
                    bytes[position] = UInt8(ascii: ".")
                }
                position -= 1
                bytes[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                written += 1
            } while magnitude > 0
            if scale > 0, written <= scale {
                // Below one: zeros up to the point, the point, then a zero before it.
                while written < scale {
                    position -= 1
                    bytes[position] = UInt8(ascii: "0")
                    written += 1
                }
                position -= 1
                bytes[position] = UInt8(ascii: ".")
                position -= 1
                bytes[position] = UInt8(ascii: "0")
            }
            if negative {
                position -= 1
                bytes[position] = UInt8(ascii: "-")
            }
            return length
        }
        return WidgetNumber(unchecked: text)
    }
}

extension WidgetNumber: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    public init(integerLiteral value: Int) {
        self.init(value)
    }

    /// Float literals are read through their shortest spelling, so `0.1` is exactly one tenth.
    public init(floatLiteral value: Double) {
        self = WidgetNumber(value) ?? WidgetNumber(0)
    }
}

// MARK: - Fast exact comparison

extension WidgetNumber {
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
