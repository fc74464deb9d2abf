import WidgetJSON

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

    /// Evaluates the expression; missing data yields `.null`, as in Liquid, or fails when the scope has
    /// ``TemplateScope/strictVariables`` and the read is not `guarded`.
    func evaluate(in scope: TemplateScope, state: TemplateRenderState? = nil, guarded: Bool = false) throws(ExpressionError)
        -> WidgetValue
    {
        switch self {
        case .literal(let value):
            return value
        case .special:
            return .string("")
        case .range(let startExpression, let endExpression):
            let start = LiquidValue.integer(try startExpression.evaluate(in: scope, state: state, guarded: guarded))
            let end = LiquidValue.integer(try endExpression.evaluate(in: scope, state: state, guarded: guarded))
            guard start <= end else { return .array([]) }
            let (span, overflow) = end.subtractingReportingOverflow(start)
            guard !overflow, span < TemplateExpression.maximumRangeCount else {
                throw ExpressionError(
                    "the range (\(start)..\(end)) has more than \(TemplateExpression.maximumRangeCount) numbers")
            }
            try scope.steps?.spend(span + 1)
            return .array((start...end).map { .number(WidgetNumber($0)) })
        case .path(let root, let segments):
            let strict = scope.strictVariables && !guarded
            var value: WidgetValue
            let rootName: String
            switch root {
            case .name(let name):
                rootName = name
            case .index(let expression):
                guard case .string(let name) = try expression.evaluate(in: scope, state: state, guarded: guarded) else {
                    return .null
                }
                rootName = name
            }
            if let found = state?.lookup(rootName) ?? scope.find(rootName) {
                value = found
            } else if strict {
                throw Self.unknownVariable(rootName, scope: scope, state: state)
            } else {
                return .null
            }
            for (position, segment) in segments.enumerated() {
                // The path as written so far, for an error only: never built while reading succeeds.
                func shown() -> String {
                    Self.written(rootName, segments[..<position], in: scope, state: state, guarded: guarded)
                }
                if strict, value.isNull {
                    let path = shown()
                    throw ExpressionError(
                        "'\(path)' is nil, so it has no \(Self.describe(segment))",
                        hint: "guard it: {% if \(path) %}…{% endif %}, or {{ \(path)\(Self.written(segment)) | default: … }}")
                }
                switch segment {
                case .name(let name):
                    guard let member = try Self.member(name, of: value, shown: shown, strict: strict) else { return .null }
                    value = member
                case .index(let expression):
                    let key = try expression.evaluate(in: scope, state: state, guarded: guarded)
                    switch key {
                    case .string(let name):
                        guard let member = try Self.member(name, of: value, shown: shown, strict: strict) else { return .null }
                        value = member
                    case .number(let number):
                        if let position = number.int, number.isInteger, let element = value[position] {
                            value = element
                        } else if strict {
                            let path = shown()
                            throw ExpressionError(
                                "'\(path)' has no element [\(number.text)]"
                                    + (value.array.map { " (it has \($0.count))" } ?? " (it is \(LiquidValue.describe(value)))"),
                                hint: "guard it: {% if \(path).size > \(number.text) %}, or add | default: …")
                        } else {
                            return .null
                        }
                    default:
                        if strict {
                            throw ExpressionError(
                                "'\(shown())' cannot be indexed by \(LiquidValue.describe(key))",
                                hint: "index a list by a number and an object by a name")
                        }
                        return .null
                    }
                }
                if !strict, value.isNull { return .null }
            }
            return value
        }
    }

    /// The member `name` of `value` (`shown` gives how the template wrote `value`): `nil` when it is
    /// missing and variables are not `strict`, an error naming it when they are.
    private static func member(_ name: String, of value: WidgetValue, shown: () -> String, strict: Bool)
        throws(ExpressionError) -> WidgetValue?
    {
        if let member = memberIfPresent(name, of: value) { return member }
        if strict { throw missingMember(name, of: value, shown: shown()) }
        return nil
    }

    /// `root` and `segments` as the template reads them, each computed key as its value (`a['b'][2]`), for
    /// errors.
    private static func written(
        _ root: String, _ segments: ArraySlice<PathSegment>, in scope: TemplateScope, state: TemplateRenderState?,
        guarded: Bool
    ) -> String {
        var text = root
        for segment in segments {
            switch segment {
            case .name(let name):
                text += "." + name
            case .index(let expression):
                switch try? expression.evaluate(in: scope, state: state, guarded: guarded) {
                case .string(let name)?: text += "['\(name)']"
                case .number(let number)?: text += "[\(number.text)]"
                default: text += "[…]"
                }
            }
        }
        return text
    }

    private static func describe(_ segment: PathSegment) -> String {
        switch segment {
        case .name(let name): "member '\(name)'"
        case .index(.literal(.string(let name))): "member '\(name)'"
        case .index(.literal(.number(let number))): "element [\(number.text)]"
        case .index: "element"
        }
    }

    private static func written(_ segment: PathSegment) -> String {
        switch segment {
        case .name(let name): ".\(name)"
        case .index(.literal(.string(let name))): "['\(name)']"
        case .index(.literal(.number(let number))): "[\(number.text)]"
        case .index: "[…]"
        }
    }

    private static func unknownVariable(_ name: String, scope: TemplateScope, state: TemplateRenderState?) -> ExpressionError {
        var names = scope.names
        if let state {
            for frame in state.frames { names += frame.keys }
            names += state.counters.keys
        }
        if name == "env" || name == "secret" {
            return ExpressionError(
                "there is no variable '\(name)'", hint: "secrets are read only in a source's url, headers and body")
        }
        let suggestion = Suggestion.hint(for: name, among: names)
        return ExpressionError(
            "there is no variable '\(name)'",
            hint: suggestion ?? "the names here are \(Set(names).sorted().prefix(12).joined(separator: ", ")); "
                + "guard an optional one with | default: … or {% if \(name) %}")
    }

    private static func missingMember(_ name: String, of value: WidgetValue, shown: String) -> ExpressionError {
        guard case .object(let object) = value else {
            return ExpressionError(
                "'\(shown)' is \(LiquidValue.describe(value)), which has no member '\(name)'",
                hint: value.array != nil ? "lists have size, first and last, and [index]" : nil)
        }
        guard !object.isEmpty else { return ExpressionError("'\(shown)' has no member '\(name)'", hint: "it has no members") }
        let suggestion = Suggestion.hint(for: name, among: Array(object.keys))
        return ExpressionError(
            "'\(shown)' has no member '\(name)'",
            hint: suggestion ?? "its members are \(object.keys.prefix(12).joined(separator: ", ")); "
                + "guard an optional one with | default: … or {% if \(shown).\(name) %}")
    }

    /// A member, or the `size`, `first` and `last` properties, or `nil` when the value has none of that
    /// name.
    static func memberIfPresent(_ name: String, of value: WidgetValue) -> WidgetValue? {
        switch value {
        // Each `nil` here is Optional's: WidgetValue is ExpressibleByNilLiteral, so a `? :` would make it `.null`.
        case .object(let object):
            if let member = object[name] { return member }
            guard name == "size" || name == "first" else { return nil }
        case .array:
            guard ["size", "first", "last"].contains(name) else { return nil }
        case .string:
            guard name == "size" else { return nil }
        default:
            return nil
        }
        return member(name, of: value)
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
