/// One piece of a parsed template: text, an output tag, or a Liquid tag with its blocks.
///
/// Internal to the template engine: ``Template`` parses source text into a list of nodes and renders them
/// in order.
indirect enum TemplateNode: Sendable, Hashable {
    /// Text outside the tags, kept as written (after whitespace control).
    case text(String)
    /// `{{ expression | filters }}`, or `{% echo expression | filters %}`.
    case output(Template.Output)
    /// `{% if %}` / `{% unless %}` with their `elsif` branches and `else`.
    case conditional(branches: [Branch], otherwise: [TemplateNode]?)
    /// `{% case subject %}{% when a, b %}…{% else %}…{% endcase %}`: its `when` and `else` blocks in order.
    case choice(subject: TemplateExpression, whens: [When])
    /// `{% for name in collection … %}…{% else %}…{% endfor %}`.
    case loop(Loop)
    /// `{% tablerow name in collection cols: n … %}…{% endtablerow %}`.
    case tablerow(Loop, columns: TemplateExpression?)
    /// `{% assign name = expression | filters %}`.
    case assign(name: String, value: Template.Output)
    /// `{% capture name %}…{% endcapture %}`.
    case capture(name: String, body: [TemplateNode])
    /// `{% increment name %}` (`step` 1) or `{% decrement name %}` (`step` -1).
    case counter(name: String, step: Int)
    /// `{% cycle group: a, b, c %}`.
    case cycle(group: TemplateExpression?, values: [TemplateExpression], key: String)
    /// `{% break %}`.
    case breakLoop
    /// `{% continue %}`.
    case continueLoop
    /// `{% ifchanged %}…{% endifchanged %}`.
    case ifChanged([TemplateNode])
    /// `{% render 'name' … %}` or `{% include 'name' … %}`.
    case partial(Partial)

    /// One `if`, `elsif` or `unless` test and the block it guards.
    struct Branch: Sendable, Hashable {
        var condition: TemplateCondition
        /// `unless`: the block renders when the condition is false.
        var negated: Bool
        var body: [TemplateNode]
        /// The 1-based column of the condition in the template.
        var column: Int
    }

    /// One `when` of a `case`, the values it matches and its block, or an `else` (`values` is `nil`), which
    /// renders when no `when` before it matched.
    struct When: Sendable, Hashable {
        var values: [TemplateExpression]?
        var body: [TemplateNode]
    }

    /// A `for` or `tablerow` loop.
    struct Loop: Sendable, Hashable {
        var variable: String
        var collection: TemplateExpression
        var limit: TemplateExpression?
        var offset: TemplateExpression?
        /// `offset: continue`: start where the last loop over the same variable and collection stopped.
        var offsetContinues: Bool
        var reversed: Bool
        var body: [TemplateNode]
        var otherwise: [TemplateNode]?
        /// `variable-collection`, the key `offset: continue` remembers positions under.
        var name: String
        /// The 1-based column of the collection in the template.
        var column: Int
    }

    /// A `render` or `include` of a partial template.
    struct Partial: Sendable, Hashable {
        /// The partial's name, a literal string (`render`) or any expression (`include`).
        var name: TemplateExpression
        /// `include` shares the caller's variables; `render` sees only what it is given.
        var isolated: Bool
        /// `with value` or `for value`, and the name it is bound to (`as name`, else the partial's name).
        var binding: (kind: BindingKind, value: TemplateExpression, alias: String?)?
        /// `key: value` arguments.
        var arguments: [(name: String, value: TemplateExpression)]
        /// The 1-based column of the tag, for errors.
        var column: Int

        enum BindingKind: Sendable, Hashable {
            case with
            case each
        }

        static func == (lhs: Partial, rhs: Partial) -> Bool {
            lhs.name == rhs.name && lhs.isolated == rhs.isolated && lhs.column == rhs.column
                && lhs.binding?.kind == rhs.binding?.kind && lhs.binding?.value == rhs.binding?.value
                && lhs.binding?.alias == rhs.binding?.alias && lhs.arguments.map(\.name) == rhs.arguments.map(\.name)
                && lhs.arguments.map(\.value) == rhs.arguments.map(\.value)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(column)
        }
    }
}

/// The test of an `if`, `elsif`, `unless` or `when`: comparisons joined by `and` and `or`, which Liquid
/// groups from the right (`a or b and c` is `a or (b and c)`).
indirect enum TemplateCondition: Sendable, Hashable {
    /// A value tested for truth: everything but `false` and `nil` is true.
    case value(TemplateExpression)
    /// `left op right`.
    case comparison(TemplateExpression, Operator, TemplateExpression)
    /// `left and right`.
    case and(TemplateCondition, TemplateCondition)
    /// `left or right`.
    case or(TemplateCondition, TemplateCondition)

    /// A comparison operator.
    enum Operator: String, Sendable, Hashable, CaseIterable {
        case equal = "=="
        case notEqual = "!="
        case notEqualAlternative = "<>"
        case less = "<"
        case greater = ">"
        case lessOrEqual = "<="
        case greaterOrEqual = ">="
        case contains
    }
}

extension TemplateNode {
    /// Calls `visit` with every expression in these nodes (an `assign`'s value and filter arguments, and
    /// the outputs inside a `capture` or an `ifchanged`, among them), and `output` with every other output
    /// tag and `echo`, in order, into nested blocks.
    static func walk(
        _ nodes: [TemplateNode],
        expression visit: (TemplateExpression) -> Void,
        output: (Template.Output) -> Void
    ) {
        for node in nodes {
            switch node {
            case .text, .breakLoop, .continueLoop, .counter:
                break
            case .output(let value):
                output(value)
            case .assign(_, let value):
                // An assigned value is kept, not shown: its parts count as a tag's expressions.
                value.forEachExpression(visit)
            case .conditional(let branches, let otherwise):
                for branch in branches {
                    branch.condition.walk(visit)
                    walk(branch.body, expression: visit, output: output)
                }
                if let otherwise { walk(otherwise, expression: visit, output: output) }
            case .choice(let subject, let whens):
                visit(subject)
                for when in whens {
                    when.values?.forEach(visit)
                    walk(when.body, expression: visit, output: output)
                }
            case .loop(let loop), .tablerow(let loop, columns: nil):
                loop.walk(visit: visit, output: output)
            case .tablerow(let loop, columns: .some(let columns)):
                visit(columns)
                loop.walk(visit: visit, output: output)
            case .capture(_, let body), .ifChanged(let body):
                // What a capture or an ifchanged renders is kept or compared before it is shown: its
                // outputs count as a tag's expressions.
                walk(body, expression: visit) { captured in captured.forEachExpression(visit) }
            case .cycle(let group, let values, _):
                if let group { visit(group) }
                values.forEach(visit)
            case .partial(let partial):
                visit(partial.name)
                if let binding = partial.binding { visit(binding.value) }
                for argument in partial.arguments { visit(argument.value) }
            }
        }
    }

    /// The names the nodes bind: `assign`, `capture`, loop variables, counters and `forloop`.
    static func boundNames(_ nodes: [TemplateNode], into names: inout Set<String>) {
        for node in nodes {
            switch node {
            case .assign(let name, _):
                names.insert(name)
            case .capture(let name, let body):
                names.insert(name)
                boundNames(body, into: &names)
            case .counter(let name, _):
                names.insert(name)
            case .loop(let loop):
                names.insert(loop.variable)
                names.insert("forloop")
                boundNames(loop.body, into: &names)
                if let otherwise = loop.otherwise { boundNames(otherwise, into: &names) }
            case .tablerow(let loop, _):
                names.insert(loop.variable)
                names.insert("tablerowloop")
                names.insert("forloop")
                boundNames(loop.body, into: &names)
            case .conditional(let branches, let otherwise):
                for branch in branches { boundNames(branch.body, into: &names) }
                if let otherwise { boundNames(otherwise, into: &names) }
            case .choice(_, let whens):
                for when in whens { boundNames(when.body, into: &names) }
            case .ifChanged(let body):
                boundNames(body, into: &names)
            case .text, .output, .cycle, .breakLoop, .continueLoop, .partial:
                break
            }
        }
    }
}

extension TemplateNode.Loop {
    fileprivate func walk(visit: (TemplateExpression) -> Void, output: (Template.Output) -> Void) {
        visit(collection)
        if let limit { visit(limit) }
        if let offset { visit(offset) }
        TemplateNode.walk(body, expression: visit, output: output)
        if let otherwise { TemplateNode.walk(otherwise, expression: visit, output: output) }
    }
}

extension TemplateCondition {
    /// Calls `visit` with every expression of the condition.
    func walk(_ visit: (TemplateExpression) -> Void) {
        switch self {
        case .value(let expression):
            visit(expression)
        case .comparison(let left, _, let right):
            visit(left)
            visit(right)
        case .and(let left, let right), .or(let left, let right):
            left.walk(visit)
            right.walk(visit)
        }
    }
}

extension Template.Output {
    /// Calls `visit` with the output's expression and every filter argument.
    func forEachExpression(_ visit: (TemplateExpression) -> Void) {
        visit(expression)
        for call in calls {
            call.arguments.forEach(visit)
            for keyword in call.keywords { visit(keyword.value) }
        }
    }
}
