import Foundation
import WidgetJSON

/// Shopify Liquid's standard filters, following the Golden Liquid suite, with decimal arithmetic.
enum StandardFilters {
    typealias Body = FilterRegistry.Body

    static let registry: FilterRegistry = {
        var registry = FilterRegistry.empty
        for entry in stringFilters + numberFilters + listFilters + otherFilters + FormattingFilters.entries + [Sparkline.entry] {
            registry = registry.adding(entry.name, arguments: entry.arguments, entry.body)
        }
        return registry
    }()

    /// One filter of the tables below. (A struct, not a tuple: a closure kept in a tuple in an array is
    /// stored in the most general form and called through a conversion that copies every argument.)
    struct Entry {
        let name: String
        let arguments: ClosedRange<Int>
        let body: Body

        init(_ name: String, _ arguments: ClosedRange<Int>, _ body: @escaping Body) {
            self.name = name
            self.arguments = arguments
            self.body = body
        }
    }

    private static func string(_ value: WidgetValue) -> String { LiquidValue.string(value) }

    /// A filter that maps the input's text to new text.
    private static func text(_ transform: @escaping @Sendable (String) -> String) -> Body {
        { input, _, _ in .string(transform(string(input))) }
    }

    /// Like ``text(_:)``, but `nil` stays `nil`.
    private static func optionalText(_ transform: @escaping @Sendable (String) -> String) -> Body {
        { input, _, _ in input.isNull ? .null : .string(transform(string(input))) }
    }

    // MARK: - Strings

    private static let rubyWhitespace: Set<Character> = [" ", "\t", "\n", "\u{0B}", "\u{0C}", "\r", "\0", "\r\n"]

    /// Whether `byte` is one of Ruby's white space characters (space, `\t`, `\n`, `\v`, `\f`, `\r`, NUL).
    @inline(__always)
    private static func isRubyWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) || byte == 0
    }

    /// `text` without Ruby's white space at its start and/or end. Every such character is one ASCII
    /// byte, so the ends are found in the UTF-8 bytes (as Ruby does, by code point).
    static func stripped(_ text: String, leading: Bool, trailing: Bool) -> String {
        var text = text
        return text.withUTF8 { bytes in
            var start = 0
            var end = bytes.count
            if leading {
                while start < end, isRubyWhitespace(bytes[start]) { start += 1 }
            }
            if trailing {
                while start < end, isRubyWhitespace(bytes[end - 1]) { end -= 1 }
            }
            if start == 0, end == bytes.count { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        } ?? text
    }

    /// `text` cut to `length` characters, the last of them `ellipsis`, when it is longer.
    static func truncated(_ text: String, length: Int, ellipsis: String) -> String {
        // No more bytes than the length: no more characters either.
        if text.utf8.count <= length { return text }
        let kept = length > ellipsis.count ? length - ellipsis.count : 0
        if length >= 0 {
            var text = text
            var ellipsis = ellipsis
            let cut: String? = text.withUTF8 { bytes in
                // When the first `length + 1` characters are as many ASCII bytes, the text is longer than
                // `length`, and its first `kept` characters are its first `kept` bytes.
                guard startsWithASCIICharacters(bytes, count: length + 1) else { return nil }
                return ellipsis.withUTF8 { tail in
                    String(unsafeUninitializedCapacity: kept + tail.count) { output in
                        _ = output.initialize(fromContentsOf: UnsafeBufferPointer(rebasing: bytes[..<kept]))
                        _ = UnsafeMutableBufferPointer(rebasing: output[kept...]).initialize(fromContentsOf: tail)
                        return kept + tail.count
                    }
                }
            }
            if let cut { return cut }
        }
        // Count characters only as far as needed: the length, and one more to know it is exceeded.
        var index = text.startIndex
        var keptEnd = text.startIndex
        var count = 0
        while index < text.endIndex, count <= length {
            if count == kept { keptEnd = index }
            text.formIndex(after: &index)
            count += 1
        }
        if count == kept { keptEnd = index }
        guard count > length else { return text }
        return String(text[..<keptEnd]) + ellipsis
    }

    /// Whether the first `count` bytes of `bytes` are ASCII and each a character of its own: no `\r\n`
    /// pair (one character), and no byte after them that joins the last (`\n`, a combining mark).
    private static func startsWithASCIICharacters(_ bytes: UnsafeBufferPointer<UInt8>, count: Int) -> Bool {
        guard bytes.count >= count else { return false }
        var previous: UInt8 = 0
        for index in 0..<count {
            let byte = bytes[index]
            guard byte < 0x80, !(previous == 0x0D && byte == 0x0A) else { return false }
            previous = byte
        }
        guard count < bytes.count else { return true }
        let next = bytes[count]
        return next < 0x80 && !(previous == 0x0D && next == 0x0A)
    }

    static let stringFilters: [Entry] = [
        Entry("append", 1...1, { input, arguments, _ in .string(string(input) + string(arguments[0])) }),
        Entry("prepend", 1...1, { input, arguments, _ in .string(string(arguments[0]) + string(input)) }),
        Entry("upcase", 0...0, text { $0.uppercased() }),
        Entry("downcase", 0...0, text { $0.lowercased() }),
        Entry("capitalize", 0...0, text { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }),
        Entry("strip", 0...0, text { stripped($0, leading: true, trailing: true) }),
        Entry("lstrip", 0...0, text { stripped($0, leading: true, trailing: false) }),
        Entry("rstrip", 0...0, text { stripped($0, leading: false, trailing: true) }),
        Entry("strip_newlines", 0...0, text { $0.replacing("\r\n", with: "").replacing("\n", with: "") }),
        Entry("newline_to_br", 0...0, text { $0.replacing("\r\n", with: "\n").replacing("\n", with: "<br />\n") }),
        Entry("escape", 0...0, optionalText { HTMLText.escape($0) }),
        Entry("h", 0...0, optionalText { HTMLText.escape($0) }),
        Entry("escape_once", 0...0, text { HTMLText.escapeOnce($0) }),
        // Marks HTML as trusted where output is escaped (``TemplateScope/escapesHTML``); elsewhere a no-op.
        Entry("safe", 0...0, { input, _, _ in input }),
        Entry("strip_html", 0...0, text { HTMLText.stripTags($0) }),
        Entry("url_encode", 0...0, optionalText { URLText.encode($0) }),
        Entry(
            "url_decode", 0...0,
            { input, _, context throws(ExpressionError) in
                guard !input.isNull else { return .null }
                guard let decoded = URLText.decode(string(input)) else {
                    throw context.error("the input does not decode to UTF-8 text")
                }
                return .string(decoded)
            }),
        Entry("base64_encode", 0...0, text { Data($0.utf8).base64EncodedString() }),
        Entry(
            "base64_url_safe_encode", 0...0,
            text {
                Data($0.utf8).base64EncodedString().replacing("+", with: "-").replacing("/", with: "_")
            }),
        Entry(
            "base64_decode", 0...0,
            { input, _, context throws(ExpressionError) in
                try base64Decode(string(input), urlSafe: false, context: context)
            }),
        Entry(
            "base64_url_safe_decode", 0...0,
            { input, _, context throws(ExpressionError) in
                try base64Decode(string(input), urlSafe: true, context: context)
            }),
        Entry("remove", 1...1, { input, arguments, _ in .string(replaceAll(string(input), string(arguments[0]), "")) }),
        Entry(
            "remove_first", 1...1,
            { input, arguments, _ in
                .string(replaceFirst(string(input), string(arguments[0]), ""))
            }),
        Entry(
            "remove_last", 1...1,
            { input, arguments, _ in
                .string(replaceLast(string(input), string(arguments[0]), ""))
            }),
        Entry(
            "replace", 1...2,
            { input, arguments, context throws(ExpressionError) in
                let text = string(input)
                let target = string(arguments[0])
                let replacement = arguments.count > 1 ? string(arguments[1]) : ""
                // Measured before it is built: a long replacement of a frequent target multiplies the size.
                let growth = replacement.utf8.count - target.utf8.count
                if growth > 0 {
                    let occurrences = target.isEmpty ? text.count + 1 : text.ranges(of: target).count
                    try RenderBudget.check(text.utf8.count + occurrences * growth, producedBy: "replace", column: context.column)
                }
                return .string(replaceAll(text, target, replacement))
            }),
        Entry(
            "replace_first", 1...2,
            { input, arguments, _ in
                .string(replaceFirst(string(input), string(arguments[0]), arguments.count > 1 ? string(arguments[1]) : ""))
            }),
        Entry(
            "replace_last", 2...2,
            { input, arguments, _ in
                .string(replaceLast(string(input), string(arguments[0]), string(arguments[1])))
            }),
        Entry(
            "split", 1...1,
            { input, arguments, _ in
                // One part past the limit is enough for the check after every filter to refuse it.
                .array(split(string(input), by: string(arguments[0]), atMost: RenderBudget.maximumItems + 1).map { .string($0) })
            }),
        Entry(
            "truncate", 0...2,
            { input, arguments, context throws(ExpressionError) in
                guard !input.isNull else { return .null }
                let length =
                    try arguments.first.map { (value) throws(ExpressionError) in
                        try LiquidValue.strictInteger(value, context: context, argument: "the length")
                    } ?? 50
                let ellipsis = arguments.count > 1 ? string(arguments[1]) : "..."
                return .string(truncated(string(input), length: length, ellipsis: ellipsis))
            }),
        Entry(
            "truncatewords", 0...2,
            { input, arguments, context throws(ExpressionError) in
                guard !input.isNull else { return .null }
                let text = string(input)
                var count =
                    try arguments.first.map { (value) throws(ExpressionError) in
                        try LiquidValue.strictInteger(value, context: context, argument: "the number of words")
                    } ?? 15
                if count <= 0 { count = 1 }
                let words = text.split(whereSeparator: { rubyWhitespace.contains($0) })
                guard words.count > count else { return .string(text) }
                let ellipsis = arguments.count > 1 ? string(arguments[1]) : "..."
                return .string(words.prefix(count).joined(separator: " ") + ellipsis)
            }),
        Entry(
            "slice", 1...2,
            { input, arguments, context throws(ExpressionError) in
                let offset = try LiquidValue.strictInteger(arguments[0], context: context, argument: "the offset")
                var length = 1
                if arguments.count > 1, !arguments[1].isNull {
                    length = try LiquidValue.strictInteger(arguments[1], context: context, argument: "the length")
                }
                if case .array(let array) = input {
                    guard let range = rubySliceRange(offset: offset, length: length, count: array.count) else {
                        return .array([])
                    }
                    return .array(Array(array[range]))
                }
                let characters = Array(string(input))
                guard let range = rubySliceRange(offset: offset, length: length, count: characters.count) else {
                    return .string("")
                }
                return .string(String(characters[range]))
            }),
    ]

    private static func base64Decode(_ text: String, urlSafe: Bool, context: FilterContext) throws(ExpressionError)
        -> WidgetValue
    {
        var encoded = text
        if urlSafe {
            encoded = encoded.replacing("-", with: "+").replacing("_", with: "/")
            while encoded.utf8.count % 4 != 0 { encoded += "=" }
        }
        guard let data = Data(base64Encoded: encoded), let decoded = String(data: data, encoding: .utf8) else {
            throw context.error("the input is not valid base64 text")
        }
        return .string(decoded)
    }

    static func replaceAll(_ text: String, _ target: String, _ replacement: String) -> String {
        if target.isEmpty { return replacement + text.map { String($0) + replacement }.joined() }
        return text.replacing(target, with: replacement)
    }

    static func replaceFirst(_ text: String, _ target: String, _ replacement: String) -> String {
        if target.isEmpty { return replacement + text }
        guard let range = text.firstRange(of: target) else { return text }
        return text.replacingCharacters(in: range, with: replacement)
    }

    static func replaceLast(_ text: String, _ target: String, _ replacement: String) -> String {
        if target.isEmpty { return text + replacement }
        guard let range = text.ranges(of: target).last else { return text }
        return text.replacingCharacters(in: range, with: replacement)
    }

    /// Ruby's `String#split`: a single space splits on runs of whitespace, an empty separator splits into
    /// characters, and trailing empty strings are dropped. At most `limit` parts are made, the last
    /// holding the rest of the text: a huge text is not split whole when only a bounded list may be kept.
    static func split(_ text: String, by separator: String, atMost limit: Int = .max) -> [String] {
        if text.isEmpty { return [] }
        let maxSplits = max(0, limit - 1)
        var parts: [String]
        if separator == " " {
            return text.split(maxSplits: maxSplits, whereSeparator: { rubyWhitespace.contains($0) }).map(String.init)
        } else if separator.isEmpty {
            parts = text.prefix(limit).map { String($0) }
        } else {
            parts = text.split(separator: separator, maxSplits: maxSplits, omittingEmptySubsequences: false).map(String.init)
        }
        while parts.last?.isEmpty == true { parts.removeLast() }
        return parts
    }

    /// Ruby's `slice(offset, length)` bounds, or `nil` when Ruby returns `nil`.
    static func rubySliceRange(offset: Int, length: Int, count: Int) -> Range<Int>? {
        let start = offset < 0 ? count + offset : offset
        guard start >= 0, start <= count, length >= 0 else { return nil }
        return start..<min(count, start + min(length, count))
    }

    // MARK: - Numbers

    static let numberFilters: [Entry] = [
        Entry(
            "plus", 1...1,
            { input, arguments, context throws(ExpressionError) in
                try arithmetic(input, arguments[0], context: context) { $0.adding($1) }
            }),
        Entry(
            "minus", 1...1,
            { input, arguments, context throws(ExpressionError) in
                try arithmetic(input, arguments[0], context: context) { $0.subtracting($1) }
            }),
        Entry(
            "times", 1...1,
            { input, arguments, context throws(ExpressionError) in
                try arithmetic(input, arguments[0], context: context) { $0.multiplied(by: $1) }
            }),
        Entry(
            "divided_by", 1...1,
            { input, arguments, context throws(ExpressionError) in
                try LiquidArithmetic.divide(LiquidValue.number(input), LiquidValue.number(arguments[0]), context: context)
                    .widgetValue
            }),
        Entry(
            "modulo", 1...1,
            { input, arguments, context throws(ExpressionError) in
                try LiquidArithmetic.modulo(LiquidValue.number(input), LiquidValue.number(arguments[0]), context: context)
                    .widgetValue
            }),
        Entry(
            "abs", 0...0,
            { input, _, _ in
                let number = LiquidValue.number(input)
                guard number.value.text.hasPrefix("-") else { return number.widgetValue }
                return LiquidValue.Number(
                    WidgetNumber(unchecked: String(number.value.text.dropFirst())), isFloat: number.isFloat
                ).widgetValue
            }),
        Entry(
            "ceil", 0...0,
            { input, _, _ in
                .number(LiquidArithmetic.rounded(LiquidValue.number(input).value, places: 0, mode: .up))
            }),
        Entry(
            "floor", 0...0,
            { input, _, _ in
                .number(LiquidArithmetic.rounded(LiquidValue.number(input).value, places: 0, mode: .down))
            }),
        Entry(
            "round", 0...1,
            { input, arguments, _ in
                let number = LiquidValue.number(input)
                let places = arguments.first.map { LiquidValue.integer(LiquidValue.number($0).widgetValue) } ?? 0
                let rounded = LiquidArithmetic.rounded(number.value, places: places, mode: .plain)
                return LiquidValue.Number(rounded, isFloat: number.isFloat && places > 0).widgetValue
            }),
        Entry(
            "at_least", 1...1,
            { input, arguments, _ in
                let value = LiquidValue.number(input)
                let bound = LiquidValue.number(arguments[0])
                return (bound.value > value.value ? bound : value).widgetValue
            }),
        Entry(
            "at_most", 1...1,
            { input, arguments, _ in
                let value = LiquidValue.number(input)
                let bound = LiquidValue.number(arguments[0])
                return (bound.value < value.value ? bound : value).widgetValue
            }),
    ]

    private static func arithmetic(
        _ input: WidgetValue, _ operand: WidgetValue, context: FilterContext,
        _ operation: (WidgetNumber, WidgetNumber) -> WidgetNumber?
    ) throws(ExpressionError) -> WidgetValue {
        let lhs = LiquidValue.number(input)
        let rhs = LiquidValue.number(operand)
        guard let result = operation(lhs.value, rhs.value) else { throw LiquidArithmetic.inexact(context: context) }
        return LiquidValue.Number(result, isFloat: lhs.isFloat || rhs.isFloat).widgetValue
    }

    // MARK: - Lists

    static let listFilters: [Entry] = [
        Entry(
            "join", 0...1,
            { input, arguments, context throws(ExpressionError) in
                let glue = arguments.first.map(string) ?? " "
                let pieces = LiquidValue.list(input).map(string)
                let size = pieces.reduce(0) { $0 + $1.utf8.count } + max(0, pieces.count - 1) * glue.utf8.count
                try RenderBudget.check(size, producedBy: "join", column: context.column)
                return .string(pieces.joined(separator: glue))
            }),
        Entry("first", 0...0, { input, _, _ in first(input) }),
        Entry("last", 0...0, { input, _, _ in input.array?.last ?? .null }),
        Entry(
            "size", 0...0,
            { input, _, _ in
                switch input {
                case .array(let array): .number(WidgetNumber(array.count))
                case .object(let object): .number(WidgetNumber(object.count))
                case .string(let text): .number(WidgetNumber(text.unicodeScalars.count))
                default: .number(0)
                }
            }),
        Entry("reverse", 0...0, { input, _, _ in .array(LiquidValue.list(input).reversed()) }),
        Entry(
            "concat", 1...1,
            { input, arguments, context throws(ExpressionError) in
                guard case .array(let extra) = arguments[0] else {
                    throw context.error("expects a list, not \(LiquidValue.describe(arguments[0]))")
                }
                let list = LiquidValue.list(input)
                // The one filter whose list can outgrow what it reads: checked before it is built.
                try RenderBudget.checkItems(list.count + extra.count, producedBy: "concat", column: context.column)
                return .array(list + extra)
            }),
        Entry(
            "compact", 0...1,
            { input, arguments, context throws(ExpressionError) in
                let list = LiquidValue.list(input)
                guard let property = arguments.first, !property.isNull else { return .array(list.filter { !$0.isNull }) }
                var kept: [WidgetValue] = []
                for item in list where !(try LiquidLookup.index(item, property, context: context) ?? .null).isNull {
                    kept.append(item)
                }
                return .array(kept)
            }),
        Entry(
            "uniq", 0...1,
            { input, arguments, context throws(ExpressionError) in
                var seen: Set<WidgetValue> = []
                var kept: [WidgetValue] = []
                for item in LiquidValue.list(input) {
                    var key = item
                    if let property = arguments.first, !property.isNull {
                        key = try LiquidLookup.index(item, property, context: context) ?? .null
                    }
                    if seen.insert(key).inserted { kept.append(item) }
                }
                return .array(kept)
            }),
        Entry(
            "map", 1...1,
            { input, arguments, context throws(ExpressionError) in
                var mapped: [WidgetValue] = []
                for item in LiquidValue.list(input) {
                    mapped.append(try LiquidLookup.index(item, arguments[0], context: context) ?? .null)
                }
                return .array(mapped)
            }),
        Entry(
            "sum", 0...1,
            { input, arguments, context throws(ExpressionError) in
                var total = LiquidValue.Number.zero
                for item in LiquidValue.list(input) {
                    var value = item
                    if let property = arguments.first, !property.isNull {
                        value = try LiquidLookup.index(item, property, context: context) ?? .null
                    }
                    let number: LiquidValue.Number =
                        switch value {
                        case .number, .string: LiquidValue.number(value)
                        default: .zero
                        }
                    guard let sum = total.value.adding(number.value) else { throw LiquidArithmetic.inexact(context: context) }
                    total = LiquidValue.Number(sum, isFloat: total.isFloat || number.isFloat)
                }
                return total.widgetValue
            }),
        Entry(
            "sort", 0...1,
            { input, arguments, context throws(ExpressionError) in
                try LiquidSort.sort(input, property: arguments.first ?? .null, natural: false, context: context)
            }),
        Entry(
            "sort_natural", 0...1,
            { input, arguments, context throws(ExpressionError) in
                try LiquidSort.sort(input, property: arguments.first ?? .null, natural: true, context: context)
            }),
        Entry(
            "where", 1...2,
            { input, arguments, context throws(ExpressionError) in
                try LiquidLookup.select(input, arguments, context: context, mode: .where)
            }),
        Entry(
            "reject", 1...2,
            { input, arguments, context throws(ExpressionError) in
                try LiquidLookup.select(input, arguments, context: context, mode: .reject)
            }),
        Entry(
            "find", 1...2,
            { input, arguments, context throws(ExpressionError) in
                try LiquidLookup.select(input, arguments, context: context, mode: .find)
            }),
        Entry(
            "find_index", 1...2,
            { input, arguments, context throws(ExpressionError) in
                try LiquidLookup.select(input, arguments, context: context, mode: .findIndex)
            }),
        Entry(
            "has", 1...2,
            { input, arguments, context throws(ExpressionError) in
                try LiquidLookup.select(input, arguments, context: context, mode: .has)
            }),
    ]

    /// `first` of a list, or the first `[key, value]` pair of an object.
    static func first(_ value: WidgetValue) -> WidgetValue {
        switch value {
        case .array(let array): return array.first ?? .null
        case .object(let object):
            guard let key = object.keys.first, let member = object[key] else { return .null }
            return .array([.string(key), member])
        default: return .null
        }
    }

    // MARK: - Others

    static let otherFilters: [Entry] = [
        Entry(
            "default", 0...1,
            { input, arguments, context in
                let allowFalse = context.keywordArguments["allow_false"]?.isTruthy ?? false
                let fallback = arguments.first ?? .string("")
                if input.isNull || LiquidValue.isEmpty(input) { return fallback }
                if input == .bool(false), !allowFalse { return fallback }
                return input
            }),
        Entry(
            "date", 1...1,
            { input, arguments, context throws(ExpressionError) in
                try FormattingFilters.checkKeywords(context, allowed: ["zone", "locale"])
                let zone = try FormattingFilters.zone(context)
                let names = try FormattingFilters.dateNames(context)
                let format = string(arguments[0])
                guard !format.isEmpty, let date = LiquidDate.date(from: input, context: context) else { return input }
                return .string(LiquidDate.format(date, format, timeZone: zone, names: names))
            }),
    ]
}
