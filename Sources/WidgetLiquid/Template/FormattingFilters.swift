import Foundation
import WidgetJSON

/// The filters that format numbers, money, sizes and dates for people: `number`, `currency`, `percent`,
/// `compact_number`, `bytes`, `relative_time` and `format_date`.
///
/// Numbers are formatted from their decimal digits, never through a `Double`, and rounded half to even
/// (as Foundation's formatters round by default). A number given as text (`"1234.5"`) is formatted too;
/// any other input is returned as it is, and `nil` stays `nil`.
enum FormattingFilters {
    typealias Entry = StandardFilters.Entry

    static let entries: [Entry] = numberEntries + dateEntries

    static let numberEntries: [Entry] = [
        Entry(
            "number", 0...1,
            { input, arguments, context throws(ExpressionError) in
                try checkKeywords(context, allowed: ["group", "sign"])
                guard let value = try decimal(input, context: context) else { return input }
                let places = try decimals(arguments.first, context: context, example: "number: 2")
                let shown = places.map { value.rounded(places: $0) } ?? value
                let text = shown.magnitudeText(grouping: try flag("group", context: context, default: true))
                return .string(signed(text, shown, sign: try flag("sign", context: context)))
            }),
        Entry(
            "currency", 1...1,
            { input, arguments, context throws(ExpressionError) in
                try checkKeywords(context, allowed: ["decimals", "sign", "accounting", "compact", "symbol"])
                guard let value = try decimal(input, context: context) else { return input }
                return .string(try currency(value, code: arguments[0], context: context))
            }),
        Entry(
            "percent", 0...1,
            { input, arguments, context throws(ExpressionError) in
                try checkKeywords(context, allowed: ["sign"])
                guard let value = try decimal(input, context: context) else { return input }
                let places = try decimals(arguments.first, context: context, example: "percent: 1") ?? 0
                let shown = value.shifted(by: 2).rounded(places: places)
                return .string(signed(shown.magnitudeText(), shown, sign: try flag("sign", context: context)) + "%")
            }),
        Entry(
            "compact_number", 0...0,
            { input, _, context throws(ExpressionError) in
                try checkKeywords(context, allowed: ["sign"])
                guard let value = try decimal(input, context: context) else { return input }
                let (shown, suffix) = compact(value)
                return .string(signed(compactText(shown), shown, sign: try flag("sign", context: context)) + suffix)
            }),
        Entry(
            "bytes", 0...0,
            { input, _, context throws(ExpressionError) in
                try checkKeywords(context, allowed: ["units"])
                guard let value = try decimal(input, context: context) else { return input }
                let binary: Bool
                switch context.keywordArguments["units"] {
                case nil, .string("decimal")?: binary = false
                case .string("binary")?: binary = true
                default:
                    throw context.error(
                        "`units:` must be 'decimal' (1 KB = 1000 bytes) or 'binary' (1 KB = 1024 bytes)",
                        hint: "write e.g. `bytes: units: 'binary'`")
                }
                return .string(byteCount(value, binary: binary))
            }),
    ]

    // MARK: - Reading arguments

    /// The input as decimal digits: a number, or text that is one; `nil` for anything else.
    ///
    /// - Throws: When the number is too long to write out (`1e999999999`).
    static func decimal(_ input: WidgetValue, context: FilterContext) throws(ExpressionError) -> FormattedDecimal? {
        let number: WidgetNumber
        switch input {
        case .number(let value): number = value
        case .string(let text):
            guard let value = WidgetNumber(text.trimmingFoundationWhitespaceAndNewlines()) else { return nil }
            number = value
        default: return nil
        }
        guard let decimal = FormattedDecimal(number) else {
            throw context.error(
                "the number would take more than \(RenderBudget.maximumTextBytes) digits to write out",
                hint: "round it or scale it first (divided_by, round)")
        }
        return decimal
    }

    /// The largest number of decimals a filter writes.
    static let maximumDecimals = 100

    /// A count of decimals from a positional argument or keyword, or `nil` when none is given.
    static func decimals(_ value: WidgetValue?, context: FilterContext, example: String) throws(ExpressionError) -> Int? {
        guard let value, !value.isNull else { return nil }
        if case .number(let number) = value, let count = number.int, (0...maximumDecimals).contains(count) {
            return count
        }
        throw context.error(
            "the number of decimals must be a whole number from 0 to \(maximumDecimals)", hint: "write e.g. `\(example)`")
    }

    /// Throws when the call has a keyword the filter does not know.
    static func checkKeywords(_ context: FilterContext, allowed: [String]) throws(ExpressionError) {
        for (key, _) in context.keywordArguments where !allowed.contains(key) {
            throw context.error(
                "does not take the keyword `\(key):`",
                hint: "it takes " + allowed.map { "`\($0):`" }.joined(separator: ", "))
        }
    }

    /// A `true`/`false` keyword, or `defaultValue` when absent.
    static func flag(_ name: String, context: FilterContext, default defaultValue: Bool = false) throws(ExpressionError) -> Bool {
        switch context.keywordArguments[name] {
        case nil, .null?: return defaultValue
        case .bool(let value)?: return value
        default: throw context.error("`\(name):` must be true or false", hint: "write e.g. `\(name): true`")
        }
    }

    // MARK: - Writing numbers

    /// `text` with the value's sign: `-` below zero, `+` above it when `sign` is set, none for zero.
    static func signed(_ text: String, _ value: FormattedDecimal, sign: Bool) -> String {
        if value.negative { return "-" + text }
        return sign && !value.isZero ? "+" + text : text
    }

    /// The value written short with `K`, `M`, `B` or `T` as Foundation's `.notation(.compactName)` does
    /// in English: two significant digits under 100 of the unit (`1.2M`, `12K`), whole numbers from 100
    /// (`123K`); trailing zeros dropped (`1M`). Past a thousand trillion it stays in `T` (`1500T`).
    static func compact(_ value: FormattedDecimal) -> (FormattedDecimal, String) {
        let suffixes = ["", "K", "M", "B", "T"]
        func shortened(_ scaled: FormattedDecimal) -> FormattedDecimal {
            let digits = scaled.integerDigitCount
            let places = digits >= 2 ? 0 : digits == 1 ? 1 : scaled.isZero ? 0 : scaled.leadingFractionZeros + 2
            return scaled.rounded(places: places).trimmed
        }
        var unit = value.integerDigitCount > 3 ? min(suffixes.count - 1, (value.integerDigitCount - 1) / 3) : 0
        var shown = shortened(value.shifted(by: -3 * unit))
        if shown.integerDigitCount > 3, unit < suffixes.count - 1 {
            unit += 1
            shown = shortened(value.shifted(by: -3 * unit))
        }
        return (shown, suffixes[unit])
    }

    /// A compact number's digits: grouped from five digits on (`1500T`, `15,000T`), as ICU's compact
    /// notation groups.
    static func compactText(_ value: FormattedDecimal) -> String {
        value.magnitudeText(grouping: value.integerDigitCount >= 5)
    }

    /// `currency`: the amount with the currency's symbol, sign and decimals.
    static func currency(_ value: FormattedDecimal, code: WidgetValue, context: FilterContext) throws(ExpressionError)
        -> String
    {
        guard case .string(let written) = code, written.utf8.count == 3,
            written.utf8.allSatisfy({ (65...90).contains($0) || (97...122).contains($0) })
        else {
            throw context.error(
                "the currency must be a three-letter ISO 4217 code", hint: "write e.g. `currency: 'USD'` or `currency: 'EUR'`")
        }
        let currency = CurrencySymbols.currency(written.uppercased())
        var prefix = currency.prefix
        switch context.keywordArguments["symbol"] {
        case nil, .null?: break
        case .string(let symbol)?: prefix = symbol
        default: throw context.error("`symbol:` must be text", hint: "write e.g. `symbol: 'US$'`")
        }
        let places = try decimals(context.keywordArguments["decimals"], context: context, example: "decimals: 0")
        let shown: FormattedDecimal
        var body: String
        if try flag("compact", context: context) {
            guard places == nil else {
                throw context.error(
                    "`compact: true` chooses its own decimals", hint: "remove `decimals:` or `compact: true`")
            }
            let (short, suffix) = compact(value)
            shown = short
            body = compactText(short) + suffix
        } else {
            shown = value.rounded(places: places ?? currency.decimals)
            body = shown.magnitudeText()
        }
        body = prefix + body
        if shown.negative {
            return try flag("accounting", context: context) ? "(" + body + ")" : "-" + body
        }
        return try flag("sign", context: context) && !shown.isZero ? "+" + body : body
    }

    /// `bytes`: a byte count as `ByteCountFormatter` writes it, with `.file` (1000) or `.memory` (1024)
    /// units: `Zero KB`, `1 byte`, `999 bytes`, `2 KB` (whole), `5.2 MB` (one decimal), `1.23 GB` (two, and so
    /// on up), trailing zeros dropped. The count is first rounded to whole bytes; past `EB` come `ZB` and
    /// `YB`.
    static func byteCount(_ value: FormattedDecimal, binary: Bool) -> String {
        let count = value.rounded(places: 0)
        if count.isZero { return "Zero KB" }
        let sign = count.negative ? "-" : ""
        let units = ["bytes", "KB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"]
        let unit: Int
        let scaled: FormattedDecimal
        if binary {
            var magnitude = count
            magnitude.negative = false
            unit = binaryPowers.lastIndex { !isLess(magnitude, $0) } ?? 0
            // n / 1024^k = n × 5^(10k) / 10^(10k), exactly.
            scaled = unit == 0 ? count : multiply(count, fivePowers[unit]).shifted(by: -10 * unit)
        } else {
            unit = count.integerDigitCount > 3 ? min(units.count - 1, (count.integerDigitCount - 1) / 3) : 0
            scaled = count.shifted(by: -3 * unit)
        }
        if unit == 0 {
            return sign + count.magnitudeText() + (count.integer == [1] ? " byte" : " bytes")
        }
        let places = unit == 1 ? 0 : unit == 2 ? 1 : 2
        return sign + scaled.rounded(places: places).trimmed.magnitudeText() + " " + units[unit]
    }

    /// 1024^k for k = 0…8.
    private static let binaryPowers: [FormattedDecimal] = (0...8).map { power in
        FormattedDecimal(WidgetNumber(unchecked: powerText(base: 1024, power)))!
    }

    /// 5^(10k) for k = 0…8.
    private static let fivePowers: [FormattedDecimal] = (0...8).map { power in
        FormattedDecimal(WidgetNumber(unchecked: powerText(base: 9_765_625, power)))!
    }

    private static func powerText(base: Int, _ power: Int) -> String {
        var result = WidgetNumber(1)
        for _ in 0..<power { result = result.multiplied(by: WidgetNumber(base)) ?? result }
        return result.text
    }

    /// Whether the magnitude of `a` is below that of `b` (both whole numbers).
    private static func isLess(_ a: FormattedDecimal, _ b: FormattedDecimal) -> Bool {
        if a.integer.count != b.integer.count { return a.integer.count < b.integer.count }
        return a.integer.lexicographicallyPrecedes(b.integer)
    }

    /// The product of a whole number and a whole positive number, digit by digit.
    private static func multiply(_ a: FormattedDecimal, _ b: FormattedDecimal) -> FormattedDecimal {
        var product = [Int](repeating: 0, count: a.integer.count + b.integer.count)
        for (i, x) in a.integer.reversed().enumerated() {
            for (j, y) in b.integer.reversed().enumerated() { product[i + j] += Int(x) * Int(y) }
        }
        var carry = 0
        for index in product.indices {
            let total = product[index] + carry
            product[index] = total % 10
            carry = total / 10
        }
        return FormattedDecimal(negative: a.negative, integer: product.reversed().map { UInt8($0) }, fraction: [])
    }
}
