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
    public func masked(_ definition: WidgetDefinition, secrets: SecretStore) -> NotificationRequest {
        let mask = definition.secretMask(secrets: secrets)
        var copy = self
        copy.url = mask.apply(url)
        copy.headers = HTTPHeaders()
        for field in headers { copy.headers.add(name: field.name, value: mask.apply(field.value), isSecret: field.isSecret) }
        return copy
    }
}
