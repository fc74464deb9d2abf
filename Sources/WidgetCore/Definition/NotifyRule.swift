public import WidgetJSON
public import WidgetLiquid

/// One entry of a definition's `notify`: when a notification is due, and where it goes.
///
/// ```json
/// "notify": [
///   {"name": "down", "on": "status", "to": ["stale", "placeholder"],
///    "webhook": {"url": "https://ntfy.sh/{{ secret.NTFY_TOPIC }}", "body": "{{ widget.title }} is {{ status }}"}}
/// ]
/// ```
///
/// A rule fires on an edge, never on a level: the status changing, the value at a path changing, or a
/// condition turning true. What it last saw is kept with the widget's state, so a change is sent once,
/// even across a crash or a restart.
public struct NotifyRule: Sendable, Hashable {
    /// When the rule fires.
    public enum Trigger: Sendable, Hashable {
        /// The served status (`fresh`, `cached`, `stale`, `placeholder`) changed; only to one of `to` when
        /// it is not empty.
        case status(to: [String])
        /// The value at `path`, in the content of the entry current at the refresh, changed.
        case change(path: JSONPath)
        /// `condition`, a Liquid condition as written inside `{% if … %}`, became true: it is true now and
        /// was false, or had never been evaluated.
        case condition(Template)

        /// The trigger's kind, as `on` writes it: `status`, `change` or `condition`.
        public var kind: String {
            switch self {
            case .status: "status"
            case .change: "change"
            case .condition: "condition"
            }
        }

        /// What the rule watches, in words that change when the trigger does (`status`, `change $.price`,
        /// `condition value.total < 1000`): a rule whose trigger changed on a reload starts again, as if
        /// it had seen nothing.
        public var watched: String {
            switch self {
            case .status: "status"
            case .change(let path): "change \(path.text)"
            case .condition(let template): "condition \(NotifyRule.conditionText(of: template))"
            }
        }
    }

    /// A header of the webhook's request: its name and its value, a template.
    public struct Header: Sendable, Hashable {
        /// The header's name.
        public var name: String
        /// Its value: a template that sees `widget`, `params`, `env` and `secret`, rendered when sent.
        public var value: Template

        /// A header `name` whose value is `value`.
        public init(name: String, value: Template) {
            self.name = name
            self.value = value
        }
    }

    /// The request's body.
    public enum Body: Sendable, Hashable {
        /// A template whose text is sent as `text/plain; charset=utf-8`.
        case text(Template)
        /// A JSON object or array whose strings are templates, sent as `application/json`.
        case json(TemplateTree)
    }

    /// Where a notification goes: an HTTP request.
    public struct Webhook: Sendable, Hashable {
        /// The address: a template that sees `widget`, `params`, `env` and `secret`, rendered when sent.
        public var url: Template
        /// `POST` unless the definition says `PUT`.
        public var method: String
        /// The headers, in the order written.
        public var headers: [Header]
        /// The body, rendered when the rule fires (it never sees secrets).
        public var body: Body

        /// A webhook to `url`.
        public init(url: Template, method: String = "POST", headers: [Header] = [], body: Body) {
            self.url = url
            self.method = method
            self.headers = headers
            self.body = body
        }
    }

    /// The rule's name: unique in its definition; `notify-1` for the single rule of a definition that
    /// names none (a definition with several rules must name each one).
    public var name: String
    /// When it fires.
    public var trigger: Trigger
    /// Where it sends.
    public var webhook: Webhook

    /// A rule `name` that sends to `webhook` on `trigger`.
    public init(name: String, trigger: Trigger, webhook: Webhook) {
        self.name = name
        self.trigger = trigger
        self.webhook = webhook
    }
}
