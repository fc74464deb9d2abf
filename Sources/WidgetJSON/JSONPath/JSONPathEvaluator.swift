/// A link in the path of a node being located, from the node back to the root. Allocated only by
/// ``JSONPath/locate(_:)``; ``JSONPath/select(_:)`` passes `nil` throughout.
final class JSONPathLink: Sendable {
    let parent: JSONPathLink?
    let component: ValuePath.Component

    init(_ parent: JSONPathLink?, _ component: ValuePath.Component) {
        self.parent = parent
        self.component = component
    }

    /// The path from the root to this link.
    static func path(_ link: JSONPathLink?) -> ValuePath {
        var components: [ValuePath.Component] = []
        var link = link
        while let current = link {
            components.append(current.component)
            link = current.parent
        }
        return ValuePath(components: components.reversed())
    }
}

/// Evaluates compiled queries and filters over a document (RFC 9535 §2.3), walking the tree in place.
struct JSONPathEvaluator {
    /// The argument of the query: `$` inside filters.
    let root: WidgetValue
    /// Whether to build the path of each node.
    let tracking: Bool

    // MARK: - Queries

    /// Calls `body` with each node the query selects from `start`, in nodelist order.
    func forEach(
        _ query: JSONPathQuery,
        from start: WidgetValue,
        path: JSONPathLink?,
        _ body: (WidgetValue, JSONPathLink?) -> Void
    ) {
        apply(query.segments, at: 0, to: start, path: path, body)
    }

    /// The nodes the query selects, without their paths.
    func values(_ query: JSONPathQuery, current: WidgetValue) -> [WidgetValue] {
        let start = query.origin == .root ? root : current
        if let steps = query.singularSteps {
            return Self.singular(steps, from: start).map { [$0] } ?? []
        }
        var result: [WidgetValue] = []
        JSONPathEvaluator(root: root, tracking: false).forEach(query, from: start, path: nil) { value, _ in
            result.append(value)
        }
        return result
    }

    private func apply(
        _ segments: [JSONPathSegment],
        at index: Int,
        to value: WidgetValue,
        path: JSONPathLink?,
        _ body: (WidgetValue, JSONPathLink?) -> Void
    ) {
        guard index < segments.count else {
            body(value, path)
            return
        }
        let segment = segments[index]
        // The last segment hands its nodes straight to `body`; the others to the segment after them.
        let isLast = index + 1 == segments.count
        if segment.isDescendant {
            if isLast {
                descendSelecting(segment.selectors, from: value, path: path, body)
            } else {
                descendSelecting(segment.selectors, from: value, path: path) { child, childPath in
                    apply(segments, at: index + 1, to: child, path: childPath, body)
                }
            }
        } else {
            for selector in segment.selectors {
                if isLast {
                    select(selector, from: value, path: path, body)
                } else {
                    select(selector, from: value, path: path) { child, childPath in
                        apply(segments, at: index + 1, to: child, path: childPath, body)
                    }
                }
            }
        }
    }

    /// Applies `selectors` to `value` and to each of its descendants in document order (the node first,
    /// then its children, depth first): a descendant segment. Every selector selects children, so only
    /// arrays and objects are visited: a scalar has nothing to select.
    private func descendSelecting(
        _ selectors: [JSONPathSelector],
        from value: WidgetValue,
        path: JSONPathLink?,
        _ body: (WidgetValue, JSONPathLink?) -> Void
    ) {
        if selectors.count == 1, case .filter(.memberComparison(let comparison)) = selectors[0] {
            // `..[?@.name OP literal]`: walked by a loop made for it, with nothing to dispatch per node.
            switch value {
            case .array(let elements): descendFiltering(comparison, in: elements, path: path, body)
            case .object(let object): descendFiltering(comparison, in: object, path: path, body)
            default: break
            }
            return
        }
        switch value {
        case .array(let elements): descendSelecting(selectors, in: elements, path: path, body)
        case .object(let object): descendSelecting(selectors, in: object, path: path, body)
        default: break
        }
    }

    private func descendFiltering(
        _ comparison: MemberComparison,
        in elements: [WidgetValue],
        path: JSONPathLink?,
        _ body: (WidgetValue, JSONPathLink?) -> Void
    ) {
        for position in elements.indices where Self.holds(comparison, for: elements[position]) {
            body(elements[position], link(path, .index(position)))
        }
        for position in elements.indices {
            switch elements[position] {
            case .array(let children): descendFiltering(comparison, in: children, path: link(path, .index(position)), body)
            case .object(let members): descendFiltering(comparison, in: members, path: link(path, .index(position)), body)
            default: continue
            }
        }
    }

    private func descendFiltering(
        _ comparison: MemberComparison,
        in object: WidgetObject,
        path: JSONPathLink?,
        _ body: (WidgetValue, JSONPathLink?) -> Void
    ) {
        let values = object.values
        for position in values.indices where Self.holds(comparison, for: values[position]) {
            body(values[position], link(path, .key(object.keys[position])))
        }
        for position in values.indices {
            switch values[position] {
            case .array(let children):
                descendFiltering(comparison, in: children, path: link(path, .key(object.keys[position])), body)
            case .object(let members):
                descendFiltering(comparison, in: members, path: link(path, .key(object.keys[position])), body)
            default:
                continue
            }
        }
    }

    // The walk goes from array to array and object to object, not from value to value: a child is
    // unwrapped once, where it is met, and its wrapper is not copied again for each selector.

    private func descendSelecting(
        _ selectors: [JSONPathSelector],
        in elements: [WidgetValue],
        path: JSONPathLink?,
        _ body: (WidgetValue, JSONPathLink?) -> Void
    ) {
        for index in selectors.indices { select(selectors[index], in: elements, path: path, body) }
        for position in elements.indices {
            switch elements[position] {
            case .array(let children): descendSelecting(selectors, in: children, path: link(path, .index(position)), body)
            case .object(let members): descendSelecting(selectors, in: members, path: link(path, .index(position)), body)
            default: continue
            }
        }
    }

    private func descendSelecting(
        _ selectors: [JSONPathSelector],
        in object: WidgetObject,
        path: JSONPathLink?,
        _ body: (WidgetValue, JSONPathLink?) -> Void
    ) {
        for index in selectors.indices { select(selectors[index], in: object, path: path, body) }
        let values = object.values
        for position in values.indices {
            switch values[position] {
            case .array(let children):
                descendSelecting(selectors, in: children, path: link(path, .key(object.keys[position])), body)
            case .object(let members):
                descendSelecting(selectors, in: members, path: link(path, .key(object.keys[position])), body)
            default:
                continue
            }
        }
    }

    /// The link to a child, built only when tracking (the component is not even formed otherwise).
    @inline(__always)
    private func link(_ parent: JSONPathLink?, _ component: @autoclosure () -> ValuePath.Component) -> JSONPathLink? {
        tracking ? JSONPathLink(parent, component()) : nil
    }

    private func select(
        _ selector: JSONPathSelector,
        from value: WidgetValue,
        path: JSONPathLink?,
        _ body: (WidgetValue, JSONPathLink?) -> Void
    ) {
        switch value {
        case .array(let elements): select(selector, in: elements, path: path, body)
        case .object(let object): select(selector, in: object, path: path, body)
        default: break
        }
    }

    /// The elements of an array that `selector` selects.
    private func select(
        _ selector: JSONPathSelector,
        in elements: [WidgetValue],
        path: JSONPathLink?,
        _ body: (WidgetValue, JSONPathLink?) -> Void
    ) {
        switch selector {
        case .name:
            break
        case .wildcard:
            for position in elements.indices { body(elements[position], link(path, .index(position))) }
        case .index(let index):
            let position = index < 0 ? elements.count + index : index
            guard position >= 0, position < elements.count else { return }
            body(elements[position], link(path, .index(position)))
        case .slice(let start, let end, let step):
            for position in Self.slicePositions(count: elements.count, start: start, end: end, step: step) {
                body(elements[position], link(path, .index(position)))
            }
        case .filter(.memberComparison(let comparison)):
            // The commonest filter, tested by a function that only reads: each candidate is looked at
            // where it is, not copied for the call.
            for position in elements.indices where Self.holds(comparison, for: elements[position]) {
                body(elements[position], link(path, .index(position)))
            }
        case .filter(let expression):
            for position in elements.indices where test(expression, current: elements[position]) {
                body(elements[position], link(path, .index(position)))
            }
        }
    }

    /// The members of an object that `selector` selects.
    private func select(
        _ selector: JSONPathSelector,
        in object: WidgetObject,
        path: JSONPathLink?,
        _ body: (WidgetValue, JSONPathLink?) -> Void
    ) {
        switch selector {
        case .name(let name):
            guard let position = Self.position(of: name, in: object) else { return }
            body(object.values[position], link(path, .key(name)))
        case .wildcard:
            let keys = object.keys
            let values = object.values
            for position in keys.indices { body(values[position], link(path, .key(keys[position]))) }
        case .index, .slice:
            break
        case .filter(.memberComparison(let comparison)):
            let keys = object.keys
            let values = object.values
            for position in values.indices where Self.holds(comparison, for: values[position]) {
                body(values[position], link(path, .key(keys[position])))
            }
        case .filter(let expression):
            let keys = object.keys
            let values = object.values
            for position in keys.indices where test(expression, current: values[position]) {
                body(values[position], link(path, .key(keys[position])))
            }
        }
    }

    /// The positions a slice selects, in order (RFC 9535 §2.3.4.2.2).
    static func slicePositions(count: Int, start: Int?, end: Int?, step: Int?) -> [Int] {
        let step = step ?? 1
        if step == 0 || count == 0 { return [] }
        func normalize(_ index: Int) -> Int { index >= 0 ? index : count + index }
        var positions: [Int] = []
        if step > 0 {
            let lower = min(max(normalize(start ?? 0), 0), count)
            let upper = min(max(normalize(end ?? count), 0), count)
            var position = lower
            while position < upper {
                positions.append(position)
                position += step
            }
        } else {
            let upper = min(max(start.map(normalize) ?? count - 1, -1), count - 1)
            let lower = min(max(end.map(normalize) ?? -1, -1), count - 1)
            var position = upper
            while lower < position {
                positions.append(position)
                position += step
            }
        }
        return positions
    }

    /// The position of the member whose key has exactly the scalars of `name` (not merely a canonically
    /// equivalent spelling, which `String` equality would accept).
    @inline(__always)
    static func position(of name: String, in object: WidgetObject) -> Int? {
        guard let position = object.position(of: name) else { return nil }
        let keys = object.keys
        if sameScalars(keys[position], name) { return position }
        return keys.firstIndex { sameScalars($0, name) }
    }

    /// Whether `a` and `b` are the same scalars (`==` also accepts canonically equivalent spellings).
    @inline(__always)
    static func sameScalars(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a
        var b = b
        return a.withUTF8 { x in b.withUTF8 { y in x.elementsEqual(y) } }
    }

    /// Follows the steps of a singular query; `nil` when a step finds nothing.
    static func singular(_ steps: [JSONPathQuery.SingularStep], from start: WidgetValue) -> WidgetValue? {
        var value = start
        for step in steps {
            switch step {
            case .name(let name):
                guard case .object(let object) = value, let position = position(of: name, in: object) else {
                    return nil
                }
                value = object.values[position]
            case .index(let index):
                guard case .array(let elements) = value else { return nil }
                let position = index < 0 ? elements.count + index : index
                guard position >= 0, position < elements.count else { return nil }
                value = elements[position]
            }
        }
        return value
    }

    // MARK: - Filters

    /// Whether the filter holds for `current` (`@`).
    func test(_ expression: FilterExpression, current: WidgetValue) -> Bool {
        switch expression {
        case .or(let terms):
            for term in terms where test(term, current: current) { return true }
            return false
        case .and(let terms):
            for term in terms where !test(term, current: current) { return false }
            return true
        case .not(let inner):
            return !test(inner, current: current)
        case .exists(let query):
            let start = query.origin == .root ? root : current
            if let steps = query.singularSteps { return Self.singular(steps, from: start) != nil }
            var found = false
            JSONPathEvaluator(root: root, tracking: false).forEach(query, from: start, path: nil) { _, _ in
                found = true
            }
            return found
        case .logicalFunction(let call):
            return logical(call, current: current)
        case .memberComparison(let comparison):
            return test(comparison, current: current)
        case .comparison(let left, let op, let right):
            return Self.compare(evaluate(left, current: current), op, evaluate(right, current: current))
        }
    }

    /// `a op b` (RFC 9535 §2.3.5.2.2); `nil` is Nothing.
    private static func compare(_ a: WidgetValue?, _ op: ComparisonOperator, _ b: WidgetValue?) -> Bool {
        switch op {
        case .equal: return JSONPathComparison.equal(a, b)
        case .notEqual: return !JSONPathComparison.equal(a, b)
        case .less: return JSONPathComparison.less(a, b)
        case .greater: return JSONPathComparison.less(b, a)
        case .lessOrEqual: return JSONPathComparison.less(a, b) || JSONPathComparison.equal(a, b)
        case .greaterOrEqual: return JSONPathComparison.less(b, a) || JSONPathComparison.equal(a, b)
        }
    }

    /// `@.name OP literal`: the member looked up once; numbers exactly representable as doubles compared
    /// as such, everything else as ``JSONPathComparison`` compares it.
    private func test(_ comparison: MemberComparison, current: WidgetValue) -> Bool {
        Self.holds(comparison, for: current)
    }

    /// Whether `current` passes the member comparison. Inlined where candidates are tested: it only reads,
    /// so a candidate is looked at where it is, not copied for a call.
    @inline(__always)
    private static func holds(_ comparison: MemberComparison, for current: WidgetValue) -> Bool {
        guard case .object(let object) = current, let position = Self.position(of: comparison.name, in: object) else {
            // Nothing: equal only to Nothing, which a literal is not.
            return comparison.op == .notEqual
        }
        if let literal = comparison.literalDouble, case .number(let number) = object.values[position],
            let value = WidgetNumber.fastDouble(number.text)
        {
            switch comparison.op {
            case .equal: return value == literal
            case .notEqual: return value != literal
            case .less: return value < literal
            case .greater: return value > literal
            case .lessOrEqual: return value <= literal
            case .greaterOrEqual: return value >= literal
            }
        }
        return compare(object.values[position], comparison)
    }

    /// `member op literal`, when the member is no number a `Double` holds exactly.
    private static func compare(_ member: WidgetValue, _ comparison: MemberComparison) -> Bool {
        compare(member, comparison.op, comparison.literal)
    }

    /// The value of a comparand; `nil` is the special result Nothing.
    private func evaluate(_ comparand: Comparand, current: WidgetValue) -> WidgetValue? {
        switch comparand {
        case .literal(let value):
            return value
        case .query(let query):
            let start = query.origin == .root ? root : current
            if let steps = query.singularSteps { return Self.singular(steps, from: start) }
            let nodes = values(query, current: current)
            return nodes.count == 1 ? .some(nodes[0]) : .none
        case .function(let call):
            return value(call, current: current)
        }
    }

    /// A ValueType function's result; `nil` is Nothing.
    private func value(_ call: FunctionCall, current: WidgetValue) -> WidgetValue? {
        switch call.function {
        case .length:
            guard case .value(let argument) = call.arguments[0] else { return nil }
            switch evaluate(argument, current: current) {
            case .string(let text): return .number(WidgetNumber(text.unicodeScalars.count))
            case .array(let elements): return .number(WidgetNumber(elements.count))
            case .object(let object): return .number(WidgetNumber(object.count))
            default: return nil
            }
        case .count:
            guard case .nodes(let query) = call.arguments[0] else { return nil }
            return .number(WidgetNumber(values(query, current: current).count))
        case .value:
            guard case .nodes(let query) = call.arguments[0] else { return nil }
            let nodes = values(query, current: current)
            return nodes.count == 1 ? .some(nodes[0]) : .none
        case .match, .search:
            return nil
        }
    }

    /// A LogicalType function's result.
    private func logical(_ call: FunctionCall, current: WidgetValue) -> Bool {
        guard call.function == .match || call.function == .search,
            case .value(let subject) = call.arguments[0],
            case .string(let text) = evaluate(subject, current: current)
        else { return false }
        if let compiled = call.compiledPattern {
            return compiled?.matches(text) ?? false
        }
        guard case .value(let patternArgument) = call.arguments[1],
            case .string(let pattern) = evaluate(patternArgument, current: current),
            let regexp = IRegexp.cached(pattern, anchored: call.function == .match)
        else { return false }
        return regexp.matches(text)
    }
}
