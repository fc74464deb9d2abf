import WidgetJSON

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

    /// A piece of the source: literal text, an output tag or a Liquid tag, after whitespace control.
    enum Token {
        case text(String)
        /// `{{ … }}`: the range of its expression.
        case output(Range<Int>, column: Int)
        /// `{% name … %}`: the tag's name and the range of what follows the name.
        case tag(String, Range<Int>, column: Int)
    }

    private var tokens: [Token] = []
    private var cursor = 0
    /// Blocks open around the token being parsed, for "never closed" errors and nesting limits.
    private var openBlocks: [(name: String, column: Int)] = []

    mutating func parseTemplate() throws(ExpressionError) -> [TemplateNode] {
        try tokenize()
        let (nodes, closing) = try parseBlock(until: [])
        if let closing { throw unexpectedTag(closing) }
        return nodes
    }

    /// Splits the source into tokens, applying `{%-`, `-%}`, `{{-` and `-}}`, and reading `raw`, `doc` and
    /// `liquid` tags, whose content is not ordinary template text.
    private mutating func tokenize() throws(ExpressionError) {
        // The literal text so far, `scalars[textStart..<textEnd]`: text runs up to the next tag.
        var textStart = 0
        var textEnd = 0
        var index = 0
        var trimNextText = false
        func flush(into tokens: inout [Token]) {
            if textEnd > textStart { tokens.append(.text(String(scalars: scalars[textStart..<textEnd]))) }
            textStart = textEnd
        }
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
            guard scalar == "{", next == "{" || next == "%" else {
                if textStart == textEnd { textStart = index }
                textEnd = index + 1
                index += 1
                continue
            }
            let tagStart = index
            var innerStart = index + 2
            if innerStart < scalars.count, scalars[innerStart] == "-" {
                innerStart += 1
                while textEnd > textStart, Self.isWhitespace(scalars[textEnd - 1]) { textEnd -= 1 }
            }
            if next == "{" {
                guard let close = closingBraces(from: innerStart) else {
                    throw ExpressionError(
                        "unterminated '{{'", column: tagStart + 1, hint: "close the output tag with '}}'")
                }
                var innerEnd = close
                if innerEnd > innerStart, scalars[innerEnd - 1] == "-" {
                    innerEnd -= 1
                    trimNextText = true
                }
                flush(into: &tokens)
                tokens.append(.output(innerStart..<innerEnd, column: tagStart + 1))
                index = close + 2
                continue
            }
            guard let close = find("%}", from: innerStart) else {
                throw ExpressionError("unterminated '{%'", column: tagStart + 1, hint: "close the tag with '%}'")
            }
            var innerEnd = close
            if innerEnd > innerStart, scalars[innerEnd - 1] == "-" {
                innerEnd -= 1
                trimNextText = true
            }
            flush(into: &tokens)
            index = close + 2
            var nameStart = innerStart
            while nameStart < innerEnd, Self.isWhitespace(scalars[nameStart]) { nameStart += 1 }
            if nameStart < innerEnd, scalars[nameStart] == "#" {
                try checkInlineComment(nameStart..<innerEnd)
                continue
            }
            position = nameStart
            end = innerEnd
            guard let name = tagName() else {
                throw ExpressionError(
                    "expected a tag name after '{%'", column: nameStart + 1, hint: "write e.g. {% if … %} or {% for … %}")
            }
            switch name {
            case "raw", "doc":
                skipWhitespace()
                if name == "doc", position < end {
                    throw ExpressionError("'doc' takes no arguments", column: position + 1, hint: "write {% doc %}")
                }
                guard let (bodyEnd, after, trims) = closingRawTag("end" + name, from: index) else {
                    throw ExpressionError(
                        "'{% \(name) %}' is never closed", column: tagStart + 1, hint: "add {% end\(name) %}")
                }
                var body = String.UnicodeScalarView(scalars[index..<bodyEnd])
                if trimNextText { while let first = body.first, Self.isWhitespace(first) { body.removeFirst() } }
                if trims.before { while let last = body.last, Self.isWhitespace(last) { body.removeLast() } }
                if name == "raw", !body.isEmpty { tokens.append(.text(String(body))) }
                trimNextText = trims.after
                index = after
            case "liquid":
                tokens.append(.tag(Self.liquidStart, position..<position, column: tagStart + 1))
                try tokenizeLiquid(position..<innerEnd)
                tokens.append(.tag(Self.liquidEnd, innerEnd..<innerEnd, column: tagStart + 1))
            default:
                tokens.append(.tag(name, position..<innerEnd, column: tagStart + 1))
            }
        }
        flush(into: &tokens)
    }

    /// The markers around the tags of a `liquid` tag; no tag can have these names.
    private static let liquidStart = " liquid"
    private static let liquidEnd = " endliquid"

    /// Adds the tags of a `{% liquid … %}` tag: one per line, `echo` for output, `#` lines ignored.
    private mutating func tokenizeLiquid(_ range: Range<Int>) throws(ExpressionError) {
        var lineStart = range.lowerBound
        while lineStart < range.upperBound {
            var lineEnd = lineStart
            while lineEnd < range.upperBound, scalars[lineEnd] != "\n" { lineEnd += 1 }
            var start = lineStart
            var stop = lineEnd
            while start < stop, Self.isWhitespace(scalars[start]) { start += 1 }
            while stop > start, Self.isWhitespace(scalars[stop - 1]) { stop -= 1 }
            lineStart = lineEnd + 1
            guard start < stop, scalars[start] != "#" else { continue }
            position = start
            end = stop
            guard let name = tagName() else {
                throw ExpressionError(
                    "expected a tag name", column: start + 1, hint: "each line of {% liquid %} is a tag: if, for, echo, assign, …")
            }
            if name == "liquid" {
                tokens.append(.tag(Self.liquidStart, position..<position, column: start + 1))
                try tokenizeLiquid(position..<stop)
                tokens.append(.tag(Self.liquidEnd, stop..<stop, column: start + 1))
            } else {
                tokens.append(.tag(name, position..<stop, column: start + 1))
            }
        }
    }

    /// `{% # comment %}`: every line must start with `#`.
    private func checkInlineComment(_ range: Range<Int>) throws(ExpressionError) {
        var index = range.lowerBound
        while index < range.upperBound {
            if scalars[index] == "\n" {
                var next = index + 1
                while next < range.upperBound, Self.isWhitespace(scalars[next]) { next += 1 }
                if next < range.upperBound, scalars[next] != "#" {
                    throw ExpressionError(
                        "each line of an inline comment must start with '#'", column: next + 1,
                        hint: "start the line with '#', or use {% comment %}…{% endcomment %}")
                }
                index = next
                continue
            }
            index += 1
        }
    }

    /// Where `{% endraw %}` (or `enddoc`) starts, where it ends, and its whitespace control.
    private func closingRawTag(_ name: String, from start: Int) -> (Int, Int, (before: Bool, after: Bool))? {
        var index = start
        let nameScalars = Array(name.unicodeScalars)
        while let open = find("{%", from: index) {
            var cursor = open + 2
            let trimBefore = cursor < scalars.count && scalars[cursor] == "-"
            if trimBefore { cursor += 1 }
            while cursor < scalars.count, Self.isWhitespace(scalars[cursor]) { cursor += 1 }
            if cursor + nameScalars.count <= scalars.count, Array(scalars[cursor..<cursor + nameScalars.count]) == nameScalars {
                cursor += nameScalars.count
                while cursor < scalars.count, Self.isWhitespace(scalars[cursor]) { cursor += 1 }
                let trimAfter = cursor < scalars.count && scalars[cursor] == "-"
                if trimAfter { cursor += 1 }
                if cursor + 1 < scalars.count, scalars[cursor] == "%", scalars[cursor + 1] == "}" {
                    return (open, cursor + 2, (trimBefore, trimAfter))
                }
            }
            index = open + 2
        }
        return nil
    }

    /// The index of the next `marker` (two scalars) at or after `start`.
    private func find(_ marker: String, from start: Int) -> Int? {
        let pair = Array(marker.unicodeScalars)
        var index = start
        while index + 1 < scalars.count {
            if scalars[index] == pair[0], scalars[index + 1] == pair[1] { return index }
            index += 1
        }
        return nil
    }

    /// A tag's name: letters, digits and `_`.
    private mutating func tagName() -> String? {
        let start = position
        while position < end, Self.isIdentifierStart(scalars[position]) || ("0"..."9").contains(scalars[position]) {
            position += 1
        }
        return position == start ? nil : String(scalars: scalars[start..<position])
    }

    // MARK: - Blocks

    /// A tag that ended a block: its name, the range after its name, and its column.
    struct ClosingTag {
        var name: String
        var range: Range<Int>
        var column: Int
    }

    /// The most blocks that may be open inside one another.
    private static let maximumBlockDepth = 64

    /// Reads nodes until one of the tags in `closers` (returned) or the end of the tokens (`nil`).
    private mutating func parseBlock(until closers: Set<String>) throws(ExpressionError) -> ([TemplateNode], ClosingTag?) {
        var nodes: [TemplateNode] = []
        while cursor < tokens.count {
            let token = tokens[cursor]
            cursor += 1
            switch token {
            case .text(let text):
                nodes.append(.text(text))
            case .output(let range, _):
                position = range.lowerBound
                end = range.upperBound
                nodes.append(.output(try parseOutput()))
            case .tag(let name, let range, let column):
                if closers.contains(name) { return (nodes, ClosingTag(name: name, range: range, column: column)) }
                position = range.lowerBound
                end = range.upperBound
                if name == Self.liquidStart {
                    // A `liquid` tag's lines are a block of their own: they cannot close what is open outside.
                    let (inner, _) = try parseBody(of: "liquid", column: column, until: [Self.liquidEnd])
                    nodes += inner
                } else if let node = try parseTag(name, column: column) {
                    nodes.append(node)
                }
            }
        }
        return (nodes, nil)
    }

    /// Reads the body of a block tag up to one of `closers`, failing when the template ends first.
    private mutating func parseBody(of tag: String, column: Int, until closers: Set<String>) throws(ExpressionError)
        -> ([TemplateNode], ClosingTag)
    {
        guard openBlocks.count < Self.maximumBlockDepth else {
            throw ExpressionError("blocks nest deeper than \(Self.maximumBlockDepth) levels", column: column)
        }
        openBlocks.append((tag, column))
        defer { openBlocks.removeLast() }
        let (nodes, closing) = try parseBlock(until: closers)
        guard let closing else {
            throw ExpressionError("'{% \(tag) %}' is never closed", column: column, hint: "add {% end\(tag) %}")
        }
        return (nodes, closing)
    }

    private func unexpectedTag(_ tag: ClosingTag) -> ExpressionError {
        if let open = openBlocks.last, open.name == "liquid" {
            return ExpressionError(
                "unexpected '\(tag.name)' in '{% liquid %}'", column: tag.column,
                hint: "a line of {% liquid %} cannot end a block opened outside it; close the block outside, or open it inside")
        }
        if let open = openBlocks.last {
            return ExpressionError(
                "unexpected '{% \(tag.name) %}' inside '{% \(open.name) %}'", column: tag.column,
                hint: "close '{% \(open.name) %}' (column \(open.column)) with {% end\(open.name) %} first")
        }
        let hint: String
        if tag.name.hasPrefix("end") {
            hint = "there is no open '{% \(tag.name.dropFirst(3)) %}' for it to close; remove it"
        } else {
            hint = "'\(tag.name)' belongs inside a block; remove it or open the block it belongs to"
        }
        return ExpressionError("unexpected '{% \(tag.name) %}'", column: tag.column, hint: hint)
    }

    /// The tags a template may use.
    static let tagNames = [
        "assign", "break", "capture", "case", "comment", "continue", "cycle", "decrement", "doc", "echo", "for",
        "if", "ifchanged", "include", "increment", "liquid", "raw", "render", "tablerow", "unless",
    ]

    /// Parses the tag `name` whose arguments are at `position..<end`; `nil` for tags that render nothing.
    private mutating func parseTag(_ name: String, column: Int) throws(ExpressionError) -> TemplateNode? {
        switch name {
        case "if", "unless":
            return try parseConditional(name, column: column)
        case "case":
            return try parseCase(column: column)
        case "for":
            let loop = try parseLoop(column: column, tag: "for")
            return .loop(loop.loop)
        case "tablerow":
            let loop = try parseLoop(column: column, tag: "tablerow")
            return .tablerow(loop.loop, columns: loop.columns)
        case "assign":
            let target = try assignedName(tag: "assign", column: column)
            skipWhitespace()
            guard consume("=") else {
                throw unexpected("after the name", hint: "write {% assign \(target) = value %}")
            }
            return .assign(name: target, value: try parseOutput(required: true))
        case "capture":
            let target = try assignedName(tag: "capture", column: column)
            try expectEnd(of: "capture")
            let (body, _) = try parseBody(of: "capture", column: column, until: ["endcapture"])
            return .capture(name: target, body: Self.suppressingBlankText([body]).first ?? [])
        case "echo":
            return .output(try parseOutput())
        case "increment", "decrement":
            let target = try assignedName(tag: name, column: column)
            try expectEnd(of: name)
            return .counter(name: target, step: name == "increment" ? 1 : -1)
        case "cycle":
            return try parseCycle()
        case "break", "continue":
            try expectEnd(of: name)
            return name == "break" ? .breakLoop : .continueLoop
        case "comment":
            try skipComment(column: column)
            return nil
        case "ifchanged":
            try expectEnd(of: "ifchanged")
            let (body, _) = try parseBody(of: "ifchanged", column: column, until: ["endifchanged"])
            return .ifChanged(body)
        case "render", "include":
            return .partial(try parsePartial(isolated: name == "render", column: column))
        default:
            let closers = ["else", "elsif", "when"] + Self.tagNames.map { "end" + $0 }
            if closers.contains(name) {
                throw unexpectedTag(ClosingTag(name: name, range: position..<end, column: column))
            }
            throw ExpressionError(
                "unknown tag '\(name)'", column: column, hint: Suggestion.hint(for: name, among: Self.tagNames + closers))
        }
    }

    /// Skips a comment's body, counting nested comments.
    private mutating func skipComment(column: Int) throws(ExpressionError) {
        var depth = 1
        while cursor < tokens.count {
            defer { cursor += 1 }
            guard case .tag(let name, _, _) = tokens[cursor] else { continue }
            if name == "comment" { depth += 1 }
            if name == "endcomment" {
                depth -= 1
                if depth == 0 { return }
            }
        }
        throw ExpressionError("'{% comment %}' is never closed", column: column, hint: "add {% endcomment %}")
    }

    /// The name an `assign`, `capture`, `increment` or `decrement` sets: letters, digits, `_` and `-`, not
    /// starting with `-`; a quoted name for `capture`.
    private mutating func assignedName(tag: String, column: Int) throws(ExpressionError) -> String {
        skipWhitespace()
        if tag == "capture", position < end, scalars[position] == "'" || scalars[position] == "\"" {
            return try parseString()
        }
        var name = String.UnicodeScalarView()
        while position < end,
            Self.isIdentifierStart(scalars[position]) || ("0"..."9").contains(scalars[position])
                || (scalars[position] == "-" && !name.isEmpty)
        {
            name.append(scalars[position])
            position += 1
        }
        guard !name.isEmpty else {
            throw ExpressionError(
                "expected a variable name after '\(tag)'", column: position + 1, hint: "write e.g. {% \(tag) total %}")
        }
        return String(name)
    }

    private mutating func expectEnd(of tag: String) throws(ExpressionError) {
        skipWhitespace()
        guard position >= end else { throw unexpected("in '{% \(tag) %}'") }
    }

    private mutating func parseConditional(_ tag: String, column: Int) throws(ExpressionError) -> TemplateNode {
        var branches: [TemplateNode.Branch] = []
        var otherwise: [TemplateNode]?
        var conditionColumn = position + 1
        var condition = try parseCondition()
        var negated = tag == "unless"
        var bodies: [[TemplateNode]] = []
        while true {
            let (body, closing) = try parseBody(of: tag, column: column, until: ["elsif", "else", "end" + tag])
            bodies.append(body)
            branches.append(TemplateNode.Branch(condition: condition, negated: negated, body: body, column: conditionColumn))
            switch closing.name {
            case "elsif":
                position = closing.range.lowerBound
                end = closing.range.upperBound
                conditionColumn = position + 1
                condition = try parseCondition()
                negated = false
                continue
            case "else":
                // Liquid ignores anything after `else`, and any `else` or `elsif` after the first `else`.
                var (body, next) = try parseBody(of: tag, column: column, until: ["elsif", "else", "end" + tag])
                otherwise = body
                while next.name != "end" + tag {
                    (body, next) = try parseBody(of: tag, column: column, until: ["elsif", "else", "end" + tag])
                }
            default:
                break
            }
            break
        }
        if let otherwise { bodies.append(otherwise) }
        let trimmed = Self.suppressingBlankText(bodies)
        for index in branches.indices { branches[index].body = trimmed[index] }
        if otherwise != nil { otherwise = trimmed.last }
        return .conditional(branches: branches, otherwise: otherwise)
    }

    private mutating func parseCase(column: Int) throws(ExpressionError) -> TemplateNode {
        let subject = try parseExpression()
        try expectEnd(of: "case")
        let closers: Set<String> = ["when", "else", "endcase"]
        var (_, next) = try parseBody(of: "case", column: column, until: closers)
        var whens: [TemplateNode.When] = []
        while next.name != "endcase" {
            var values: [TemplateExpression]?
            if next.name == "when" {
                position = next.range.lowerBound
                end = next.range.upperBound
                values = try parseWhenValues(column: next.column)
            }
            let (body, after) = try parseBody(of: "case", column: column, until: closers)
            whens.append(TemplateNode.When(values: values, body: body))
            next = after
        }
        let trimmed = Self.suppressingBlankText(whens.map(\.body))
        for index in whens.indices { whens[index].body = trimmed[index] }
        return .choice(subject: subject, whens: whens)
    }

    /// `a, b or c`: the values a `when` matches. Anything after the last value is ignored, as Liquid does.
    private mutating func parseWhenValues(column: Int) throws(ExpressionError) -> [TemplateExpression] {
        skipWhitespace()
        guard position < end else {
            throw ExpressionError("'when' needs a value to match", column: column, hint: "write {% when 'a', 'b' %}")
        }
        var values: [TemplateExpression] = []
        repeat {
            values.append(try parseExpression())
            skipWhitespace()
        } while consume(",") || consumeWord("or")
        return values
    }

    private mutating func parseLoop(column: Int, tag: String) throws(ExpressionError) -> (
        loop: TemplateNode.Loop, columns: TemplateExpression?
    ) {
        skipWhitespace()
        guard let variable = identifier() else {
            throw ExpressionError(
                "expected a variable name after '\(tag)'", column: position + 1,
                hint: "write {% \(tag) item in items %}")
        }
        skipWhitespace()
        guard consumeWord("in") else {
            throw unexpected("after '\(tag) \(variable)'", hint: "write {% \(tag) \(variable) in items %}")
        }
        skipWhitespace()
        let collectionStart = position
        let collection = try parseExpression()
        var collectionEnd = position
        while collectionEnd > collectionStart, Self.isWhitespace(scalars[collectionEnd - 1]) { collectionEnd -= 1 }
        let name = variable + "-" + String(String.UnicodeScalarView(scalars[collectionStart..<collectionEnd]))
        var limit: TemplateExpression?
        var offset: TemplateExpression?
        var columns: TemplateExpression?
        var offsetContinues = false
        var reversed = false
        while true {
            skipWhitespace()
            _ = consume(",")
            skipWhitespace()
            guard position < end else { break }
            if consumeWord("reversed") {
                reversed = true
                continue
            }
            let keyColumn = position + 1
            guard let key = keywordName() else { throw unexpected("in '{% \(tag) %}'", hint: Self.loopHint(tag)) }
            skipWhitespace()
            switch key {
            case "limit": limit = try parseExpression()
            case "offset":
                if consumeWord("continue") { offsetContinues = true } else { offset = try parseExpression() }
            case "cols" where tag == "tablerow": columns = try parseExpression()
            default:
                throw ExpressionError("'\(tag)' has no argument '\(key)'", column: keyColumn, hint: Self.loopHint(tag))
            }
        }
        let (body, closing) = try parseBody(of: tag, column: column, until: tag == "for" ? ["else", "endfor"] : ["end" + tag])
        var otherwise: [TemplateNode]?
        if closing.name == "else" { otherwise = try parseBody(of: tag, column: column, until: ["endfor"]).0 }
        var bodies = [body]
        if let otherwise { bodies.append(otherwise) }
        let trimmed = tag == "for" ? Self.suppressingBlankText(bodies) : bodies
        let loop = TemplateNode.Loop(
            variable: variable, collection: collection, limit: limit, offset: offset, offsetContinues: offsetContinues,
            reversed: reversed, body: trimmed[0], otherwise: otherwise == nil ? nil : trimmed[1], name: name,
            column: collectionStart + 1)
        return (loop, columns)
    }

    private static func loopHint(_ tag: String) -> String {
        tag == "for"
            ? "a loop takes limit: n, offset: n (or offset: continue) and reversed"
            : "a tablerow takes cols: n, limit: n and offset: n"
    }

    private mutating func parseCycle() throws(ExpressionError) -> TemplateNode {
        skipWhitespace()
        let first = try parseExpression()
        skipWhitespace()
        var group: TemplateExpression?
        var values: [TemplateExpression] = []
        var sources: [String] = []
        if consume(":") {
            group = first
        } else {
            values.append(first)
            sources.append(Self.describe(first))
            skipWhitespace()
            guard consume(",") else {
                try expectEnd(of: "cycle")
                return .cycle(group: nil, values: values, key: sources.joined(separator: ","))
            }
        }
        repeat {
            skipWhitespace()
            let value = try parseExpression()
            values.append(value)
            sources.append(Self.describe(value))
            skipWhitespace()
        } while consume(",")
        try expectEnd(of: "cycle")
        return .cycle(group: group, values: values, key: sources.joined(separator: ","))
    }

    /// A stable text for an expression, for the key of an unnamed `cycle`.
    private static func describe(_ expression: TemplateExpression) -> String {
        "\(expression)"
    }

    private mutating func parsePartial(isolated: Bool, column: Int) throws(ExpressionError) -> TemplateNode.Partial {
        let tag = isolated ? "render" : "include"
        skipWhitespace()
        let name = try parseExpression()
        if isolated, case .literal(.string) = name {
        } else if isolated {
            throw ExpressionError(
                "'render' takes the partial's name as a quoted string", column: column,
                hint: "write {% render 'card' %}")
        }
        var partial = TemplateNode.Partial(name: name, isolated: isolated, binding: nil, arguments: [], column: column)
        skipWhitespace()
        _ = consume(",")
        skipWhitespace()
        let kind: TemplateNode.Partial.BindingKind? =
            consumeWord("with") ? .with : consumeWord("for") ? .each : nil
        if let kind {
            let value = try parseExpression()
            skipWhitespace()
            var alias: String?
            if consumeWord("as") {
                skipWhitespace()
                guard let name = identifier() else {
                    throw unexpected("after 'as'", hint: "write {% \(tag) 'card' with item as card %}")
                }
                alias = name
            }
            partial.binding = (kind, value, alias)
        }
        while true {
            skipWhitespace()
            _ = consume(",")
            skipWhitespace()
            guard position < end else { break }
            guard let key = keywordName() else {
                throw unexpected("in '{% \(tag) %}'", hint: "pass values as name: value, e.g. {% \(tag) 'card', title: item.title %}")
            }
            partial.arguments.append((key, try parseExpression()))
        }
        return partial
    }

    // MARK: - Conditions

    private mutating func parseCondition() throws(ExpressionError) -> TemplateCondition {
        skipWhitespace()
        guard position < end else {
            throw ExpressionError("expected a condition", column: position + 1, hint: "write e.g. {% if item.price > 10 %}")
        }
        let left = try parseComparison()
        skipWhitespace()
        if consumeWord("and") { return .and(left, try parseCondition()) }
        if consumeWord("or") { return .or(left, try parseCondition()) }
        guard position >= end else {
            throw unexpected(
                "in the condition",
                hint: "compare with ==, !=, <, >, <=, >= or contains, and join tests with and / or")
        }
        return left
    }

    private mutating func parseComparison() throws(ExpressionError) -> TemplateCondition {
        let left = try parseExpression()
        skipWhitespace()
        for op in [TemplateCondition.Operator.equal, .notEqual, .notEqualAlternative, .lessOrEqual, .greaterOrEqual, .less, .greater]
        where consumeSymbol(op.rawValue) {
            return .comparison(left, op, try parseExpression())
        }
        if consumeWord("contains") { return .comparison(left, .contains, try parseExpression()) }
        return .value(left)
    }

    /// Consumes `symbol` when the text at the current position starts with it.
    private mutating func consumeSymbol(_ symbol: String) -> Bool {
        var index = position
        for scalar in symbol.unicodeScalars {
            guard index < end, scalars[index] == scalar else { return false }
            index += 1
        }
        position = index
        return true
    }

    /// Consumes `word` when it stands alone at the current position (not the start of a longer name).
    private mutating func consumeWord(_ word: String) -> Bool {
        let start = position
        guard consumeSymbol(word) else { return false }
        if position < end, Self.isIdentifierScalar(scalars[position]) || scalars[position] == "?" {
            position = start
            return false
        }
        return true
    }

    // MARK: - Blank blocks

    /// Liquid renders a block tag whose blocks hold only white space, `assign`, `capture`, comments and
    /// other such blocks as nothing: the white space is dropped.
    static func suppressingBlankText(_ bodies: [[TemplateNode]]) -> [[TemplateNode]] {
        guard bodies.allSatisfy({ $0.allSatisfy(isBlank) }) else { return bodies }
        return bodies.map { body in
            body.filter { node in
                if case .text = node { return false }
                return true
            }
        }
    }

    private static func isBlank(_ node: TemplateNode) -> Bool {
        switch node {
        case .text(let text): return text.unicodeScalars.allSatisfy(isWhitespace)
        case .assign, .capture: return true
        case .conditional(let branches, let otherwise):
            return branches.allSatisfy { $0.body.allSatisfy(isBlank) } && (otherwise ?? []).allSatisfy(isBlank)
        case .choice(_, let whens): return whens.allSatisfy { $0.body.allSatisfy(isBlank) }
        case .loop(let loop): return loop.body.allSatisfy(isBlank) && (loop.otherwise ?? []).allSatisfy(isBlank)
        case .ifChanged(let body): return body.allSatisfy(isBlank)
        case .output, .tablerow, .counter, .cycle, .breakLoop, .continueLoop, .partial: return false
        }
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

    private mutating func parseOutput(required: Bool = false) throws(ExpressionError) -> Template.Output {
        skipWhitespace()
        let column = position + 1
        guard position < end else {
            if required { throw ExpressionError("expected a value", column: position + 1, hint: Self.valueHint) }
            return Template.Output(expression: .literal(.null), calls: [])
        }
        let expression = try parseExpression()
        var calls: [Template.FilterCall] = []
        while true {
            skipWhitespace()
            guard position < end else { break }
            guard scalars[position] == "|" else { throw unexpected("after the value") }
            position += 1
            calls.append(try parseFilterCall())
        }
        return Template.Output(expression: expression, calls: calls, column: column)
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
            if segments.isEmpty, let literal = Self.keyword(name) { return literal }
            return .path(root: .name(name), segments: segments)
        }
    }

    /// The literal a keyword stands for. A function, not a dictionary: a global holding boxed enum values
    /// (TemplateExpression is indirect) keeps them behind tagged pointers, which a leak checker takes for
    /// leaks.
    private static func keyword(_ name: String) -> TemplateExpression? {
        switch name {
        case "true": .literal(.bool(true))
        case "false": .literal(.bool(false))
        case "nil", "null": .literal(.null)
        case "empty": .special(.empty)
        case "blank": .special(.blank)
        default: nil
        }
    }

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
        while position < end, scalars[position] != quote {
            position += 1
        }
        guard position < end else {
            throw ExpressionError(
                "unterminated string", column: start + 1, hint: "close it with \(quote)")
        }
        position += 1
        return String(scalars: scalars[(start + 1)..<(position - 1)])
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

    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
            || (!scalar.isASCII && scalar.properties.isAlphabetic)
    }

    static func isIdentifierScalar(_ scalar: Unicode.Scalar) -> Bool {
        isIdentifierStart(scalar) || ("0"..."9").contains(scalar) || scalar == "-"
    }

    /// A name at the current position (`title`, `first-name`, `valid?`); consumes it.
    private mutating func identifier() -> String? {
        guard position < end, Self.isIdentifierStart(scalars[position]) else { return nil }
        let start = position
        while position < end, Self.isIdentifierScalar(scalars[position]) {
            position += 1
        }
        if position < end, scalars[position] == "?" {
            position += 1
        }
        return String(scalars: scalars[start..<position])
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
