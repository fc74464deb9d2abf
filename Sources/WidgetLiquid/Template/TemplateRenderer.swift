import Foundation
public import WidgetJSON

/// The state of one render of a template with tags: its variables, counters, cycles and loop positions.
///
/// A render owns its state alone; nothing of it outlives the render, so templates stay values that any
/// number of refreshes render at once.
final class TemplateRenderState {
    let scope: TemplateScope
    /// Variable frames, outermost first: `assign` and `capture` write the first, loops push their own.
    var frames: [WidgetObject] = [[:]]
    /// `increment` and `decrement` counters, which templates can also read as variables.
    var counters: [String: Int] = [:]
    /// The next position of each `cycle`.
    var cycles: [String: Int] = [:]
    /// Where each loop stopped, for `offset: continue`.
    var loopOffsets: [String: Int] = [:]
    /// What the last `ifchanged` rendered.
    var lastChanged: String?
    /// A `break` or `continue` on its way to the loop it ends.
    var interrupt: Interrupt?
    /// How many partials are being rendered inside one another.
    var partialDepth: Int
    /// The partials this render has used, by name, shared with the partials it renders: a partial in a
    /// loop is looked up once, not once an item.
    let partialTemplates: PartialTemplates
    /// The `forloop` objects of the `for` loops being rendered, outermost first, for `parentloop`.
    var loops: [WidgetObject] = []
    /// The `capture`d variables whose text was escaped as it was rendered (in an escaping scope): shown
    /// as they are, not escaped twice.
    var escapedCaptures: Set<String> = []
    /// How many output tags were shown, and the last one's value and text: when the whole result is that
    /// one text, the template keeps the value's type.
    var outputCount = 0
    var lastOutput: (value: WidgetValue, text: String)?

    enum Interrupt {
        case breakLoop
        case continueLoop
    }

    /// The partials of one render, by name.
    final class PartialTemplates {
        var byName: [String: Template] = [:]
    }

    init(scope: TemplateScope, partialDepth: Int = 0, partialTemplates: PartialTemplates = PartialTemplates()) {
        self.scope = scope
        self.partialDepth = partialDepth
        self.partialTemplates = partialTemplates
    }

    /// The value of a name the template set itself, or `nil` to look in the scope.
    func lookup(_ name: String) -> WidgetValue? {
        var index = frames.count - 1
        while index >= 0 {
            if let value = frames[index][name] { return value }
            index -= 1
        }
        if let count = counters[name] { return .number(WidgetNumber(count)) }
        return nil
    }

    /// The deepest `render` or `include` nesting allowed: a partial that renders itself stops there.
    static let maximumPartialDepth = 16
}

// MARK: - Rendering

extension Template {
    /// Renders `nodes` after `text`.
    func render(_ nodes: [TemplateNode], into text: inout String, state: TemplateRenderState) throws(ExpressionError) {
        let scope = state.scope
        // One step a tag or text, counted for the whole list at once.
        try scope.steps?.spend(nodes.count)
        for node in nodes {
            if state.interrupt != nil { return }
            switch node {
            case .text(let literal):
                text += literal
            case .output(let output):
                let value = try evaluate(output, in: scope, state: state)
                let shown =
                    scope.escapesHTML && Self.isEscapedCapture(output, state)
                    ? LiquidValue.string(value) : Self.shown(value, of: output, in: scope)
                text += shown
                state.outputCount += 1
                state.lastOutput = (value, shown)
            case .conditional(let branches, let otherwise):
                var rendered = false
                for branch in branches
                where try Self.placed(
                    branch.column,
                    { () throws(ExpressionError) in
                        try branch.condition.isTrue(in: scope, state: state)
                    }) != branch.negated
                {
                    try render(branch.body, into: &text, state: state)
                    rendered = true
                    break
                }
                if !rendered, let otherwise { try render(otherwise, into: &text, state: state) }
            case .choice(let subjectExpression, let whens):
                let subject = try subjectExpression.evaluate(in: scope, state: state, guarded: true)
                var matched = false
                for when in whens {
                    guard let values = when.values else {
                        if !matched { try render(when.body, into: &text, state: state) }
                        continue
                    }
                    for value in values
                    where TemplateCondition.equal(subject, try value.evaluate(in: scope, state: state, guarded: true), value) {
                        matched = true
                        try render(when.body, into: &text, state: state)
                    }
                }
            case .loop(let loop):
                try renderLoop(loop, into: &text, state: state)
            case .tablerow(let loop, let columns):
                try renderTablerow(loop, columns: columns, into: &text, state: state)
            case .assign(let name, let output):
                state.frames[0][name] = try evaluate(output, in: scope, state: state)
                state.escapedCaptures.remove(name)
            case .capture(let name, let body):
                var captured = ""
                try render(body, into: &captured, state: state)
                state.frames[0][name] = .string(captured)
                if scope.escapesHTML { state.escapedCaptures.insert(name) }
            case .counter(let name, let step):
                var count = state.counters[name] ?? 0
                if step < 0 { count += step }
                text += String(count)
                if step > 0 { count += step }
                state.counters[name] = count
            case .cycle(let group, let values, let key):
                let name: String
                if let group {
                    name = "named " + LiquidValue.string(try group.evaluate(in: scope, state: state))
                } else {
                    name = "list " + key
                }
                let position = state.cycles[name] ?? 0
                if position < values.count {
                    text += Self.shown(
                        try values[position].evaluate(in: scope, state: state), of: Output(expression: values[position], calls: []),
                        in: scope)
                }
                state.cycles[name] = position + 1 >= values.count ? 0 : position + 1
            case .breakLoop:
                state.interrupt = .breakLoop
                return
            case .continueLoop:
                state.interrupt = .continueLoop
                return
            case .ifChanged(let body):
                var rendered = ""
                try render(body, into: &rendered, state: state)
                if rendered != state.lastChanged {
                    state.lastChanged = rendered
                    text += rendered
                }
            case .partial(let partial):
                try renderPartial(partial, into: &text, state: state)
            }
            try RenderBudget.check(text.utf8.count, producedBy: "the template")
        }
    }

    /// Whether `output` is `{{ name }}` alone, `name` a capture whose text is already escaped.
    private static func isEscapedCapture(_ output: Output, _ state: TemplateRenderState) -> Bool {
        guard output.calls.isEmpty, case .path(root: .name(let name), segments: let segments) = output.expression,
            segments.isEmpty
        else { return false }
        return state.escapedCaptures.contains(name)
    }

    /// The result of `body`, its error given `column` when it has none.
    static func placed<T>(_ column: Int, _ body: () throws(ExpressionError) -> T) throws(ExpressionError) -> T {
        do {
            return try body()
        } catch {
            throw error.placed(at: column)
        }
    }

    /// The counters every loop object has (`forloop`, `tablerowloop`) for the item at `index` of `count`,
    /// after the loop's `name` when it has one.
    private static func loopCounters(index: Int, count: Int, name: String? = nil) -> WidgetObject {
        var counters = WidgetObject()
        if let name { counters["name"] = .string(name) }
        counters["length"] = .number(WidgetNumber(count))
        counters["index"] = .number(WidgetNumber(index + 1))
        counters["index0"] = .number(WidgetNumber(index))
        counters["rindex"] = .number(WidgetNumber(count - index))
        counters["rindex0"] = .number(WidgetNumber(count - index - 1))
        counters["first"] = .bool(index == 0)
        counters["last"] = .bool(index == count - 1)
        return counters
    }

    /// The items a loop walks: an array's elements, an object's `[key, value]` pairs, a non-empty string
    /// once; nothing for anything else.
    private static func loopItems(_ value: WidgetValue) -> [WidgetValue] {
        switch value {
        case .array(let array): array
        case .object(let object): object.map { .array([.string($0.key), $0.value]) }
        case .string(let string): string.isEmpty ? [] : [value]
        default: []
        }
    }

    /// A loop's `limit` or `offset`: an integer, or text holding one.
    private static func loopInteger(
        _ expression: TemplateExpression, _ argument: String, scope: TemplateScope, state: TemplateRenderState
    ) throws(ExpressionError) -> Int {
        let value = try expression.evaluate(in: scope, state: state)
        switch value {
        case .null:
            return 0
        case .number(let number):
            return LiquidValue.integer(.number(number))
        case .string(let text):
            if let integer = Int(text.trimmingFoundationWhitespace()) { return integer }
        default:
            break
        }
        throw ExpressionError(
            "the loop's \(argument) must be an integer, not \(LiquidValue.describe(value))",
            hint: "write e.g. \(argument): 5")
    }

    /// The part of the collection a loop walks, after `offset` and `limit`, remembering where it stopped.
    private func loopSlice(_ loop: TemplateNode.Loop, state: TemplateRenderState) throws(ExpressionError) -> [WidgetValue] {
        let scope = state.scope
        let items = Self.loopItems(try loop.collection.evaluate(in: scope, state: state))
        var start = 0
        if loop.offsetContinues {
            start = state.loopOffsets[loop.name] ?? 0
        } else if let offset = loop.offset {
            start = try Self.loopInteger(offset, "offset", scope: scope, state: state)
        }
        start = max(0, start)
        var stop = items.count
        if let limit = loop.limit {
            let count = try Self.loopInteger(limit, "limit", scope: scope, state: state)
            let (end, overflow) = start.addingReportingOverflow(max(0, count))
            stop = min(items.count, overflow ? Int.max : end)
        }
        let slice = start < stop ? Array(items[start..<stop]) : []
        state.loopOffsets[loop.name] = start + slice.count
        return loop.reversed ? slice.reversed() : slice
    }

    private func renderLoop(_ loop: TemplateNode.Loop, into text: inout String, state: TemplateRenderState) throws(ExpressionError) {
        let slice = try Self.placed(loop.column) { () throws(ExpressionError) in try loopSlice(loop, state: state) }
        guard !slice.isEmpty else {
            if let otherwise = loop.otherwise { try render(otherwise, into: &text, state: state) }
            return
        }
        let parent = state.loops.last
        state.frames.append([:])
        state.loops.append([:])
        defer {
            state.frames.removeLast()
            state.loops.removeLast()
        }
        let count = slice.count
        let steps = state.scope.steps
        for (index, item) in slice.enumerated() {
            if Task.isCancelled { throw Template.cancelled }
            do {
                try steps?.spend(TemplateSteps.loopIterationSteps)
            } catch {
                throw error.placed(at: loop.column)
            }
            var forloop = Self.loopCounters(index: index, count: count, name: loop.name)
            if let parent { forloop["parentloop"] = .object(parent) }
            state.loops[state.loops.count - 1] = forloop
            state.frames[state.frames.count - 1] = [loop.variable: item, "forloop": .object(forloop)]
            try render(loop.body, into: &text, state: state)
            switch state.interrupt {
            case .breakLoop?:
                state.interrupt = nil
                return
            case .continueLoop?:
                state.interrupt = nil
            case nil:
                break
            }
        }
    }

    private func renderTablerow(
        _ loop: TemplateNode.Loop, columns: TemplateExpression?, into text: inout String, state: TemplateRenderState
    ) throws(ExpressionError) {
        let slice = try loopSlice(loop, state: state)
        let count = slice.count
        var perRow = count
        if let columns {
            let value = try columns.evaluate(in: state.scope, state: state)
            if !value.isNull { perRow = LiquidValue.integer(value) }
        }
        if perRow <= 0 { perRow = max(count, 1) }
        text += "<tr class=\"row1\">\n"
        state.frames.append([:])
        defer { state.frames.removeLast() }
        let steps = state.scope.steps
        for (index, item) in slice.enumerated() {
            if Task.isCancelled { throw Template.cancelled }
            do {
                try steps?.spend(TemplateSteps.loopIterationSteps)
            } catch {
                throw error.placed(at: loop.column)
            }
            let column = index % perRow + 1
            let row = index / perRow + 1
            var loopObject = Self.loopCounters(index: index, count: count)
            loopObject["col"] = .number(WidgetNumber(column))
            loopObject["col0"] = .number(WidgetNumber(column - 1))
            loopObject["col_first"] = .bool(column == 1)
            loopObject["col_last"] = .bool(column == perRow)
            loopObject["row"] = .number(WidgetNumber(row))
            state.frames[state.frames.count - 1] = [loop.variable: item, "tablerowloop": .object(loopObject)]
            text += "<td class=\"col\(column)\">"
            try render(loop.body, into: &text, state: state)
            text += "</td>"
            if let interrupt = state.interrupt {
                state.interrupt = nil
                if case .breakLoop = interrupt { break }
            }
            if column == perRow, index != count - 1 { text += "</tr>\n<tr class=\"row\(row + 1)\">" }
        }
        text += "</tr>\n"
    }

    private func renderPartial(_ partial: TemplateNode.Partial, into text: inout String, state: TemplateRenderState) throws(ExpressionError)
    {
        let scope = state.scope
        let tag = partial.isolated ? "render" : "include"
        // Partials that render one another can multiply the work without writing anything: stop with
        // the refresh like any render.
        if Task.isCancelled { throw Template.cancelled }
        // A partial is read from a file the secrets checks never see: none is rendered where secrets are
        // in scope (a source's url, headers and body).
        if Template.SecretNamespace.allCases.contains(where: { scope.globals[$0.rawValue] != nil }) {
            throw ExpressionError(
                "'\(tag)' cannot be used where secrets are in scope", column: partial.column,
                hint: "a source's url, headers and body are written in the definition itself")
        }
        guard case .string(let name) = try partial.name.evaluate(in: scope, state: state) else {
            throw ExpressionError("the name of the partial to \(tag) is not text", column: partial.column)
        }
        guard let partials = scope.partials else {
            throw ExpressionError(
                "'\(tag)' has no partials to read '\(name)' from here", column: partial.column,
                hint: "partials are read from the partials folder beside the definitions")
        }
        guard state.partialDepth < TemplateRenderState.maximumPartialDepth else {
            throw ExpressionError(
                "partials are rendered more than \(TemplateRenderState.maximumPartialDepth) deep (does '\(name)' render itself?)",
                column: partial.column)
        }
        let template: Template
        if let known = state.partialTemplates.byName[name] {
            template = known
        } else {
            template = try partials.template(named: name)
            state.partialTemplates.byName[name] = template
        }
        var arguments = WidgetObject()
        for argument in partial.arguments { arguments[argument.name] = try argument.value.evaluate(in: scope, state: state) }
        let variable = partial.binding?.alias ?? name
        var items: [WidgetValue?] = [nil]
        var eachItem = false
        if let binding = partial.binding {
            let value = try binding.value.evaluate(in: scope, state: state)
            if binding.kind == .each, case .array(let array) = value {
                items = array
                eachItem = true
            } else {
                items = [value]
            }
        }
        for (index, item) in items.enumerated() {
            var frame = arguments
            if let item { frame[variable] = item }
            if eachItem, partial.isolated {
                frame["forloop"] = .object(Self.loopCounters(index: index, count: items.count))
            }
            if partial.isolated {
                var isolated = scope
                isolated.item = nil
                let inner = TemplateRenderState(
                    scope: isolated, partialDepth: state.partialDepth + 1, partialTemplates: state.partialTemplates)
                // The arguments are the partial's own variables: an `assign` of the same name replaces one.
                inner.frames = [frame]
                try template.render(template.nodes, into: &text, state: inner)
            } else {
                state.frames.append(frame)
                state.partialDepth += 1
                defer {
                    state.frames.removeLast()
                    state.partialDepth -= 1
                }
                try template.render(template.nodes, into: &text, state: state)
                // A `break` in an included partial ends the caller's loop, as in Liquid.
                if state.interrupt != nil { return }
            }
        }
    }
}

// MARK: - Conditions

extension TemplateCondition {
    /// Whether the condition holds.
    func isTrue(in scope: TemplateScope, state: TemplateRenderState?) throws(ExpressionError) -> Bool {
        switch self {
        case .value(let expression):
            if case .special = expression { return true }
            return try expression.evaluate(in: scope, state: state, guarded: true).isTruthy
        case .and(let left, let right):
            guard try left.isTrue(in: scope, state: state) else { return false }
            return try right.isTrue(in: scope, state: state)
        case .or(let left, let right):
            if try left.isTrue(in: scope, state: state) { return true }
            return try right.isTrue(in: scope, state: state)
        case .comparison(let leftExpression, let op, let rightExpression):
            let left = try leftExpression.evaluate(in: scope, state: state, guarded: true)
            let right = try rightExpression.evaluate(in: scope, state: state, guarded: true)
            switch op {
            case .equal:
                return Self.equal(left, right, rightExpression, leftExpression)
            case .notEqual, .notEqualAlternative:
                return !Self.equal(left, right, rightExpression, leftExpression)
            case .contains:
                return Self.contains(left, right)
            case .less, .greater, .lessOrEqual, .greaterOrEqual:
                if case .special = leftExpression { return false }
                if case .special = rightExpression { return false }
                guard let order = try Self.order(left, right, op) else { return false }
                switch op {
                case .less: return order < 0
                case .greater: return order > 0
                case .lessOrEqual: return order <= 0
                default: return order >= 0
                }
            }
        }
    }

    /// Liquid's `==`: `empty` and `blank` compare by emptiness, numbers by value (`1 == 1.0`), anything
    /// else only with a value of its own kind.
    static func equal(
        _ left: WidgetValue, _ right: WidgetValue, _ rightExpression: TemplateExpression,
        _ leftExpression: TemplateExpression? = nil
    ) -> Bool {
        if case .special(let a) = leftExpression, case .special(let b) = rightExpression { return a == b }
        if case .special(let special) = rightExpression { return matches(left, special) }
        if case .special(let special) = leftExpression { return matches(right, special) }
        return left == right
    }

    private static func matches(_ value: WidgetValue, _ special: TemplateExpression.Special) -> Bool {
        switch special {
        case .empty:
            return LiquidValue.isEmpty(value)
        case .blank:
            switch value {
            case .null: return true
            case .bool(let bool): return !bool
            case .string(let text): return text.allSatisfy(\.isWhitespace)
            default: return LiquidValue.isEmpty(value)
            }
        }
    }

    /// `contains`: a substring of a string, an element of an array, a key of an object.
    private static func contains(_ container: WidgetValue, _ element: WidgetValue) -> Bool {
        switch container {
        case .string(let text):
            guard !element.isNull else { return false }
            return text.contains(LiquidValue.string(element))
        case .array(let array):
            // Liquid never finds `nil` or `false`, even in an array that holds them.
            guard element.isTruthy else { return false }
            return array.contains(element)
        case .object(let object):
            guard case .string(let key) = element else { return false }
            return object[key] != nil
        default:
            return false
        }
    }

    /// The order of two numbers or two strings; `nil` when either is `nil`; an error for other pairs, as
    /// Liquid fails to compare a string with a number.
    private static func order(_ left: WidgetValue, _ right: WidgetValue, _ op: Operator) throws(ExpressionError) -> Int? {
        switch (left, right) {
        case (.number(let a), .number(let b)):
            return a < b ? -1 : (a == b ? 0 : 1)
        case (.string(let a), .string(let b)):
            return a < b ? -1 : (a == b ? 0 : 1)
        case (.null, _), (_, .null):
            return nil
        default:
            throw ExpressionError(
                "cannot compare \(LiquidValue.describe(left)) with \(LiquidValue.describe(right)) using '\(op.rawValue)'",
                hint: "compare numbers with numbers and text with text; convert with | plus: 0 or | append: ''")
        }
    }
}

// MARK: - Partials

/// Where `{% render 'name' %}` and `{% include 'name' %}` find their templates.
///
/// ``TemplatePartialFolder`` reads them from files; a library user may conform any type.
public protocol TemplatePartials: Sendable {
    /// The partial called `name`, compiled.
    ///
    /// - Throws: `ExpressionError` when there is no such partial or it is not a valid template.
    func template(named name: String) throws(ExpressionError) -> Template
}

extension Template.Output {
    /// The root variable names of the expression and the filter arguments.
    func collectVariables(into names: inout Set<String>) {
        expression.collectVariables(into: &names)
        for call in calls {
            for argument in call.arguments { argument.collectVariables(into: &names) }
            for keyword in call.keywords { keyword.value.collectVariables(into: &names) }
        }
    }
}

extension TemplateNode {
    /// Calls `visit` with every `render` and `include` in the nodes.
    static func walkPartials(_ nodes: [TemplateNode], _ visit: (Partial) -> Void) {
        for node in nodes {
            switch node {
            case .partial(let partial): visit(partial)
            case .conditional(let branches, let otherwise):
                for branch in branches { walkPartials(branch.body, visit) }
                if let otherwise { walkPartials(otherwise, visit) }
            case .choice(_, let whens):
                for when in whens { walkPartials(when.body, visit) }
            case .loop(let loop), .tablerow(let loop, _):
                walkPartials(loop.body, visit)
                if let otherwise = loop.otherwise { walkPartials(otherwise, visit) }
            case .capture(_, let body), .ifChanged(let body):
                walkPartials(body, visit)
            case .text, .output, .assign, .counter, .cycle, .breakLoop, .continueLoop:
                break
            }
        }
    }
}
