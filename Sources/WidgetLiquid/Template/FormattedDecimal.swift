import WidgetJSON

/// A number as the decimal digits the formatting filters write: read from a `WidgetNumber`'s text,
/// shifted, rounded half-even and grouped digit by digit, never through a `Double`.
///
/// `12345678901234567890.125 | number: 2` is `12,345,678,901,234,567,890.12`: every digit is the input's.
struct FormattedDecimal: Equatable {
    /// Whether the value is below zero; never true for zero.
    var negative: Bool
    /// The digits before the point, most significant first, without leading zeros (empty for 0).
    var integer: [UInt8]
    /// The digits after the point, as written (trailing zeros kept).
    var fraction: [UInt8]

    init(negative: Bool, integer: [UInt8], fraction: [UInt8]) {
        var start = 0
        while start < integer.count, integer[start] == 0 { start += 1 }
        self.integer = start == 0 ? integer : Array(integer[start...])
        self.fraction = fraction
        self.negative = negative
        if isZero { self.negative = false }
    }

    /// The number's digits with its exponent applied (`1.5e3` is `1500`, `2.50` keeps its zero), or `nil`
    /// when writing it plainly would take more than `limit` digits.
    init?(_ number: WidgetNumber, limit: Int = RenderBudget.maximumTextBytes) {
        var negative = false
        var whole: [UInt8] = []
        var fraction: [UInt8] = []
        var exponent = 0
        var exponentNegative = false
        var state = 0  // 0 integer, 1 fraction, 2 exponent
        for byte in number.text.utf8 {
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
                case 0: whole.append(digit)
                case 1: fraction.append(digit)
                default: exponent = min(exponent * 10 + Int(digit), 10 * limit + 10)
                }
            }
        }
        if exponentNegative { exponent = -exponent }
        let digits = whole + fraction
        guard digits.contains(where: { $0 != 0 }) else {
            self.init(negative: false, integer: [], fraction: exponent >= 0 ? fraction : [])
            return
        }
        let point = whole.count + exponent
        if point >= digits.count {
            guard point <= limit else { return nil }
            self.init(negative: negative, integer: digits + Array(repeating: 0, count: point - digits.count), fraction: [])
        } else if point <= 0 {
            guard digits.count - point <= limit else { return nil }
            self.init(negative: negative, integer: [], fraction: Array(repeating: 0, count: -point) + digits)
        } else {
            self.init(negative: negative, integer: Array(digits[..<point]), fraction: Array(digits[point...]))
        }
    }

    var isZero: Bool { !integer.contains(where: { $0 != 0 }) && !fraction.contains(where: { $0 != 0 }) }

    /// The number of digits before the point (0 for values under 1).
    var integerDigitCount: Int { integer.count }

    /// How many zeros follow the point before the first significant digit (for values under 1).
    var leadingFractionZeros: Int { fraction.firstIndex(where: { $0 != 0 }) ?? fraction.count }

    /// The value times 10^`places` (a negative count divides).
    func shifted(by places: Int) -> FormattedDecimal {
        if places >= 0 {
            let moved = Array(fraction.prefix(places)) + Array(repeating: 0, count: max(0, places - fraction.count))
            return FormattedDecimal(negative: negative, integer: integer + moved, fraction: Array(fraction.dropFirst(places)))
        }
        let count = -places
        let padded = Array(repeating: 0, count: max(0, count - integer.count)) + integer
        let split = padded.count - count
        return FormattedDecimal(negative: negative, integer: Array(padded[..<split]), fraction: Array(padded[split...]) + fraction)
    }

    /// Rounded half to even to exactly `places` decimals (zeros added where there are fewer).
    func rounded(places: Int) -> FormattedDecimal {
        guard fraction.count > places else {
            return FormattedDecimal(
                negative: negative, integer: integer, fraction: fraction + Array(repeating: 0, count: places - fraction.count))
        }
        var kept = integer + fraction[..<places]
        let next = fraction[places]
        let beyond = fraction[(places + 1)...].contains { $0 != 0 }
        let last = kept.last ?? 0
        if next > 5 || (next == 5 && (beyond || last % 2 == 1)) {
            var index = kept.count - 1
            while index >= 0, kept[index] == 9 {
                kept[index] = 0
                index -= 1
            }
            if index >= 0 { kept[index] += 1 } else { kept.insert(1, at: 0) }
        }
        let split = kept.count - places
        return FormattedDecimal(negative: negative, integer: Array(kept[..<split]), fraction: Array(kept[split...]))
    }

    /// The same value without zeros at the end of the fraction (`1.50` → `1.5`, `2.0` → `2`).
    var trimmed: FormattedDecimal {
        var copy = self
        while copy.fraction.last == 0 { copy.fraction.removeLast() }
        return copy
    }

    /// The magnitude as text: `1,234.50` (grouped in threes with commas when `grouping`), `0.5`, `0`.
    func magnitudeText(grouping: Bool = true) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(integer.count * 4 / 3 + fraction.count + 2)
        if integer.isEmpty { bytes.append(UInt8(ascii: "0")) }
        for (index, digit) in integer.enumerated() {
            if grouping, index > 0, (integer.count - index) % 3 == 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(digit + UInt8(ascii: "0"))
        }
        if !fraction.isEmpty {
            bytes.append(UInt8(ascii: "."))
            bytes.append(contentsOf: fraction.map { $0 + UInt8(ascii: "0") })
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
