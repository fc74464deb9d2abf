public import WidgetJSON

/// How a template reads secrets (`env.NAME`, `secret.NAME`), checked when a definition is loaded.
///
/// Secrets are safe by construction: a template may read one only by a name known when the definition is
/// loaded — written literally (`env.TOKEN`, `env['TOKEN']`) or taken from the instance's parameters
/// (`env[params.tokenVariable]`) — and may only pass it on whole: the filters that may follow a secret
/// are ``secretKeepingFilters``. Anything else (`env[item.key]`, `{{ env }}`, `env.TOKEN | slice: 0, 4`,
/// `env.TOKEN.size`) is a problem that `validate` reports.
extension Template {
    /// The filters that may be applied to a value holding a secret: each keeps it whole (encoded, or with
    /// text around it).
    public static let secretKeepingFilters: Set<String> = [
        "url_encode", "base64_encode", "base64_url_safe_encode", "escape", "h", "append", "prepend", "default",
    ]

    /// The filters that may take a secret as an argument: `'Bearer ' | append: env.TOKEN`.
    static let secretArgumentFilters: Set<String> = ["append", "prepend", "default"]

    /// Where a template finds secrets: the root variable a secret is read from.
    ///
    /// The engine only knows these two names: a template that reads one is checked by the rules above, and
    /// one rendered with either in its ``TemplateScope/globals`` cannot render a partial. Who gives the
    /// values (environment variables, files) is the caller's concern.
    public enum SecretNamespace: String, Sendable, CaseIterable {
        /// `{{ env.NAME }}`: an environment variable.
        case env
        /// `{{ secret.NAME }}`: the file NAME in the secrets folder.
        case secret
    }

    /// How a secret's name is given.
    public enum SecretName: Sendable, Hashable {
        /// Written in the template.
        case literal(String)
        /// The instance parameter at this path (`params.a.b` is `["a", "b"]`).
        case parameter([String])

        /// The name for an instance with `params`, or `nil` when they do not give one as text.
        public func resolved(with params: WidgetObject) -> String? {
            switch self {
            case .literal(let name): return name
            case .parameter(let path):
                var value: WidgetValue = .object(params)
                for key in path {
                    guard let member = value.object?[key] else { return nil }
                    value = member
                }
                return value.string
            }
        }
    }

    /// One secret a template reads.
    public struct SecretUse: Sendable, Hashable {
        /// Where the secret is read from: `env` or `secret`.
        public var namespace: SecretNamespace
        /// The variable's name: written in the template, or taken from the instance's `params`.
        public var name: SecretName

        /// Creates a use from its namespace and name.
        public init(namespace: SecretNamespace, name: SecretName) {
            self.namespace = namespace
            self.name = name
        }
    }

    /// The secrets `nodes` read, and what they do with them that is not allowed: see ``secretUses``.
    static func secretUses(of nodes: [TemplateNode]) -> (uses: [SecretUse], problems: [String]) {
        var uses: [SecretUse] = []
        var problems: [String] = []
        var outputs: [Output] = []
        var tagReadsSecret = false
        TemplateNode.walk(nodes) { expression in
            if Self.mentionsSecret(expression) { tagReadsSecret = true }
        } output: { output in
            outputs.append(output)
        }
        if tagReadsSecret {
            problems.append(
                "a secret can be read only in an output tag {{ … }}, never in a tag's condition, loop, assign, capture or partial"
            )
        }
        var partials = 0
        TemplateNode.walkPartials(nodes) { _ in partials += 1 }
        if partials > 0 {
            problems.append("a template that may read secrets cannot render or include a partial; write it in the definition")
        }
        var bound: Set<String> = []
        TemplateNode.boundNames(nodes, into: &bound)
        for name in ["params", "env", "secret"] where bound.contains(name) {
            problems.append("a template that may read secrets cannot set '\(name)'; choose another name")
        }
        for output in outputs {
            var carries: String?
            switch Self.secretRead(output.expression) {
            case .none: break
            case .use(let use):
                uses.append(use)
                carries = use.display
            case .problem(let problem): problems.append(problem)
            }
            for call in output.calls {
                if let secret = carries, !Self.secretKeepingFilters.contains(call.name) {
                    problems.append("'\(call.name)' would change the secret \(secret); only \(Self.keepingList) may follow a secret")
                }
                let arguments = call.arguments + call.keywords.map(\.value)
                for argument in arguments {
                    switch Self.secretRead(argument) {
                    case .none: break
                    case .problem(let problem): problems.append(problem)
                    case .use(let use):
                        uses.append(use)
                        if Self.secretArgumentFilters.contains(call.name) {
                            carries = carries ?? use.display
                        } else {
                            problems.append(
                                "'\(call.name)' cannot take the secret \(use.display) as an argument; only append, prepend and default can")
                        }
                    }
                }
            }
        }
        return (uses, problems)
    }

    private static let keepingList = secretKeepingFilters.sorted().joined(separator: ", ")

    private enum SecretRead {
        case none
        case use(SecretUse)
        case problem(String)
    }

    private static func namespace(_ name: String) -> SecretNamespace? {
        SecretNamespace(rawValue: name)
    }

    /// Whether `expression` reads a secret root anywhere, or a root whose name is computed (`[name]`),
    /// which could be one.
    private static func mentionsSecret(_ expression: TemplateExpression) -> Bool {
        if hasComputedRoot(expression) { return true }
        var names: Set<String> = []
        expression.collectVariables(into: &names)
        return SecretNamespace.allCases.contains { names.contains($0.rawValue) }
    }

    /// Whether a variable anywhere in `expression` has a computed name: `[key]` with `key` not a literal.
    private static func hasComputedRoot(_ expression: TemplateExpression) -> Bool {
        switch expression {
        case .literal, .special:
            return false
        case .range(let start, let end):
            return hasComputedRoot(start) || hasComputedRoot(end)
        case .path(let root, let segments):
            if case .index(let key) = root {
                guard case .literal(.string) = key else { return true }
            }
            for case .index(let key) in segments where hasComputedRoot(key) { return true }
            return false
        }
    }

    private static func secretRead(_ expression: TemplateExpression) -> SecretRead {
        switch expression {
        case .literal, .special:
            return .none
        case .range(let start, let end):
            return mentionsSecret(start) || mentionsSecret(end)
                ? .problem("a secret cannot bound a range; use it only as a whole value") : .none
        case .path(let root, let segments):
            let rootName: String
            switch root {
            case .name(let name): rootName = name
            case .index(.literal(.string(let name))): rootName = name
            case .index:
                return .problem("a variable whose name is computed ([…]) could read a secret here; name the variable")
            }
            guard let namespace = namespace(rootName) else {
                for case .index(let key) in segments where mentionsSecret(key) {
                    return .problem("a secret cannot be used as a key; use it only as a whole value")
                }
                return .none
            }
            let example = "{{ \(rootName).NAME }}"
            guard let first = segments.first else {
                return .problem(
                    "{{ \(rootName) }} would show every \(namespace == .env ? "environment variable" : "secret"); name one: \(example)")
            }
            guard segments.count == 1 else {
                return .problem("nothing can be read from inside a secret (\(rootName).….…); use it whole: \(example)")
            }
            switch first {
            case .name(let name), .index(.literal(.string(let name))):
                return .use(SecretUse(namespace: namespace, name: .literal(name)))
            case .index(.path(root: .name("params"), let path)) where !path.isEmpty:
                var keys: [String] = []
                for segment in path {
                    switch segment {
                    case .name(let key), .index(.literal(.string(let key))): keys.append(key)
                    default:
                        return .problem(
                            "the name of a secret must be written (\(example)) or come from params ({{ \(rootName)[params.NAME] }})")
                    }
                }
                return .use(SecretUse(namespace: namespace, name: .parameter(keys)))
            default:
                return .problem(
                    "the name of a secret must be written (\(example)) or come from params ({{ \(rootName)[params.NAME] }}), never from data"
                )
            }
        }
    }
}

extension Template.SecretUse {
    /// `env.NAME` or `env[params.a]`, for messages.
    package var display: String {
        switch name {
        case .literal(let name): "\(namespace.rawValue).\(name)"
        case .parameter(let path): "\(namespace.rawValue)[params.\(path.joined(separator: "."))]"
        }
    }
}
