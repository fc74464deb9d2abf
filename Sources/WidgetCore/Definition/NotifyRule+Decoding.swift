public import WidgetJSON
public import WidgetLiquid

// MARK: - Scopes

extension NotifyRule {
    /// Whether `name` may name a rule: 1 to 64 ASCII letters, digits, `.`, `_` or `-` (it appears in log
    /// lines, metrics' labels and the outbox's keys).
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default: byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                }
            }
    }

    /// The triggers `on` may name.
    public static let triggerKinds = ["status", "change", "condition"]

    /// The statuses `to` may name: those a widget is served with.
    public static let statuses = ["fresh", "cached", "stale", "placeholder"]

    /// The names a body and a condition read: what the widget is and what happened, never secrets.
    ///
    /// `widget` (`id`, `title`, `timeZone`), `params`, `status`, `previousStatus`, `error`, `entry`
    /// (`date`, `content`), `value` (the entry's content, or `null`), `change` (`rule`, `on`, `path`, `from`,
    /// `to`, `reason`), `history` (see the definition's `history`) and `now`.
    public static let bodyNames = [
        "widget", "params", "status", "previousStatus", "error", "entry", "value", "change", "history", "now",
    ]

    /// The names a webhook's `url` and `headers` read: who the widget is, and the secrets, never data.
    ///
    /// `notification` is `{"id", "rule"}`: the id is the one sent as `Idempotency-Key`, for a target that
    /// wants it in the address (Matrix's transaction id).
    public static let addressNames = ["widget", "params", "env", "secret", "notification"]

    /// The condition `text`, written as inside `{% if … %}`, as a template that renders `true` when it
    /// holds and nothing otherwise (see `Template.test`).
    ///
    /// - Throws: `ExpressionError` with the column in `text` of what does not parse.
    public static func conditionTemplate(_ text: String, filters: FilterRegistry = .standard) throws(ExpressionError) -> Template {
        if text.hasTemplateMarkup || text.contains("%}") || text.contains("}}") {
            throw ExpressionError(
                "a condition is written without {% %} or {{ }}", column: 1, hint: "write it as inside {% if %}, e.g. \"value.total < 1000\""
            )
        }
        do throws(ExpressionError) {
            return try Template(conditionPrefix + text + conditionSuffix, filters: filters)
        } catch {
            var error = error
            if let column = error.column { error.column = min(max(1, column - conditionPrefix.count), max(1, text.count)) }
            throw error
        }
    }

    /// The condition as written, from the template ``conditionTemplate(_:filters:)`` made of it.
    public static func conditionText(of template: Template) -> String {
        let source = template.source
        guard source.hasPrefix(conditionPrefix), source.hasSuffix(conditionSuffix) else { return source }
        return String(source.dropFirst(conditionPrefix.count).dropLast(conditionSuffix.count))
    }

    private static let conditionPrefix = "{% if "
    private static let conditionSuffix = " %}true{% endif %}"
}

// MARK: - The keys

extension NotifyRule: DescribedOptions {
    public enum CodingKeys: String, DescribedKey {
        case name, on, to, path
        case condition = "if"
        case webhook

        public var keyDescription: KeyDescription {
            switch self {
            case .name:
                KeyDescription(
                    "The rule's name, unique in the definition: shown in logs, status and the notification's change.rule; required when there are several rules; notify-1 for a single rule without one.",
                    .string(pattern: "^[A-Za-z0-9_.-]{1,64}$"))
            case .on:
                KeyDescription(
                    "What fires the rule: the status changed, the value at \"path\" changed, or the condition \"if\" became true.",
                    .oneOf(NotifyRule.triggerKinds), required: true)
            case .to:
                KeyDescription(
                    "With \"on\": \"status\", only a change to one of these statuses fires; any change when absent.",
                    .array(.oneOf(NotifyRule.statuses), minItems: 1))
            case .path:
                KeyDescription(
                    "With \"on\": \"change\", the JSONPath into the content of the current entry whose value is watched.", .jsonPath)
            case .condition:
                KeyDescription(
                    "With \"on\": \"condition\", a Liquid condition as written inside {% if %}, over value, status, history, …",
                    .string(examples: ["value.total < 1000 and status == 'fresh'"]))
            case .webhook:
                KeyDescription("Where the notification is sent: an HTTP request.", .object(Webhook.shape), required: true)
            }
        }
    }
}

extension NotifyRule.Webhook: DescribedOptions {
    public enum CodingKeys: String, DescribedKey {
        case url, method, headers, body

        public var keyDescription: KeyDescription {
            switch self {
            case .url:
                KeyDescription(
                    "The address: a template that reads widget, params, env, secret and notification (id, rule), rendered when sent.",
                    .template, required: true, secrets: true)
            case .method:
                KeyDescription("The request's method.", .oneOf(["POST", "PUT"]), default: "POST")
            case .headers:
                KeyDescription(
                    "Headers, each value a template that reads what the url reads (secrets too).", .map(.template), secrets: true)
            case .body:
                KeyDescription(
                    "The body: a template sent as text/plain, or a JSON object or array whose strings are templates, sent as application/json. It reads widget, params, status, previousStatus, error, entry, value, change, history and now, never secrets.",
                    .either([.template, .map(.any), .array(.any)]), required: true)
            }
        }
    }
}

// MARK: - Decoding

/// `notify`: an array of rules with distinct names.
struct NotifyRules: Decodable {
    var list: [NotifyRule] = []

    init(from decoder: any Decoder) throws {
        let decoder = try ValueDecoder(decoder)
        guard case .array(let elements) = decoder.value else {
            throw OptionsError(
                path: decoder.path,
                message:
                    "\"notify\" must be an array of rules such as [{\"on\": \"status\", \"webhook\": {\"url\": \"https://…\", \"body\": \"{{ status }}\"}}]"
            )
        }
        var seen: Set<String> = []
        for (index, element) in elements.enumerated() {
            let member = decoder.child(element, index: index)
            // What a rule last saw is kept by its name: a name made from its position would be lost when
            // the rules are reordered.
            if elements.count > 1, case .object(let object) = element, object["name"] == nil {
                try decoder.report(
                    OptionsError(
                        path: member.path,
                        message:
                            "this rule has no \"name\"; with several rules each needs one (what a rule last saw is kept by its name), add e.g. \"name\": \"rule-\(index + 1)\""
                    ))
                continue
            }
            guard let rule = try decoder.recovering({ try NotifyRule(reading: member, index: index) }) else { continue }
            guard seen.insert(rule.name).inserted else {
                try decoder.report(
                    OptionsError(
                        path: member.path.appending("name"),
                        message: "the rule name \"\(rule.name)\" is used twice; give each rule its own \"name\""))
                continue
            }
            list.append(rule)
        }
    }
}

extension NotifyRule {
    /// Reads the rule at `index` of `notify`; `nil` when a problem (reported) leaves it unusable.
    init?(reading decoder: ValueDecoder, index: Int) throws {
        let members = try DescribedMembers(decoder, keyedBy: CodingKeys.self) { type in
            "a rule must be an object such as {\"on\": \"status\", \"webhook\": {…}}, not \(type)"
        }
        let name = try members.string(.name, what: "the rule's name") ?? "notify-\(index + 1)"
        if !Self.isValidName(name) {
            try members.report(.name, "\"\(name)\" is not a rule name; use 1 to 64 letters, digits, '.', '_' or '-', e.g. \"down\"")
        }
        let kinds = NotifyRule.triggerKinds
        var trigger: Trigger?
        let on = try members.string(.on, what: "\"on\"")
        switch on {
        case nil:
            if !members.contains(.on) {
                try members.report(
                    nil, "the rule has no \"on\"; add \"on\": \"status\", \"change\" (with \"path\") or \"condition\" (with \"if\")")
            }
        case "status":
            trigger = try Self.statusTrigger(members)
        case "change":
            trigger = try Self.changeTrigger(members)
        case "condition":
            trigger = try Self.conditionTrigger(members)
        case let other?:
            let hint = Suggestion.hint(for: other, among: kinds) ?? "use \"status\", \"change\" or \"condition\""
            try members.report(.on, "\"\(other)\" is not a trigger; \(hint)")
        }
        if on != nil, on != "status", members.contains(.to) {
            try members.report(.to, "\"to\" is read only with \"on\": \"status\"; remove it", atKey: true)
        }
        if on != nil, on != "change", members.contains(.path) {
            try members.report(.path, "\"path\" is read only with \"on\": \"change\"; remove it or write \"on\": \"change\"", atKey: true)
        }
        if on != nil, on != "condition", members.contains(.condition) {
            try members.report(
                .condition, "\"if\" is read only with \"on\": \"condition\"; remove it or write \"on\": \"condition\"", atKey: true)
        }
        var webhook: Webhook?
        if let written = members.value(.webhook) {
            let member = members.decoder.child(written, key: CodingKeys.webhook)
            webhook = try members.decoder.recovering { try Webhook(reading: member) }
        } else {
            try members.report(
                nil,
                "the rule has no \"webhook\"; add e.g. \"webhook\": {\"url\": \"https://ntfy.sh/TOPIC\", \"body\": \"{{ widget.title }} is {{ status }}\"}"
            )
        }
        guard let trigger, let webhook else { return nil }
        self.init(name: name, trigger: trigger, webhook: webhook)
    }

    private static func statusTrigger(_ members: DescribedMembers<CodingKeys>) throws -> Trigger? {
        guard let written = members.value(.to) else { return .status(to: []) }
        guard case .array(let elements) = written, !elements.isEmpty else {
            try members.report(.to, "\"to\" must be a non-empty list of statuses, e.g. [\"stale\", \"placeholder\"]")
            return nil
        }
        var statuses: [String] = []
        for (index, element) in elements.enumerated() {
            guard let status = element.string, NotifyRule.statuses.contains(status) else {
                let shown = element.string.map { "\"\($0)\"" } ?? element.typeName
                let hint =
                    element.string.flatMap { Suggestion.hint(for: $0, among: NotifyRule.statuses) }
                    ?? "use " + NotifyRule.statuses.map { "\"\($0)\"" }.joined(separator: ", ")
                try members.decoder.report(
                    OptionsError(path: members.path(.to).appending(index: index), message: "\(shown) is not a status; \(hint)"))
                return nil
            }
            if !statuses.contains(status) { statuses.append(status) }
        }
        return .status(to: statuses)
    }

    private static func changeTrigger(_ members: DescribedMembers<CodingKeys>) throws -> Trigger? {
        guard let text = try members.string(.path, what: "\"path\"") else {
            if !members.contains(.path) {
                try members.report(nil, "a rule with \"on\": \"change\" needs \"path\", the value to watch; add e.g. \"path\": \"$.price\"")
            }
            return nil
        }
        do throws(ExpressionError) {
            return .change(path: try JSONPath(text))
        } catch {
            try members.report(.path, "\"\(text)\" is not a JSONPath: \(error.description); write e.g. \"$.price\"", column: error.column)
            return nil
        }
    }

    private static func conditionTrigger(_ members: DescribedMembers<CodingKeys>) throws -> Trigger? {
        guard let text = try members.string(.condition, what: "\"if\"") else {
            if !members.contains(.condition) {
                try members.report(
                    nil, "a rule with \"on\": \"condition\" needs \"if\", a Liquid condition; add e.g. \"if\": \"value.total < 1000\"")
            }
            return nil
        }
        let template: Template
        do throws(ExpressionError) {
            template = try NotifyRule.conditionTemplate(text, filters: members.decoder.tracker.filters)
        } catch {
            try members.report(.condition, "the condition does not parse: \(error.description)", column: error.column)
            return nil
        }
        try checkNames(template.freeVariables, allowed: NotifyRule.bodyNames, in: "a condition", members: members, key: .condition)
        return .condition(template)
    }

    /// Reports each name of `names` that is not `allowed` in `place`, secrets with their own sentence.
    static func checkNames<Key: DescribedKey>(
        _ names: Set<String>, allowed: [String], in place: String, members: DescribedMembers<Key>, key: Key, fix: String? = nil
    ) throws {
        for name in names.sorted() where !allowed.contains(name) {
            if Template.SecretNamespace(rawValue: name) != nil {
                try members.report(
                    key,
                    "\(place) never sees secrets ({{ \(name).… }}): it is kept in the widget's state; read secrets only in the webhook's \"url\" and \"headers\""
                )
            } else {
                let hint =
                    Suggestion.hint(for: name, among: allowed)
                    ?? "here templates read " + allowed.joined(separator: ", ") + (fix.map { "; \($0)" } ?? "")
                try members.report(key, "\(place) reads '\(name)', which is not in scope here; \(hint)")
            }
        }
    }
}

extension NotifyRule.Webhook {
    /// Reads `webhook`; `nil` when a problem (reported) leaves it unusable.
    init?(reading decoder: ValueDecoder) throws {
        let members = try DescribedMembers(decoder, keyedBy: CodingKeys.self) { type in
            "\"webhook\" must be an object such as {\"url\": \"https://…\", \"body\": \"{{ status }}\"}, not \(type)"
        }
        let url = try members.template(.url)
        if let url {
            try NotifyRule.checkNames(
                url.freeVariables, allowed: NotifyRule.addressNames, in: "the url", members: members, key: .url,
                fix: "put data in the \"body\"")
        } else if !members.contains(.url) {
            try members.report(nil, "the webhook has no \"url\"; add e.g. \"url\": \"https://ntfy.sh/TOPIC\"")
        }
        var method = "POST"
        if let written = try members.string(.method, what: "\"method\"") {
            if ["POST", "PUT"].contains(written.uppercased()) {
                method = written.uppercased()
            } else {
                try members.report(.method, "\"\(written)\" is not a webhook method; use \"POST\" (the default) or \"PUT\"")
            }
        }
        let headers = try Self.headers(members)
        let body = try Self.body(members)
        guard let url, let body else { return nil }
        self.init(url: url, method: method, headers: headers, body: body)
    }

    private static func headers(_ members: DescribedMembers<CodingKeys>) throws -> [NotifyRule.Header] {
        guard let written = members.value(.headers) else { return [] }
        guard case .object(let object) = written else {
            try members.report(.headers, "\"headers\" must be an object of names and templates, e.g. {\"Title\": \"{{ widget.title }}\"}")
            return []
        }
        var headers: [NotifyRule.Header] = []
        let decoder = members.decoder.child(written, key: CodingKeys.headers)
        for (name, value) in object {
            let path = decoder.path.appending(name)
            guard case .string(let text) = value else {
                try decoder.report(
                    OptionsError(path: path, message: "the header \"\(name)\" must be a string (a template), not \(value.typeName)"))
                continue
            }
            if name.isEmpty || !name.utf8.allSatisfy(Self.isTokenByte) {
                try decoder.report(
                    OptionsError(path: path, message: "\"\(name)\" is not a header name; use letters, digits and '-'", pointsAtKey: true))
                continue
            }
            let template: Template
            do throws(ExpressionError) {
                template = try Self.compile(text, decoder: decoder)
            } catch {
                try decoder.report(OptionsError(path: path, message: error.description, expressionColumn: error.column))
                continue
            }
            for name in template.freeVariables.sorted() where !NotifyRule.addressNames.contains(name) {
                try decoder.report(
                    OptionsError(
                        path: path,
                        message:
                            "a header reads '\(name)', which is not in scope here: headers read only \(NotifyRule.addressNames.joined(separator: ", ")); put data in the \"body\""
                    ))
            }
            headers.append(NotifyRule.Header(name: name, value: template))
        }
        return headers
    }

    private static func body(_ members: DescribedMembers<CodingKeys>) throws -> NotifyRule.Body? {
        guard let written = members.value(.body) else {
            try members.report(
                nil,
                "the webhook has no \"body\"; add e.g. \"body\": \"{{ widget.title }} is {{ status }}\" or a JSON object such as {\"text\": \"…\"}"
            )
            return nil
        }
        let body: NotifyRule.Body
        switch written {
        case .string:
            guard let template = try members.template(.body) else { return nil }
            body = .text(template)
        case .object, .array:
            guard let tree = try members.decode(.body, as: TemplateTree.self) else { return nil }
            body = .json(tree)
        default:
            try members.report(
                .body,
                "\"body\" must be a template (a string) or a JSON object or array, not \(written.typeName); write e.g. \"{{ status }}\"")
            return nil
        }
        let names: Set<String>
        switch body {
        case .text(let template): names = template.freeVariables
        case .json(let tree): names = tree.freeVariables
        }
        // Secrets in a body are reported by the reader's check of every template, with the others.
        let data = names.filter { Template.SecretNamespace(rawValue: $0) == nil }
        try NotifyRule.checkNames(data, allowed: NotifyRule.bodyNames, in: "the body", members: members, key: .body)
        return body
    }

    private static func compile(_ text: String, decoder: ValueDecoder) throws(ExpressionError) -> Template {
        if let cache = decoder.tracker.templates { return try cache.template(text) }
        return try Template(text, filters: decoder.tracker.filters)
    }

    /// Whether `byte` may be in a header's name (RFC 9110's `token`).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
