import Foundation
import WidgetJSON

/// Liquid's coercion rules (to string, to number, to integer, to a list), shared by the expression
/// evaluator and the standard filters.
enum LiquidValue {
    // MARK: - Strings

    /// The text Liquid outputs for a value: `nil` is empty, lists are joined without a separator, numbers
    /// keep their exact text and objects are written as compact JSON.
    static func string(_ value: WidgetValue) -> String {
        switch value {
        case .null: ""
        case .bool(let bool): bool ? "true" : "false"
        case .number(let number): number.text
        case .string(let string): string
        case .array(let array): array.map(string).joined()
        case .object: JSONWriter.string(value)
        }
    }

    /// Like ``string(_:)``, but `nil` stays `nil`, for filters that pass `nil` through.
    static func optionalString(_ value: WidgetValue) -> String? {
        value.isNull ? nil : string(value)
    }

    // MARK: - Numbers

    /// A number with Liquid's integer/float distinction: a float is written with a decimal point.
    struct Number {
        var value: WidgetNumber
        var isFloat: Bool

        init(_ value: WidgetNumber, isFloat: Bool) {
            self.value = value
            self.isFloat = isFloat
        }

        init(_ value: WidgetNumber) {
            self.value = value
            self.isFloat = LiquidValue.isFloat(value)
        }

        static let zero = Number(WidgetNumber(0), isFloat: false)

        /// The number as a value; a whole float keeps a `.0` so that `10 | plus: 2.0` is `12.0`.
        var widgetValue: WidgetValue {
            guard isFloat, !LiquidValue.isFloat(value) else { return .number(value) }
            return .number(WidgetNumber(unchecked: value.text + ".0"))
        }
    }

    /// Whether a number is written as a float (with a decimal point or an exponent).
    static func isFloat(_ number: WidgetNumber) -> Bool {
        var text = number.text
        return text.withUTF8 { bytes in
            bytes.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        }
    }

    /// Liquid's `to_number`: numbers as they are, numeric strings parsed, everything else zero.
    static func number(_ value: WidgetValue) -> Number {
        switch value {
        case .number(let number):
            return Number(number)
        case .string(let string):
            return number(parsing: string) ?? .zero
        default:
            return .zero
        }
    }

    /// Parses `-12`, `3.5`, `2e3` (after trimming whitespace); strings with a leading integer give that
    /// integer, as Ruby's `to_i` does; other text gives `nil`.
    ///
    /// A number with an exponent converts with it, exactly (Ruby's `to_i` would read `"2e3"` as 2): `2e3`
    /// is the integer 2000, `2.5e3` the float 2500.0, `1e-1` the float 0.1. `NaN`, `inf` and `Infinity`
    /// are no JSON numbers: they convert by their leading integer, so to 0.
    static func number(parsing text: String) -> Number? {
        let trimmed = text.trimmingFoundationWhitespaceAndNewlines()
        if let number = WidgetNumber(trimmed) {
            guard trimmed.utf8.contains(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) else {
                return Number(number)
            }
            // Spelt plainly where that is short (`2000`), in exponent form past it (`1e999999999`).
            let spelt = ExactDecimal(number).number
            return Number(spelt, isFloat: trimmed.contains(".") || !number.isInteger)
        }
        if let leading = leadingInteger(trimmed) { return Number(WidgetNumber(leading), isFloat: false) }
        return nil
    }

    /// The integer at the start of `text` (`"12abc"` → 12), as Ruby's `String#to_i`.
    static func leadingInteger(_ text: String) -> Int? {
        var digits = ""
        for (offset, character) in text.enumerated() {
            if offset == 0, character == "-" || character == "+" {
                digits.append(character)
            } else if character.isASCII, character.isNumber {
                digits.append(character)
            } else {
                break
            }
        }
        return Int(digits)
    }

    /// Ruby's `to_i`: numbers truncated toward zero, strings by their leading integer, everything else zero.
    static func integer(_ value: WidgetValue) -> Int {
        switch value {
        case .number(let number):
            if let int = number.int { return int }
            let double = number.double.rounded(.towardZero)
            return double.magnitude < 9e18 ? Int(double) : 0
        case .string(let string):
            return leadingInteger(string.trimmingFoundationWhitespace()) ?? 0
        default:
            return 0
        }
    }

    /// Liquid's strict `to_integer` for filter arguments such as `slice`'s offset: integers and integer
    /// strings only.
    static func strictInteger(_ value: WidgetValue, context: FilterContext, argument: String) throws(ExpressionError)
        -> Int
    {
        switch value {
        case .number(let number) where !isFloat(number):
            if let int = number.int { return int }
        case .string(let string):
            if let int = Int(string.trimmingFoundationWhitespace()) { return int }
        default:
            break
        }
        throw context.error("\(argument) must be an integer, not \(describe(value))")
    }

    /// The kind of a value for error messages: `a string`, `a decimal number`, `nil`, `an array`.
    ///
    /// Never the value itself: a template may handle secrets (`env.TOKEN`), and error messages end up in
    /// logs and snapshots.
    static func describe(_ value: WidgetValue) -> String {
        switch value {
        case .null: "nil"
        case .string: "a string"
        case .number(let number): isFloat(number) ? "a decimal number" : "an integer"
        case .bool: "a boolean"
        case .array: "an array"
        case .object: "an object"
        }
    }

    // MARK: - Lists

    /// Liquid's `InputIterator`: arrays flattened, an object as a one-element list, `nil` as an empty list,
    /// any other value as a one-element list.
    static func list(_ value: WidgetValue) -> [WidgetValue] {
        switch value {
        case .null: []
        case .array(let array): flatten(array)
        default: [value]
        }
    }

    /// Nested arrays flattened into one.
    static func flatten(_ array: [WidgetValue]) -> [WidgetValue] {
        guard array.contains(where: { $0.array != nil }) else { return array }
        var result: [WidgetValue] = []
        for element in array {
            if case .array(let inner) = element { result += flatten(inner) } else { result.append(element) }
        }
        return result
    }

    /// Ruby's `nil`/`false` test: every other value is true.
    static func isTruthy(_ value: WidgetValue) -> Bool { value.isTruthy }

    /// Whether a value is empty in Liquid's sense (`""`, `[]`, `{}`).
    static func isEmpty(_ value: WidgetValue) -> Bool {
        switch value {
        case .string(let string): string.isEmpty
        case .array(let array): array.isEmpty
        case .object(let object): object.isEmpty
        default: false
        }
    }
}
