/// Reads JSONPath text (RFC 9535 §2) into a ``JSONPathQuery`` or a ``FilterExpression``, checking the
/// grammar and the well-typedness of function expressions (§2.4.3).
///
/// Columns in errors are 1-based and count Unicode scalars. Nesting of filters, parentheses and function
/// calls is bounded by ``maximumDepth`` so that hostile input cannot exhaust the stack.
struct JSONPathParser {
    /// The deepest nesting of parentheses, filters and function calls accepted.
    static let maximumDepth = 64

    /// The largest magnitude of an index, slice bound or step: 2^53 − 1 (I-JSON's exact integers).
    static let maximumInteger = 9_007_199_254_740_991

    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var depth = 0

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    // MARK: - Entry points

    /// Parses a complete query starting with `$`, with nothing after it.
    mutating func parseQuery() throws(ExpressionError) -> JSONPathQuery {
        guard current == "$" else {
            if scalars.isEmpty { throw error("a JSONPath must start with '$' but the text is empty", at: 0) }
            throw error("a JSONPath must start with '$', not \(quoted(scalars[0]))")
        }
        position += 1
        let query = JSONPathQuery(origin: .root, segments: try parseSegments())
        try expectEnd()
        return query
    }

    /// Parses a standalone logical expression, as inside `[?…]`, with an optional leading `?` and
    /// optional surrounding whitespace.
    mutating func parseFilter() throws(ExpressionError) -> FilterExpression {
        skipWhitespace()
        if current == "?" {
            position += 1
            skipWhitespace()
        }
        if current == nil { throw error("expected a filter expression such as '@.price > 10'") }
        let expression = try parseOr()
        skipWhitespace()
        try expectEnd()
        return expression
    }

    private func expectEnd() throws(ExpressionError) {
        if let scalar = current {
            throw error("unexpected \(quoted(scalar)) after the end of the expression")
        }
    }

    // MARK: - Segments and selectors

    private mutating func parseSegments() throws(ExpressionError) -> [JSONPathSegment] {
        var segments: [JSONPathSegment] = []
        while true {
            let saved = position
            skipWhitespace()
            guard let scalar = current, scalar == "." || scalar == "[" else {
                position = saved
                return segments
            }
            segments.append(try parseSegment())
        }
    }

    private mutating func parseSegment() throws(ExpressionError) -> JSONPathSegment {
        if current == "[" {
            return JSONPathSegment(isDescendant: false, selectors: try parseBracketedSelection())
        }
        // current is "."
        position += 1
        if current == "." {
            position += 1
            if current == "[" {
                return JSONPathSegment(isDescendant: true, selectors: try parseBracketedSelection())
            }
            if current == "*" {
                position += 1
                return JSONPathSegment(isDescendant: true, selectors: [.wildcard])
            }
            guard let scalar = current, Self.isNameFirst(scalar) else {
                throw error("expected a member name, '*' or '[' after '..'")
            }
            return JSONPathSegment(isDescendant: true, selectors: [.name(parseMemberName())])
        }
        if current == "*" {
            position += 1
            return JSONPathSegment(isDescendant: false, selectors: [.wildcard])
        }
        guard let scalar = current, Self.isNameFirst(scalar) else {
            throw error("expected a member name or '*' after '.'")
        }
        return JSONPathSegment(isDescendant: false, selectors: [.name(parseMemberName())])
    }

    private mutating func parseMemberName() -> String {
        let start = position
        while let scalar = current, Self.isNameFirst(scalar) || Self.isDigit(scalar) {
            position += 1
        }
        return String(scalars: scalars[start..<position])
    }

    private mutating func parseBracketedSelection() throws(ExpressionError) -> [JSONPathSelector] {
        position += 1  // "["
        skipWhitespace()
        var selectors = [try parseSelector()]
        while true {
            skipWhitespace()
            if current == "," {
                position += 1
                skipWhitespace()
                selectors.append(try parseSelector())
            } else if current == "]" {
                position += 1
                return selectors
            } else {
                throw error("expected ']' after a bracketed selector")
            }
        }
    }

    private mutating func parseSelector() throws(ExpressionError) -> JSONPathSelector {
        guard let scalar = current else {
            throw error("expected a selector (a quoted name, '*', an index, a slice or a '?' filter)")
        }
        switch scalar {
        case "'", "\"":
            return .name(try parseStringLiteral())
        case "*":
            position += 1
            return .wildcard
        case "?":
            position += 1
            skipWhitespace()
            return .filter(try parseOr())
        case ":", "-", "0"..."9":
            let start = scalar == ":" ? nil : try parseInteger()
            let saved = position
            skipWhitespace()
            guard current == ":" else {
                position = saved
                return .index(start!)
            }
            position += 1
            skipWhitespace()
            var end: Int?
            if let next = current, next == "-" || Self.isDigit(next) { end = try parseInteger() }
            skipWhitespace()
            var step: Int?
            if current == ":" {
                position += 1
                skipWhitespace()
                if let next = current, next == "-" || Self.isDigit(next) { step = try parseInteger() }
            }
            return .slice(start: start, end: end, step: step)
        default:
            throw error(
                "expected a selector (a quoted name, '*', an index, a slice or a '?' filter), not \(quoted(scalar))"
            )
        }
    }

    /// An index, slice bound or step: `0` or an optional `-` and digits without a leading zero, within
    /// ±(2^53 − 1).
    private mutating func parseInteger() throws(ExpressionError) -> Int {
        let start = position
        var negative = false
        if current == "-" {
            negative = true
            position += 1
        }
        guard let first = current, Self.isDigit(first) else {
            throw error("expected a digit after '-'")
        }
        var digits = ""
        while let scalar = current, Self.isDigit(scalar) {
            digits.unicodeScalars.append(scalar)
            position += 1
        }
        let text = (negative ? "-" : "") + digits
        if digits.count > 1, first == "0" {
            throw error("the integer '\(text)' has a leading zero", at: start, hint: "write it without leading zeros")
        }
        if negative, digits == "0" {
            throw error("'-0' is not a valid index", at: start, hint: "write '0'")
        }
        guard digits.count <= 16, let magnitude = Int(digits), magnitude <= Self.maximumInteger else {
            throw error("the integer '\(text)' is outside ±9007199254740991 (2^53 − 1)", at: start)
        }
        return negative ? -magnitude : magnitude
    }

    // MARK: - Logical expressions

    private mutating func enterNesting() throws(ExpressionError) {
        depth += 1
        if depth > Self.maximumDepth {
            throw error("the expression nests deeper than \(Self.maximumDepth) levels")
        }
    }

    /// `logical-or-expr`, optionally continuing from an already parsed first operand.
    private mutating func parseOr(startingWith first: FilterExpression? = nil) throws(ExpressionError)
        -> FilterExpression
    {
        try enterNesting()
        defer { depth -= 1 }
        var terms = [try parseAnd(startingWith: first)]
        while true {
            let saved = position
            skipWhitespace()
            guard current == "|", next == "|" else {
                position = saved
                break
            }
            position += 2
            skipWhitespace()
            terms.append(try parseAnd())
        }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    private mutating func parseAnd(startingWith first: FilterExpression? = nil) throws(ExpressionError)
        -> FilterExpression
    {
        var terms: [FilterExpression]
        if let first { terms = [first] } else { terms = [try parseBasic()] }
        while true {
            let saved = position
            skipWhitespace()
            guard current == "&", next == "&" else {
                position = saved
                break
            }
            position += 2
            skipWhitespace()
            terms.append(try parseBasic())
        }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    /// `basic-expr`: a parenthesized expression, a comparison or a test, each optionally negated.
    private mutating func parseBasic() throws(ExpressionError) -> FilterExpression {
        guard let scalar = current else {
            throw error("expected a test, a comparison or '(' but the expression ends")
        }
        if scalar == "!" {
            position += 1
            skipWhitespace()
            if current == "(" { return .not(try parseParenthesized()) }
            let start = position
            let operand = try parseOperand()
            let test = try testExpression(operand, start: start)
            let saved = position
            skipWhitespace()
            if let op = peekComparisonOperator() {
                throw error(
                    "'!' cannot apply to one side of a comparison", at: saved,
                    hint: "put the comparison in parentheses: '!(… \(op.rawValue) …)'")
            }
            position = saved
            return .not(test)
        }
        if scalar == "(" { return try parseParenthesized() }
        let start = position
        let operand = try parseOperand()
        return try finishBasic(operand, start: start)
    }

    /// Continues after a first operand: a comparison if an operator follows, else a test.
    private mutating func finishBasic(_ operand: Operand, start: Int) throws(ExpressionError) -> FilterExpression {
        let saved = position
        skipWhitespace()
        if let op = peekComparisonOperator() {
            let operatorPosition = position
            position = saved
            let left = try comparand(operand, start: start)
            position = operatorPosition + op.rawValue.unicodeScalars.count
            skipWhitespace()
            let rightStart = position
            let rightOperand = try parseOperand()
            let right = try comparand(rightOperand, start: rightStart)
            if let member = MemberComparison.make(left, op, right) { return .memberComparison(member) }
            return .comparison(left, op, right)
        }
        position = saved
        return try testExpression(operand, start: start)
    }

    private mutating func parseParenthesized() throws(ExpressionError) -> FilterExpression {
        let open = position
        position += 1  // "("
        skipWhitespace()
        let inner = try parseOr()
        skipWhitespace()
        guard current == ")" else {
            throw error("expected ')'", hint: "the '(' at column \(open + 1) is not closed")
        }
        position += 1
        return inner
    }

    private func peekComparisonOperator() -> ComparisonOperator? {
        switch (current, next) {
        case ("=", "="): .equal
        case ("!", "="): .notEqual
        case ("<", "="): .lessOrEqual
        case (">", "="): .greaterOrEqual
        case ("<", _): .less
        case (">", _): .greater
        default: nil
        }
    }

    // MARK: - Operands

    /// A literal, a query or a function call, before its role (comparison side, test, argument) is known.
    private enum Operand {
        case literal(WidgetValue)
        case query(JSONPathQuery)
        case function(FunctionCall)
    }

    private mutating func parseOperand() throws(ExpressionError) -> Operand {
        guard let scalar = current else {
            throw error("expected a query, a literal or a function call but the expression ends")
        }
        switch scalar {
        case "@", "$":
            position += 1
            return .query(JSONPathQuery(origin: scalar == "@" ? .current : .root, segments: try parseSegments()))
        case "'", "\"":
            return .literal(.string(try parseStringLiteral()))
        case "-", "0"..."9":
            return .literal(.number(try parseNumber()))
        case "a"..."z":
            let start = position
            var name = ""
            while let scalar = current, Self.isFunctionNameCharacter(scalar) {
                name.unicodeScalars.append(scalar)
                position += 1
            }
            if current == "(" { return .function(try parseFunctionCall(name, start: start)) }
            switch name {
            case "true": return .literal(true)
            case "false": return .literal(false)
            case "null": return .literal(.null)
            default:
                if JSONPathFunction(rawValue: name) != nil {
                    throw error("expected '(' right after the function name '\(name)'")
                }
                let candidates = JSONPathFunction.allCases.map(\.rawValue) + ["true", "false", "null"]
                throw error(
                    "unknown name '\(name)'", at: start,
                    hint: Suggestion.hint(for: name, among: candidates)
                        ?? "write a function call, a query, a string, a number, 'true', 'false' or 'null'")
            }
        default:
            throw error("expected a query ('@' or '$'), a literal or a function call, not \(quoted(scalar))")
        }
    }

    private mutating func parseNumber() throws(ExpressionError) -> WidgetNumber {
        let start = position
        var text = ""
        func take(_ scalars: inout String, _ scalar: Unicode.Scalar) { scalars.unicodeScalars.append(scalar) }
        if current == "-" {
            take(&text, "-")
            position += 1
        }
        guard let first = current, Self.isDigit(first) else { throw error("expected a digit in the number") }
        while let scalar = current, Self.isDigit(scalar) {
            take(&text, scalar)
            position += 1
        }
        if current == "." {
            take(&text, ".")
            position += 1
            guard let digit = current, Self.isDigit(digit) else {
                throw error("expected a digit after the decimal point")
            }
            while let scalar = current, Self.isDigit(scalar) {
                take(&text, scalar)
                position += 1
            }
        }
        if current == "e" || current == "E" {
            take(&text, "e")
            position += 1
            if let sign = current, sign == "+" || sign == "-" {
                take(&text, sign)
                position += 1
            }
            guard let digit = current, Self.isDigit(digit) else {
                throw error("expected a digit in the exponent")
            }
            while let scalar = current, Self.isDigit(scalar) {
                take(&text, scalar)
                position += 1
            }
        }
        guard let number = WidgetNumber(text) else {
            throw error("'\(text)' is not a valid number (no leading zeros)", at: start)
        }
        return number
    }

    private mutating func parseFunctionCall(_ name: String, start: Int) throws(ExpressionError) -> FunctionCall {
        guard let function = JSONPathFunction(rawValue: name) else {
            throw error(
                "unknown function '\(name)'", at: start,
                hint: Suggestion.hint(for: name, among: JSONPathFunction.allCases.map(\.rawValue)))
        }
        try enterNesting()
        defer { depth -= 1 }
        position += 1  // "("
        skipWhitespace()
        var arguments: [FunctionArgument] = []
        let parameters = function.parameters
        if current != ")" {
            while true {
                let argumentStart = position
                let index = arguments.count
                guard index < parameters.count else {
                    throw error(
                        "function '\(name)' takes \(Self.count(parameters.count, "argument"))", at: argumentStart,
                        hint: "remove this argument")
                }
                arguments.append(try parseArgument(for: parameters[index], of: name, number: index + 1))
                skipWhitespace()
                if current == "," {
                    position += 1
                    skipWhitespace()
                    continue
                }
                guard current == ")" else {
                    throw error("expected ',' or ')' after argument \(index + 1) of '\(name)'")
                }
                break
            }
        }
        guard arguments.count == parameters.count else {
            throw error(
                "function '\(name)' takes \(Self.count(parameters.count, "argument")), not \(arguments.count)")
        }
        position += 1  // ")"
        var call = FunctionCall(function: function, arguments: arguments, compiledPattern: nil)
        if function == .match || function == .search, case .value(.literal(let pattern)) = arguments[1] {
            if case .string(let text) = pattern {
                call.compiledPattern = .some(IRegexp(text, anchored: function == .match))
            } else {
                call.compiledPattern = .some(nil)
            }
        }
        return call
    }

    /// One argument, parsed without backtracking: an operand alone, or a logical expression that may begin
    /// with one.
    private mutating func parseArgument(
        for parameter: JSONPathFunction.ParameterType,
        of name: String,
        number: Int
    ) throws(ExpressionError) -> FunctionArgument {
        let start = position
        let ordinal = "argument \(number) of '\(name)'"
        if current == "!" || current == "(" {
            _ = try parseOr()
            throw error("\(ordinal) must be \(Self.describe(parameter)), not a logical expression", at: start)
        }
        let operand = try parseOperand()
        let saved = position
        skipWhitespace()
        let continues =
            peekComparisonOperator() != nil || (current == "&" && next == "&") || (current == "|" && next == "|")
        position = saved
        if continues {
            _ = try parseOr(startingWith: try finishBasic(operand, start: start))
            throw error("\(ordinal) must be \(Self.describe(parameter)), not a logical expression", at: start)
        }
        switch (parameter, operand) {
        case (.value, .literal(let value)):
            return .value(.literal(value))
        case (.value, .query(let query)):
            guard query.isSingular else {
                throw error(
                    "\(ordinal) must be a single value, but '\(text(from: start))' can select several nodes",
                    at: start)
            }
            return .value(.query(query))
        case (.value, .function(let call)):
            guard call.function.resultType == .value else {
                throw error(
                    "\(ordinal) must be a value, but '\(call.function.rawValue)' returns a logical result",
                    at: start)
            }
            return .value(.function(call))
        case (.nodes, .query(let query)):
            return .nodes(query)
        case (.nodes, _):
            throw error("\(ordinal) must be a query such as '@.items[*]'", at: start)
        case (.logical, _):
            throw error("\(ordinal) must be a logical expression", at: start)
        }
    }

    private static func describe(_ parameter: JSONPathFunction.ParameterType) -> String {
        switch parameter {
        case .value: "a value"
        case .nodes: "a query"
        case .logical: "a logical expression"
        }
    }

    private static func count(_ number: Int, _ noun: String) -> String {
        number == 1 ? "1 \(noun)" : "\(number) \(noun)s"
    }

    /// Checks an operand used as one side of a comparison (§2.4.3: literal, singular query, ValueType).
    private func comparand(_ operand: Operand, start: Int) throws(ExpressionError) -> Comparand {
        switch operand {
        case .literal(let value):
            return .literal(value)
        case .query(let query):
            guard query.isSingular else {
                throw error(
                    "a comparison needs a single value on each side, but '\(text(from: start))' can select several nodes",
                    at: start)
            }
            return .query(query)
        case .function(let call):
            guard call.function.resultType == .value else {
                throw error(
                    "'\(call.function.rawValue)' returns a logical result and cannot be compared", at: start,
                    hint: "use it on its own, e.g. '?\(call.function.rawValue)(…)'")
            }
            return .function(call)
        }
    }

    /// Checks an operand used on its own as a test (§2.4.3: a query, or a LogicalType/NodesType function).
    private func testExpression(_ operand: Operand, start: Int) throws(ExpressionError) -> FilterExpression {
        switch operand {
        case .literal:
            throw error(
                "the literal \(text(from: start)) cannot stand alone as a test", at: start,
                hint: "compare it, e.g. '@.name == \(text(from: start))'")
        case .query(let query):
            return .exists(query)
        case .function(let call):
            switch call.function.resultType {
            case .logical:
                return .logicalFunction(call)
            case .nodes:
                return .logicalFunction(call)
            case .value:
                throw error(
                    "'\(call.function.rawValue)' returns a value, not a logical result", at: start,
                    hint: "compare it, e.g. '\(call.function.rawValue)(…) > 0'")
            }
        }
    }

    // MARK: - String literals

    private mutating func parseStringLiteral() throws(ExpressionError) -> String {
        let open = position
        let quote = scalars[position]
        position += 1
        var result = String.UnicodeScalarView()
        while true {
            guard let scalar = current else {
                throw error("the string has no closing \(quote)", at: open)
            }
            if scalar == quote {
                position += 1
                return String(result)
            }
            if scalar == "\\" {
                result.append(try parseEscape(quote: quote))
                continue
            }
            if scalar.value < 0x20 {
                throw error("a control character (U+\(Self.hex4(scalar.value))) must be escaped in a string literal")
            }
            result.append(scalar)
            position += 1
        }
    }

    private mutating func parseEscape(quote: Unicode.Scalar) throws(ExpressionError) -> Unicode.Scalar {
        let start = position
        position += 1  // "\"
        guard let scalar = current else { throw error("the string ends inside an escape sequence") }
        position += 1
        switch scalar {
        case "b": return "\u{08}"
        case "f": return "\u{0C}"
        case "n": return "\n"
        case "r": return "\r"
        case "t": return "\t"
        case "/": return "/"
        case "\\": return "\\"
        case "u":
            let high = try parseHex4()
            if (0xDC00...0xDFFF).contains(high) {
                throw error("'\\u\(Self.hex4(high))' is a lone low surrogate", at: start)
            }
            if (0xD800...0xDBFF).contains(high) {
                guard current == "\\", next == "u" else {
                    throw error("'\\u\(Self.hex4(high))' must be followed by a low surrogate '\\uDC00'…'\\uDFFF'", at: start)
                }
                position += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error("'\\u\(Self.hex4(high))' must be followed by a low surrogate '\\uDC00'…'\\uDFFF'", at: start)
                }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
            }
            return Unicode.Scalar(high)!
        default:
            if scalar == quote { return scalar }
            throw error(
                "'\\\(String(scalar))' is not a valid escape", at: start,
                hint: "use \\b \\f \\n \\r \\t \\/ \\\\ \\\(String(quote)) or \\uXXXX")
        }
    }

    private mutating func parseHex4() throws(ExpressionError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let scalar = current, let digit = Self.hexValue(scalar) else {
                throw error("expected four hexadecimal digits after '\\u'")
            }
            value = value * 16 + digit
            position += 1
        }
        return value
    }

    // MARK: - Characters

    private var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }
    private var next: Unicode.Scalar? { position + 1 < scalars.count ? scalars[position + 1] : nil }

    private mutating func skipWhitespace() {
        while let scalar = current, scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" {
            position += 1
        }
    }

    private func text(from start: Int) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[start..<min(max(start, position), scalars.count)])
        return String(view)
    }

    private func error(_ reason: String, at offset: Int? = nil, hint: String? = nil) -> ExpressionError {
        ExpressionError(reason, column: (offset ?? position) + 1, hint: hint)
    }

    private func quoted(_ scalar: Unicode.Scalar) -> String {
        if scalar.value < 0x20 || scalar.value == 0x7F { return "U+\(Self.hex4(scalar.value))" }
        return "'\(String(scalar))'"
    }

    static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    static func isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar.value >= 0x30 && scalar.value <= 0x39 }

    static func isNameFirst(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x41...0x5A, 0x61...0x7A, 0x5F, 0x80...0xD7FF, 0xE000...0x10FFFF: true
        default: false
        }
    }

    private static func isFunctionNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value >= 0x61 && scalar.value <= 0x7A) || scalar == "_" || isDigit(scalar)
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar.value {
        case 0x30...0x39: scalar.value - 0x30
        case 0x41...0x46: scalar.value - 0x41 + 10
        case 0x61...0x66: scalar.value - 0x61 + 10
        default: nil
        }
    }
}
