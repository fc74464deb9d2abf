public import Foundation
public import WidgetCore
public import WidgetJSON
import WidgetLiquid
public import WidgetStages

/// The HTTP request that delivers one notification: its rule's webhook rendered for it.
///
/// The body was rendered when the rule fired and is kept in the outbox; the address and the headers,
/// which may read secrets, are rendered only now, each time it is sent, so no secret is ever saved.
/// The sender adds `Idempotency-Key` (the notification's id) and its `User-Agent`.
///
/// ```swift
/// let request = try NotificationRequest(notification, rule: rule, definition: definition, secrets: secrets)
/// ```
public struct NotificationRequest: Sendable, Hashable {
    /// `POST` or `PUT`.
    public var method: String
    /// The address.
    public var url: String
    /// `Content-Type` (the notification's, unless the rule sets one), then the rule's headers, rendered,
    /// in the order written; those whose template reads a secret are marked secret.
    public var headers: HTTPHeaders
    /// The body.
    public var body: String
    /// Whether the address's template reads a secret (`env` or `secret`), and if so the address rendered
    /// with every secret `***` (`nil` when that rendering fails).
    var urlReadsSecret = false
    var maskedURL: String?

    /// Renders `rule`'s webhook for `notification`.
    ///
    /// The url and the headers see `widget` (`id`, `title`, `timeZone`), `params`, `env`, `secret` and
    /// `notification` (`id`, `rule`).
    ///
    /// - Parameters:
    ///   - notification: the notification to send.
    ///   - rule: the rule that made it (the definition's rule of that name).
    ///   - definition: its widget's definition.
    ///   - secrets: what `env` and `secret` read.
    /// - Throws: `ExpressionError` when a template fails (a secret that is not set, say).
    public init(
        _ notification: PendingNotification, rule: NotifyRule, definition: WidgetDefinition, secrets: SecretStore
    ) throws(ExpressionError) {
        let globals: WidgetObject = [
            "widget": NotifyEvaluator.widgetValue(definition, title: definition.title),
            "params": .object(definition.params),
            "notification": .object(["id": .string(notification.id), "rule": .string(notification.rule)]),
        ]
        var scope = NotifyEvaluator.scope(
            globals, timeZone: definition.timeZone, now: notification.createdAt, stepLimit: definition.templateStepLimit)
        scope.strictVariables = true
        secrets.install(in: &scope, masked: false)
        method = rule.webhook.method
        url = try rule.webhook.url.renderString(scope)
        urlReadsSecret = !rule.webhook.url.secretUses.uses.isEmpty
        if urlReadsSecret {
            var maskedScope = scope
            secrets.install(in: &maskedScope, masked: true)
            // `url_encode` turns a mark into `%2A%2A%2A`: shown as the mark.
            maskedURL = (try? rule.webhook.url.renderString(maskedScope))?.replacingOccurrences(of: "%2A%2A%2A", with: "***")
        }
        headers = ["Content-Type": notification.contentType]
        for header in rule.webhook.headers {
            let value = try header.value.renderString(scope)
            if header.name.lowercased() == "content-type" { headers.remove(name: "Content-Type") }
            headers.add(name: header.name, value: value, isSecret: !header.value.secretUses.uses.isEmpty)
        }
        body = notification.body
    }

    /// The request with every secret `definition` reads (its sources' and its webhooks') replaced by
    /// `***`, in the forms the secret-keeping filters give it: for `preview --trace` and for messages.
    ///
    /// A header whose template reads a secret shows `***` for its whole value (after a leading scheme
    /// word such as `Bearer` or `Basic`): a secret a filter turned into something else (`base64_encode`
    /// of `user:password`) matches no masked form. An address whose template reads a secret is rendered
    /// again with every secret `***`; when a filter hid those marks too, it keeps only its scheme, host and
    /// port, with `/***` for the rest.
    public func masked(_ definition: WidgetDefinition, secrets: SecretStore) -> NotificationRequest {
        let mask = definition.secretMask(secrets: secrets)
        var copy = self
        if !urlReadsSecret {
            copy.url = mask.apply(url)
        } else if let maskedURL, maskedURL.contains("***") {
            copy.url = mask.apply(maskedURL)
        } else {
            copy.url = Self.maskedAddress(url)
        }
        copy.headers = HTTPHeaders()
        for field in headers {
            let value = field.isSecret ? Self.maskedValue(field.value) : mask.apply(field.value)
            copy.headers.add(name: field.name, value: value, isSecret: field.isSecret)
        }
        return copy
    }

    /// `***`, after the value's leading scheme word (`Bearer`, `Basic`) when it has one.
    static func maskedValue(_ value: String) -> String {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(of: " ") else { return "***" }
        let word = trimmed[..<space]
        guard word.count <= 16, word.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") }) else { return "***" }
        return "\(word) ***"
    }

    /// The address's scheme, host and port followed by `/***`; `***` when it is not an address.
    static func maskedAddress(_ address: String) -> String {
        guard let parts = URLComponents(string: address.trimmingCharacters(in: .whitespacesAndNewlines)),
            let scheme = parts.scheme, let host = parts.host, !host.isEmpty
        else { return "***" }
        return "\(scheme)://\(host)\(parts.port.map { ":\($0)" } ?? "")/***"
    }
}
