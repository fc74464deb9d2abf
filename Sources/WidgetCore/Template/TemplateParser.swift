/// Reads template text into parts: literal text and `{{ … }}` output tags with their filters.
///
/// Works on the Unicode scalars of the whole source so that every error carries the 1-based column of the
/// problem inside the source.
struct TemplateParser {
    private let scalars: [Unicode.Scalar]
    private let filters: FilterRegistry
    private var position = 0
    /// The end of the tag being parsed (exclusive).
    private var end = 0
    /// How deeply brackets and ranges nest at the current position.
    private var depth = 0
    private static let maximumDepth = 64

    private static let valueHint =
        "write a variable (item.title), a 'quoted string', a number, true, false, nil or a range (1..5)"

    init(source: String, filters: FilterRegistry) {
        self.scalars = Array(source.unicodeScalars)
        self.filters = filters
    }

    // MARK: - Text and tags

    mutating func parseTemplate() throws(ExpressionError) -> [Template.Part] {
        var parts: [Template.Part] = []
        var text = String.UnicodeScalarView()
        var index = 0
        var trimNextText = false
        while index < scalars.count {
            let scalar = scalars[index]
            if trimNextText {
                if Self.isWhitespace(scalar) {
                    index += 1
                    continue
                }
                trimNextText = false
            }
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            if scalar == "{", next == "%" {
                throw ExpressionError(
                    "tags ({% %}) are not supported", column: index + 1, hint: "use output syntax {{ … }}")
            }
            guard scalar == "{", next == "{" else {
                text.append(scalar)
                index += 1
                continue
            }
            let tagStart = index
            var innerStart = index + 2
            if innerStart < scalars.count, scalars[innerStart] == "-" {
                innerStart += 1
                while let last = text.last, Self.isWhitespace(last) { text.removeLast() }
            }
            guard let close = closingBraces(from: innerStart) else {
                throw ExpressionError(
                    "unterminated '{{'", column: tagStart + 1, hint: "close the output tag with '}}'")
            }
            var innerEnd = close
            if innerEnd > innerStart, scalars[innerEnd - 1] == "-" {
                innerEnd -= 1
                trimNextText = true
            }
            if !text.isEmpty {
                parts.append(.text(String(text)))
                text = String.UnicodeScalarView()
            }
            position = innerStart
            end = innerEnd
            parts.append(.output(try parseOutput()))
            index = close + 2
        }
        if !text.isEmpty { parts.append(.text(String(text))) }
        return parts
    }

    /// The index of the `}}` closing a tag whose content starts at `start`, skipping quoted strings; falls
    /// back to the first `}}` when a quote is left open, so the expression parser can report it.
    private func closingBraces(from start: Int) -> Int? {
        var index = start
        var quote: Unicode.Scalar?
        while index < scalars.count {
            let scalar = scalars[index]
            if let open = quote {
                if scalar == open { quote = nil }
            } else if scalar == "'" || scalar == "\"" {
                quote = scalar
            } else if scalar == "}", index + 1 < scalars.count, scalars[index + 1] == "}" {
                return index
            }
            index += 1
        }
        index = start
        while index + 1 < scalars.count {
            if scalars[index] == "}", scalars[index + 1] == "}" { return index }
            index += 1
        }
        return nil
    }

    // MARK: - Output and filters

    private mutating func parseOutput() throws(ExpressionError) -> Template.Output {
        skipWhitespace()
        guard position < end else { return Template.Output(expression: .literal(.null), calls: []) }
        let expression = try parseExpression()
        var calls: [Template.FilterCall] = []
        while true {
            skipWhitespace()
            guard position < end else { break }
            guard scalars[position] == "|" else { throw unexpected("after the value") }
            position += 1
            calls.append(try parseFilterCall())
        }
        return Template.Output(expression: expression, calls: calls)
    }

    private mutating func parseFilterCall() throws(ExpressionError) -> Template.FilterCall {
        skipWhitespace()
        let nameColumn = position + 1
        guard let name = identifier() else {
            throw ExpressionError(
                "expected a filter name after '|'", column: nameColumn, hint: "write e.g. '| upcase'")
        }
        guard let filter = filters.filter(named: name) else {
            throw ExpressionError(
                "unknown filter '\(name)'", column: nameColumn, hint: Suggestion.hint(for: name, among: filters.names))
        }
        var arguments: [TemplateExpression] = []
        var keywords: [Template.Keyword] = []
        skipWhitespace()
        if position < end, scalars[position] == ":" {
            position += 1
            repeat {
                skipWhitespace()
                if let keyword = keywordName() {
                    keywords.append(Template.Keyword(name: keyword, value: try parseExpression()))
                } else {
                    arguments.append(try parseExpression())
                }
                skipWhitespace()
            } while consume(",")
        }
        guard filter.arguments.contains(arguments.count) else {
            throw ExpressionError(
                "filter '\(name)' takes \(Self.describe(filter.arguments)), not \(arguments.count)",
                column: nameColumn
            )
        }
        return Template.FilterCall(name: name, column: nameColumn, arguments: arguments, keywords: keywords, body: filter.body)
    }

    private static func describe(_ range: ClosedRange<Int>) -> String {
        let noun = range.upperBound == 1 ? "argument" : "arguments"
        if range.lowerBound == range.upperBound { return "\(range.lowerBound) \(noun)" }
        return "\(range.lowerBound) to \(range.upperBound) \(noun)"
    }

    /// `name:` (a keyword argument) at the current position; consumes it and returns the name.
    private mutating func keywordName() -> String? {
        let start = position
        guard let name = identifier() else { return nil }
        skipWhitespace()
        if consume(":") { return name }
        position = start
        return nil
    }

    // MARK: - Expressions

    private mutating func parseExpression() throws(ExpressionError) -> TemplateExpression {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            throw ExpressionError("the expression nests deeper than \(Self.maximumDepth) levels", column: position + 1)
        }
        skipWhitespace()
        guard position < end else {
            throw ExpressionError("expected a value", column: position + 1, hint: Self.valueHint)
        }
        let scalar = scalars[position]
        switch scalar {
        case "'", "\"":
            return .literal(.string(try parseString()))
        case "0"..."9":
            return try parseNumber()
        case "-" where position + 1 < end && ("0"..."9").contains(scalars[position + 1]):
            return try parseNumber()
        case "(":
            return try parseRange()
        case "[":
            position += 1
            let key = try parseExpression()
            try expect("]", context: "to close the bracket")
            return .path(root: .index(key), segments: try parseSegments())
        default:
            guard let name = identifier() else { throw unexpected("", hint: Self.valueHint) }
            let segments = try parseSegments()
            if segments.isEmpty, let literal = Self.keywords[name] { return .literal(literal) }
            return .path(root: .name(name), segments: segments)
        }
    }

    private static let keywords: [String: WidgetValue] = [
        "true": .bool(true), "false": .bool(false), "nil": .null, "null": .null, "empty": .string(""),
        "blank": .string(""),
    ]

    private mutating func parseSegments() throws(ExpressionError) -> [TemplateExpression.PathSegment] {
        var segments: [TemplateExpression.PathSegment] = []
        while true {
            let save = position
            skipWhitespace()
            guard position < end else { break }
            if scalars[position] == ".", !(position + 1 < end && scalars[position + 1] == ".") {
                position += 1
                skipWhitespace()
                guard let name = identifier() else {
                    throw ExpressionError(
                        "expected a property name after '.'", column: position + 1,
                        hint: "write e.g. item.title or item['title'] or list[0]")
                }
                segments.append(.name(name))
            } else if scalars[position] == "[" {
                position += 1
                let key = try parseExpression()
                try expect("]", context: "to close the bracket")
                segments.append(.index(key))
            } else {
                position = save
                break
            }
        }
        return segments
    }

    private mutating func parseString() throws(ExpressionError) -> String {
        let quote = scalars[position]
        let start = position
        position += 1
        var text = String.UnicodeScalarView()
        while position < end, scalars[position] != quote {
            text.append(scalars[position])
            position += 1
        }
        guard position < end else {
            throw ExpressionError(
                "unterminated string", column: start + 1, hint: "close it with \(quote)")
        }
        position += 1
        return String(text)
    }

    private mutating func parseNumber() throws(ExpressionError) -> TemplateExpression {
        let start = position
        var text = String.UnicodeScalarView()
        if scalars[position] == "-" {
            text.append("-")
            position += 1
        }
        while position < end, ("0"..."9").contains(scalars[position]) {
            text.append(scalars[position])
            position += 1
        }
        if position + 1 < end, scalars[position] == ".", ("0"..."9").contains(scalars[position + 1]) {
            text.append(".")
            position += 1
            while position < end, ("0"..."9").contains(scalars[position]) {
                text.append(scalars[position])
                position += 1
            }
        }
        if position < end, Self.isIdentifierScalar(scalars[position]) {
            throw ExpressionError(
                "'\(String(scalars[start...position].map(Character.init)))' is not a number or a name",
                column: start + 1, hint: "names start with a letter or '_'")
        }
        var digits = String(text)
        // JSON numbers have no leading zeros; Liquid reads 007 as 7.
        if let number = WidgetNumber(digits) { return .literal(.number(number)) }
        let negative = digits.hasPrefix("-")
        if negative { digits.removeFirst() }
        while digits.count > 1, digits.hasPrefix("0"), !digits.hasPrefix("0.") { digits.removeFirst() }
        guard let number = WidgetNumber((negative ? "-" : "") + digits) else {
            throw ExpressionError("'\(String(text))' is not a number", column: start + 1)
        }
        return .literal(.number(number))
    }

    private mutating func parseRange() throws(ExpressionError) -> TemplateExpression {
        position += 1
        let start = try parseExpression()
        skipWhitespace()
        guard position + 1 < end, scalars[position] == ".", scalars[position + 1] == "." else {
            throw unexpected("in the range", hint: "write a range as (1..5)")
        }
        position += 2
        let stop = try parseExpression()
        try expect(")", context: "to close the range")
        return .range(start, stop)
    }

    // MARK: - Scanning

    /// Unicode's White_Space, looked up in the property tables only beyond ASCII (whose white space is
    /// U+0009–U+000D and the space): the tables were a measurable part of reading a thousand definitions.
    @inline(__always)
    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar == " " || (scalar.value >= 0x09 && scalar.value <= 0x0D) }
        return scalar.properties.isWhitespace
    }

    private static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
            || (!scalar.isASCII && scalar.properties.isAlphabetic)
    }

    private static func isIdentifierScalar(_ scalar: Unicode.Scalar) -> Bool {
        isIdentifierStart(scalar) || ("0"..."9").contains(scalar) || scalar == "-"
    }

    /// A name at the current position (`title`, `first-name`, `valid?`); consumes it.
    private mutating func identifier() -> String? {
        guard position < end, Self.isIdentifierStart(scalars[position]) else { return nil }
        var name = String.UnicodeScalarView()
        while position < end, Self.isIdentifierScalar(scalars[position]) {
            name.append(scalars[position])
            position += 1
        }
        if position < end, scalars[position] == "?" {
            name.append("?")
            position += 1
        }
        return String(name)
    }

    private mutating func skipWhitespace() {
        while position < end, Self.isWhitespace(scalars[position]) { position += 1 }
    }

    private mutating func consume(_ scalar: Unicode.Scalar) -> Bool {
        guard position < end, scalars[position] == scalar else { return false }
        position += 1
        return true
    }

    private mutating func expect(_ scalar: Unicode.Scalar, context: String) throws(ExpressionError) {
        skipWhitespace()
        guard consume(scalar) else { throw unexpected("", hint: "write '\(scalar)' \(context)") }
    }

    private func unexpected(_ place: String, hint: String? = nil) -> ExpressionError {
        let suffix = place.isEmpty ? "" : " \(place)"
        guard position < end else {
            return ExpressionError("unexpected end of the expression\(suffix)", column: position + 1, hint: hint)
        }
        return ExpressionError("unexpected '\(Character(scalars[position]))'\(suffix)", column: position + 1, hint: hint)
    }
}
