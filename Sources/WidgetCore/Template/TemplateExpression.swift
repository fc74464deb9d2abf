/// A parsed Liquid expression: a literal, a variable path or a range `(a..b)`.
///
/// Internal to the template engine; ``Template`` parses source text into these and evaluates them against a
/// ``TemplateScope``.
indirect enum TemplateExpression: Sendable, Hashable {
    /// A literal value (`'text'`, `42`, `true`, `nil`, `empty`).
    case literal(WidgetValue)
    /// A variable: a root looked up in the scope, then members and indexes.
    case path(root: PathSegment, segments: [PathSegment])
    /// An integer range `(start..end)`, inclusive.
    case range(TemplateExpression, TemplateExpression)
    /// `empty` or `blank`: the empty string when shown, and special in comparisons (`x == empty` is true for
    /// an empty string, array or object; `x == blank` also for `nil`, `false` and white space).
    case special(Special)

    /// The two special values of comparisons.
    enum Special: Sendable, Hashable {
        case empty
        case blank
    }

    /// One step of a variable path.
    enum PathSegment: Sendable, Hashable {
        /// `.name` or a bare root name.
        case name(String)
        /// `[expression]`.
        case index(TemplateExpression)
    }

    /// The root variable names this expression reads, including those inside brackets.
    func collectVariables(into names: inout Set<String>) {
        switch self {
        case .literal, .special:
            break
        case .range(let start, let end):
            start.collectVariables(into: &names)
            end.collectVariables(into: &names)
        case .path(let root, let segments):
            switch root {
            case .name(let name):
                names.insert(name)
            case .index(let expression):
                if case .literal(.string(let name)) = expression {
                    names.insert(name)
                } else {
                    expression.collectVariables(into: &names)
                }
            }
            for case .index(let expression) in segments { expression.collectVariables(into: &names) }
        }
    }
}

// MARK: - Evaluation

extension TemplateExpression {
    /// The largest range `(a..b)` evaluates to, so that a template cannot exhaust memory.
    static let maximumRangeCount = 100_000

    /// Evaluates the expression; missing data yields `.null`, as in Liquid.
    func evaluate(in scope: TemplateScope, state: TemplateRenderState? = nil) throws(ExpressionError) -> WidgetValue {
        switch self {
        case .literal(let value):
            return value
        case .special:
            return .string("")
        case .range(let startExpression, let endExpression):
            let start = LiquidValue.integer(try startExpression.evaluate(in: scope, state: state))
            let end = LiquidValue.integer(try endExpression.evaluate(in: scope, state: state))
            guard start <= end else { return .array([]) }
            let (span, overflow) = end.subtractingReportingOverflow(start)
            guard !overflow, span < TemplateExpression.maximumRangeCount else {
                throw ExpressionError(
                    "the range (\(start)..\(end)) has more than \(TemplateExpression.maximumRangeCount) numbers")
            }
            return .array((start...end).map { .number(WidgetNumber($0)) })
        case .path(let root, let segments):
            var value: WidgetValue
            switch root {
            case .name(let name):
                value = state?.lookup(name) ?? scope.lookup(name)
            case .index(let expression):
                guard case .string(let name) = try expression.evaluate(in: scope, state: state) else { return .null }
                value = state?.lookup(name) ?? scope.lookup(name)
            }
            for segment in segments {
                switch segment {
                case .name(let name):
                    value = TemplateExpression.member(name, of: value)
                case .index(let expression):
                    let key = try expression.evaluate(in: scope, state: state)
                    switch key {
                    case .string(let name):
                        value = TemplateExpression.member(name, of: value)
                    case .number(let number):
                        guard let position = number.int, number.isInteger else { return .null }
                        value = value[position] ?? .null
                    default:
                        return .null
                    }
                }
                if value.isNull { return .null }
            }
            return value
        }
    }

    /// A member of an object, or the `size`, `first` and `last` properties Liquid gives arrays, strings and
    /// objects that have no member of that name.
    static func member(_ name: String, of value: WidgetValue) -> WidgetValue {
        switch value {
        case .object(let object):
            if let member = object[name] { return member }
            switch name {
            case "size": return .number(WidgetNumber(object.count))
            case "first":
                guard let key = object.keys.first, let first = object[key] else { return .null }
                return .array([.string(key), first])
            default: return .null
            }
        case .array(let array):
            switch name {
            case "size": return .number(WidgetNumber(array.count))
            case "first": return array.first ?? .null
            case "last": return array.last ?? .null
            default: return .null
            }
        case .string(let string):
            return name == "size" ? .number(WidgetNumber(string.count)) : .null
        default:
            return .null
        }
    }
}
