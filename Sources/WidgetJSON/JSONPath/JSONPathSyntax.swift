/// The compiled form of a JSONPath query (RFC 9535 §2.1): where it starts and its segments.
///
/// Built once by ``JSONPathParser`` and then only read, so it can be shared between threads.
struct JSONPathQuery: Sendable {
    /// The node a query starts from: `$` (the root) or `@` (the current node inside a filter).
    enum Origin: Sendable {
        case root
        case current
    }

    /// One step of a singular query: a name or an index.
    enum SingularStep: Sendable {
        case name(String)
        case index(Int)
    }

    var origin: Origin
    var segments: [JSONPathSegment]
    /// The steps when every segment is a child segment with one name or index selector (§2.3.5.1);
    /// `nil` otherwise. Singular queries are evaluated by direct lookups.
    var singularSteps: [SingularStep]?

    init(origin: Origin, segments: [JSONPathSegment]) {
        self.origin = origin
        self.segments = segments
        var steps: [SingularStep] = []
        for segment in segments {
            guard !segment.isDescendant, segment.selectors.count == 1 else {
                singularSteps = nil
                return
            }
            switch segment.selectors[0] {
            case .name(let name): steps.append(.name(name))
            case .index(let index): steps.append(.index(index))
            default:
                singularSteps = nil
                return
            }
        }
        singularSteps = steps
    }

    var isSingular: Bool { singularSteps != nil }
}

/// A child segment (`[…]`, `.name`, `.*`) or a descendant segment (`..[…]`, `..name`, `..*`).
struct JSONPathSegment: Sendable {
    var isDescendant: Bool
    var selectors: [JSONPathSelector]
}

/// One selector inside a segment (RFC 9535 §2.3).
enum JSONPathSelector: Sendable {
    case name(String)
    case wildcard
    case index(Int)
    case slice(start: Int?, end: Int?, step: Int?)
    case filter(FilterExpression)
}

/// A logical expression: what follows `?` in a filter selector (RFC 9535 §2.3.5).
indirect enum FilterExpression: Sendable {
    case or([FilterExpression])
    case and([FilterExpression])
    case not(FilterExpression)
    /// An existence test: true when the query selects at least one node.
    case exists(JSONPathQuery)
    /// A function whose result is a LogicalType (`match`, `search`).
    case logicalFunction(FunctionCall)
    case comparison(Comparand, ComparisonOperator, Comparand)
    /// `@.name OP literal` (or `literal OP @.name`, turned around): the commonest filter, tested by one
    /// lookup rather than by evaluating a query. Means what the `comparison` it stands for means.
    case memberComparison(MemberComparison)
}

/// `==`, `!=`, `<`, `<=`, `>`, `>=`.
enum ComparisonOperator: String, Sendable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
}

/// One side of a comparison, or a ValueType function argument: a literal, a singular query or a
/// function returning a ValueType.
enum Comparand: Sendable {
    case literal(WidgetValue)
    case query(JSONPathQuery)
    case function(FunctionCall)
}

/// An argument of a function extension, already checked against the parameter's declared type.
enum FunctionArgument: Sendable {
    /// For a ValueType parameter.
    case value(Comparand)
    /// For a NodesType parameter.
    case nodes(JSONPathQuery)
}

/// A call of one of the function extensions of RFC 9535 §2.4.
struct FunctionCall: Sendable {
    var function: JSONPathFunction
    var arguments: [FunctionArgument]
    /// For `match` and `search` with a literal pattern: the pattern compiled at parse time, or `nil`
    /// when the literal is not a valid I-Regexp (the function is then always false).
    var compiledPattern: IRegexp??
}

/// The function extensions of RFC 9535 §2.4 and their types (§2.4.1).
enum JSONPathFunction: String, Sendable, CaseIterable {
    case length
    case count
    case match
    case search
    case value

    /// The declared types of the function's expressions.
    enum ParameterType: Sendable {
        case value
        case logical
        case nodes
    }

    var parameters: [ParameterType] {
        switch self {
        case .length: [.value]
        case .count: [.nodes]
        case .match, .search: [.value, .value]
        case .value: [.nodes]
        }
    }

    var resultType: ParameterType {
        switch self {
        case .length, .count, .value: .value
        case .match, .search: .logical
        }
    }
}

/// A member of the current node compared with a literal (see ``FilterExpression/memberComparison(_:)``);
/// a class, so that testing it costs one reference count, not one per part.
final class MemberComparison: Sendable {
    /// The member's name.
    let name: String
    /// The operator, with the member on its left.
    let op: ComparisonOperator
    let literal: WidgetValue
    /// The literal as a `Double` when that is exact (see `WidgetNumber.fastDouble`), for number members.
    let literalDouble: Double?

    init(name: String, op: ComparisonOperator, literal: WidgetValue) {
        self.name = name
        self.op = op
        self.literal = literal
        if case .number(let number) = literal { literalDouble = WidgetNumber.fastDouble(number.text) } else { literalDouble = nil }
    }

    /// The comparison `left op right` as a member comparison, when it is one.
    static func make(_ left: Comparand, _ op: ComparisonOperator, _ right: Comparand) -> MemberComparison? {
        func member(_ comparand: Comparand) -> String? {
            guard case .query(let query) = comparand, query.origin == .current, let steps = query.singularSteps,
                steps.count == 1, case .name(let name) = steps[0]
            else { return nil }
            return name
        }
        if let name = member(left), case .literal(let value) = right {
            return MemberComparison(name: name, op: op, literal: value)
        }
        if let name = member(right), case .literal(let value) = left {
            let turned: ComparisonOperator =
                switch op {
                case .less: .greater
                case .greater: .less
                case .lessOrEqual: .greaterOrEqual
                case .greaterOrEqual: .lessOrEqual
                case .equal, .notEqual: op
                }
            return MemberComparison(name: name, op: turned, literal: value)
        }
        return nil
    }
}
