import WidgetJSON

extension Template {
    /// The members the template reads from the root variable `root` by a name written in it:
    /// `{{ params.city }}`, `{{ params['city'] | upcase }}` and `{% if params.city %}` give `["city"]`.
    /// A member whose name is computed (`params[key]`) is not listed, nor `root` read whole.
    ///
    /// ```swift
    /// try Template("{{ params.city }}, {{ params['country'] }}").members(of: "params") // ["city", "country"]
    /// ```
    public func members(of root: String) -> Set<String> {
        var members: Set<String> = []
        TemplateNode.walk(nodes) { expression in
            expression.collectMembers(of: root, into: &members)
        } output: { output in
            output.forEachExpression { $0.collectMembers(of: root, into: &members) }
        }
        return members
    }

    /// The members of `root` (as ``members(of:)`` finds them) that every render reads unguarded: in an
    /// output tag at the top of the template (not inside an `if`, a loop or a `case`, which may skip
    /// it) whose first filter is not `default`, or in its filters' arguments. With strict variables, a
    /// render where one of them is missing fails; a loader checks with it that every name is given
    /// (an instance's `params`, say).
    ///
    /// ```swift
    /// try Template("{{ params.city }}{% if params.zip %}{{ params.zip }}{% endif %}").requiredMembers(of: "params")  // ["city"]
    /// ```
    public func requiredMembers(of root: String) -> Set<String> {
        var members: Set<String> = []
        for case .output(let output) in nodes {
            if output.calls.first?.name != "default" { output.expression.collectMembers(of: root, into: &members) }
            for call in output.calls {
                for argument in call.arguments { argument.collectMembers(of: root, into: &members) }
                for keyword in call.keywords { keyword.value.collectMembers(of: root, into: &members) }
            }
        }
        return members
    }
}

extension TemplateExpression {
    /// Adds to `members` the names read by a literal first step from the root variable `root`, here and
    /// inside brackets and ranges.
    fileprivate func collectMembers(of root: String, into members: inout Set<String>) {
        switch self {
        case .literal, .special:
            break
        case .range(let start, let end):
            start.collectMembers(of: root, into: &members)
            end.collectMembers(of: root, into: &members)
        case .path(let first, let segments):
            var rootName: String?
            switch first {
            case .name(let name): rootName = name
            case .index(.literal(.string(let name))): rootName = name
            case .index(let key): key.collectMembers(of: root, into: &members)
            }
            if rootName == root, let step = segments.first {
                switch step {
                case .name(let member): members.insert(member)
                case .index(.literal(.string(let member))): members.insert(member)
                case .index: break
                }
            }
            for case .index(let key) in segments { key.collectMembers(of: root, into: &members) }
        }
    }
}
