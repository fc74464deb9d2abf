public import WidgetJSON

/// A Liquid template: text with output tags, `{{ expression | filter: argument }}`, and Liquid's tags,
/// `{% if %}`, `{% for %}` and the rest, checked once and rendered many times.
///
/// Text outside the tags is kept as written; `{{-`, `-}}`, `{%-` and `-%}` trim the whitespace before and
/// after a tag, as in Liquid. Expressions are variables (`item.title`, `a.b[0]`, `a["x y"]`, `list[index]`,
/// `.size`, `.first`, `.last`), literals (`'text'`, `"text"`, `42`, `1.5`, `true`, `false`, `nil`, `empty`,
/// `blank`) and ranges (`(1..5)`). The tags are Shopify Liquid's: `if`/`elsif`/`else`/`unless`,
/// `case`/`when`, `for` (with `limit`, `offset`, `offset: continue`, `reversed`, `else`, `forloop`, `break`,
/// `continue`), `tablerow`, `assign`, `capture`, `increment`, `decrement`, `cycle`, `ifchanged`, `raw`,
/// `comment`, `doc`, `{% # … %}`, `echo`, `liquid`, and `render` and `include` of partials given by
/// ``TemplateScope/partials``.
///
/// A template that is exactly one tag keeps the type of its value: `"{{ item.price | times: 2 }}"` renders
/// a number, `"{{ item.tags }}"` a list. Any other template renders a string. Missing data renders as
/// nothing, as in Liquid; only genuine failures a filter reports (dividing by zero, say) are errors.
/// Arithmetic is decimal: `{{ 0.1 | plus: 0.2 }}` is `0.3`.
///
/// ```swift
/// let template = try Template("Hello {{ user.name | default: 'there' | capitalize }}!")
/// let text = try template.renderString(TemplateScope(globals: ["user": ["name": "ada"]]))
/// // "Hello Ada!"
/// ```
public struct Template: Sendable, Hashable, CustomStringConvertible {
    /// The template text as written.
    public let source: String
    let nodes: [TemplateNode]
    /// Whether the template has only text and output tags: it renders without any state of its own.
    let isOutputOnly: Bool

    /// One `{{ … }}` tag: an expression and the filters applied to it, in order.
    struct Output: Sendable, Hashable {
        var expression: TemplateExpression
        var calls: [FilterCall]
        /// The 1-based column of the expression in the template, for errors that have no column of their own.
        var column = 0
    }

    /// One `| name: arguments` step of an output tag.
    ///
    /// The filter is found when the template is parsed, and positional arguments that are all literals
    /// (the usual case: `times: 1.2`, `date: '%Y'`) are made then too, not at every render. Two calls are
    /// equal when they are written alike.
    struct FilterCall: Sendable, Hashable {
        var name: String
        var column: Int
        var arguments: [TemplateExpression]
        var keywords: [Keyword]
        var body: FilterRegistry.Body
        /// The values of ``arguments`` when every one is a literal.
        var literalArguments: [WidgetValue]?

        init(name: String, column: Int, arguments: [TemplateExpression], keywords: [Keyword], body: @escaping FilterRegistry.Body) {
            self.name = name
            self.column = column
            self.arguments = arguments
            self.keywords = keywords
            self.body = body
            var literals: [WidgetValue] = []
            for argument in arguments {
                guard case .literal(let value) = argument else {
                    literalArguments = nil
                    return
                }
                literals.append(value)
            }
            literalArguments = literals
        }

        static func == (lhs: FilterCall, rhs: FilterCall) -> Bool {
            lhs.name == rhs.name && lhs.column == rhs.column && lhs.arguments == rhs.arguments && lhs.keywords == rhs.keywords
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(column)
            hasher.combine(arguments)
            hasher.combine(keywords)
        }
    }

    /// A `name: value` argument.
    struct Keyword: Sendable, Hashable {
        var name: String
        var value: TemplateExpression
    }

    /// Parses and checks a template.
    ///
    /// Filter names and argument counts are checked against `filters` now, so a typo is found when a
    /// definition is loaded rather than when it first runs.
    ///
    /// ```swift
    /// try Template("{{ title | upcse }}")
    /// // throws: unknown filter 'upcse' at column 12; did you mean 'upcase'?
    /// ```
    ///
    /// - Parameters:
    ///   - source: The template text.
    ///   - filters: The filters the template may use.
    /// - Throws: `ExpressionError` with the 1-based column of the problem: an unterminated `{{`, an
    ///   expression that cannot be read, an unknown filter (with a "did you mean" hint), a wrong number of
    ///   arguments for a filter, an unknown tag, or a block that is never closed.
    public init(_ source: String, filters: FilterRegistry = .standard) throws(ExpressionError) {
        self.source = source
        var parser = TemplateParser(source: source, filters: filters)
        self.nodes = try parser.parseTemplate()
        self.variables = Self.variables(of: nodes)
        self.secretUses = Self.secretUses(of: nodes)
        self.isOutputOnly = nodes.allSatisfy { node in
            switch node {
            case .text, .output: true
            default: false
            }
        }
    }

    /// The template text as written.
    public var description: String { source }

    /// Whether the template is only text: it always renders its own text.
    public var isConstant: Bool {
        nodes.allSatisfy { if case .text = $0 { true } else { false } }
    }

    /// The root variable names the template reads, e.g. `["inputs", "env", "title"]`, so a loader can
    /// check that `env` appears only where secrets are allowed. Names the template sets itself (`assign`,
    /// `capture`, loop variables) are included when it also reads them.
    ///
    /// Found once, when the template is compiled: a definition's checks ask for them several times, and a
    /// template a whole folder shares (see `TemplateLibrary`) is compiled once for all its files.
    public let variables: Set<String>

    /// The secrets the template reads, and what it does with them that is not allowed (one sentence each,
    /// with the fix).
    ///
    /// Found once, when the template is compiled: a definition's checks and each HTTP source built from it
    /// ask for them, and a template a whole folder shares is compiled once for all its files.
    public let secretUses: (uses: [SecretUse], problems: [String])

    /// The root variable names `nodes` read.
    private static func variables(of nodes: [TemplateNode]) -> Set<String> {
        var names: Set<String> = []
        TemplateNode.walk(nodes) { expression in
            expression.collectVariables(into: &names)
        } output: { output in
            output.collectVariables(into: &names)
        }
        return names
    }

    /// The root names the template reads that it does not set itself: those the scope must provide.
    public var freeVariables: Set<String> {
        var bound: Set<String> = []
        TemplateNode.boundNames(nodes, into: &bound)
        return variables.subtracting(bound)
    }

    /// The names of the partials the template renders or includes by a literal name.
    public var partialNames: Set<String> {
        var names: Set<String> = []
        TemplateNode.walkPartials(nodes) { partial in
            if case .literal(.string(let name)) = partial.name { names.insert(name) }
        }
        return names
    }

    /// Renders the template.
    ///
    /// A template that is exactly one `{{ … }}` tag returns its value with its type (number, list, object,
    /// boolean or `.null`), and so does a template with tags whose whole result is the text of the one
    /// `{{ … }}` it showed (`{%- if a -%}{{ x }}{%- else -%}{{ y }}{%- endif -%}`); any other template
    /// returns the text, with values converted as Liquid does
    /// (`nil` → nothing, lists joined without a separator, objects as JSON).
    ///
    /// ```swift
    /// try Template("{{ price | times: 2 }}").render(TemplateScope(globals: ["price": 2.5])) // .number(5.0)
    /// ```
    ///
    /// - Throws: `ExpressionError` when a filter fails, e.g. `divided_by: 0`.
    public func render(_ scope: TemplateScope) throws(ExpressionError) -> WidgetValue {
        guard !scope.escapesHTML else { return .string(try renderString(scope)) }
        if nodes.count == 1, case .output(let output) = nodes[0] {
            let value = try evaluate(output, in: scope, state: nil)
            if case .string(let text) = value { try scope.budget?.charge(text.utf8.count) }
            // A list or object a filter made is kept with the result; one read as it is belongs to the data.
            if !output.calls.isEmpty, let count = RenderBudget.itemCount(value) { try scope.budget?.chargeItems(count) }
            return value
        }
        if isOutputOnly { return .string(try renderString(scope)) }
        // With tags, a result that is exactly the text of one output tag keeps that value's type:
        // `{%- if cost > 0 -%}{{ gain | divided_by: cost }}{%- else -%}{{ 0 }}{%- endif -%}` is a number.
        let state = TemplateRenderState(scope: scope)
        var text = ""
        try render(nodes, into: &text, state: state)
        try scope.budget?.charge(text.utf8.count)
        if state.outputCount == 1, let last = state.lastOutput, last.text == text {
            if let count = RenderBudget.itemCount(last.value) { try scope.budget?.chargeItems(count) }
            return last.value
        }
        return .string(text)
    }

    /// Renders the template as text, whatever its shape.
    ///
    /// ```swift
    /// try Template("{{ n | plus: 1 }} items").renderString(TemplateScope(globals: ["n": 2])) // "3 items"
    /// ```
    ///
    /// - Throws: `ExpressionError` when a filter fails, e.g. `divided_by: 0`.
    public func renderString(_ scope: TemplateScope) throws(ExpressionError) -> String {
        var text = ""
        if isOutputOnly {
            for node in nodes {
                switch node {
                case .text(let literal): text += literal
                case .output(let output): text += Self.shown(try evaluate(output, in: scope, state: nil), of: output, in: scope)
                default: break
                }
                try RenderBudget.check(text.utf8.count, producedBy: "the template")
            }
        } else {
            let state = TemplateRenderState(scope: scope)
            try render(nodes, into: &text, state: state)
        }
        try scope.budget?.charge(text.utf8.count)
        return text
    }

    /// The text an output tag shows: HTML-escaped when the scope asks for it, unless its last filter is
    /// `safe`, already escapes (`escape`, `h`, `escape_once`) or writes markup of its own that holds no
    /// input text unescaped (`sparkline`).
    static func shown(_ value: WidgetValue, of output: Output, in scope: TemplateScope) -> String {
        let text = LiquidValue.string(value)
        guard scope.escapesHTML else { return text }
        if let last = output.calls.last?.name, unescapedFilters.contains(last) { return text }
        return HTMLText.escape(text)
    }

    /// The last filters after which an escaping scope shows a value as it is.
    static let unescapedFilters: Set<String> = ["safe", "escape", "h", "escape_once", "sparkline"]

    func evaluate(_ output: Output, in scope: TemplateScope, state: TemplateRenderState?) throws(ExpressionError)
        -> WidgetValue
    {
        // `{{ x | default: … }}` guards `x`: it may be missing even where variables are strict.
        var value: WidgetValue
        do {
            value = try output.expression.evaluate(in: scope, state: state, guarded: output.calls.first?.name == "default")
        } catch {
            throw error.placed(at: output.column)
        }
        // Each call is read where it is: a copy of it would count a reference to each of its parts.
        let calls = output.calls
        for index in calls.indices {
            // Rendering has no time limit of its own: it stops when its refresh is cancelled, at the
            // refresh's deadline or when the daemon stops, before the next filter.
            if Task.isCancelled { throw Template.cancelled }
            var arguments: [WidgetValue]
            if let literals = calls[index].literalArguments {
                arguments = literals
            } else {
                arguments = []
                arguments.reserveCapacity(calls[index].arguments.count)
                for argument in calls[index].arguments { arguments.append(try argument.evaluate(in: scope, state: state)) }
            }
            var keywords = WidgetObject()
            for keyword in calls[index].keywords { keywords[keyword.name] = try keyword.value.evaluate(in: scope, state: state) }
            try scope.steps?.spend(TemplateSteps.cost(of: value))
            let context = FilterContext(
                filterName: calls[index].name,
                keywordArguments: keywords,
                now: scope.now,
                timeZone: scope.timeZone,
                column: calls[index].column
            )
            value = try calls[index].body(value, arguments, context)
            if case .string(let text) = value {
                try RenderBudget.check(text.utf8.count, producedBy: calls[index].name, column: calls[index].column)
            } else if let count = RenderBudget.itemCount(value) {
                try RenderBudget.checkItems(count, producedBy: calls[index].name, column: calls[index].column)
            }
        }
        return value
    }

    /// Renders the template as a test, as a filter's `if` or a source's `when` does: whether it gives
    /// anything but `nil`, `false` or `""`. A test guards what it reads: a missing variable or member is
    /// `nil` here even where ``TemplateScope/strictVariables`` is on.
    ///
    /// - Throws: `ExpressionError` when a filter fails.
    public func test(_ scope: TemplateScope) throws(ExpressionError) -> Bool {
        var lenient = scope
        lenient.strictVariables = false
        return try render(lenient).passesTest
    }

    /// The error a render stopped by cancellation throws.
    static let cancelled = ExpressionError(
        "stopped: its refresh was cancelled (the deadline passed or widgetd is stopping)",
        hint: "raise the definition's \"deadline\" if it needs longer"
    )

    /// Two templates are equal when they have the same source text.
    public static func == (lhs: Template, rhs: Template) -> Bool {
        lhs.source == rhs.source && lhs.nodes == rhs.nodes
    }

    /// Hashes the source text.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(source)
    }
}

// MARK: - Decodable

extension Template: Decodable {
    /// Decodes a template from a JSON string.
    ///
    /// The filters come from `decoder.userInfo[FilterRegistry.userInfoKey]` when it holds a
    /// ``FilterRegistry``, otherwise ``FilterRegistry/standard``; a ``TemplateCache`` under
    /// ``TemplateCache/userInfoKey`` compiles it instead, with its filters.
    ///
    /// - Throws: `DecodingError.dataCorrupted` whose `underlyingError` is the `ExpressionError` when the
    ///   string is not a valid template.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let source = try container.decode(String.self)
        do throws(ExpressionError) {
            if let cache = TemplateCache.of(decoder) {
                self = try cache.template(source)
            } else {
                try self.init(source, filters: decoder.userInfo[FilterRegistry.userInfoKey] as? FilterRegistry ?? .standard)
            }
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "\(error)",
                    underlyingError: error
                )
            )
        }
    }
}
