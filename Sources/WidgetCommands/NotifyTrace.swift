import Foundation
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages

/// The `notify` part of `widgetd preview ID --trace`: what each rule would decide about the snapshot the
/// preview made, and why, and for a rule that fires what would be sent, to where, with its secrets
/// masked. Nothing is saved or sent.
///
/// The rules are compared with what they last saw in the output folder's outbox
/// (`.state/notify/<id>.json`), when it has one; else with nothing, as a daemon's first refresh would.
struct NotifyTrace {
    /// One rule's decision and, when it fires, its request.
    struct Rule {
        var decision: NotifyDecision
        /// `status`, `change $.price`, `condition value.n > 1`.
        var watches: String
        /// The request, masked; `nil` when the rule does not fire or its request cannot be rendered.
        var request: NotificationRequest?
        /// Why the request cannot be rendered.
        var requestError: String?
    }

    /// The outbox compared with (`out/.state/notify/prices.json`), or `nil` for none.
    var comparedWith: String?
    /// Why there is nothing to compare with, when there is not.
    var note: String?
    /// The rules, in the order written.
    var rules: [Rule]

    /// The trace of `definition`'s rules for `snapshot`.
    ///
    /// - Parameters:
    ///   - folder: the output folder whose outbox holds what the rules last saw; `nil` when the output
    ///     is not a folder (`note` says why nothing is compared).
    ///   - history: what the bodies read as `history`; `{}` by default.
    ///   - secrets: what the webhooks' url and headers read; masked in what is shown.
    init(
        snapshot: Snapshot, definition: WidgetDefinition, folder: String?, note: String? = nil, history: WidgetValue = .object([:]),
        secrets: SecretStore, now: Date
    ) {
        let outboxes = folder.map { NotificationOutboxes(output: FolderOutput(folder: URL(fileURLWithPath: $0, isDirectory: true))) }
        let (decisions, saved) =
            outboxes?.dryRun(snapshot, definition: definition, history: history, now: now)
            ?? (
                NotificationOutboxes.decisions(comparedWith: nil, snapshot: snapshot, definition: definition, history: history, now: now),
                false
            )
        if saved, let folder {
            comparedWith = (folder as NSString).appendingPathComponent(NotificationOutboxes.key(for: definition.id))
        } else {
            self.note = note ?? "nothing saved in \(folder ?? "the output") for this widget: every rule observes for the first time"
        }
        rules = zip(definition.notify, decisions).map { rule, decision in
            var traced = Rule(decision: decision, watches: rule.trigger.watched)
            guard let notification = decision.notification else { return traced }
            do {
                traced.request = try NotificationRequest(notification, rule: rule, definition: definition, secrets: secrets)
                    .masked(definition, secrets: secrets)
            } catch {
                traced.requestError = definition.redact("\(error)", secrets: secrets)
            }
            return traced
        }
    }

    // MARK: - Text

    /// The lines of the text trace.
    var lines: [String] {
        var lines = ["notify  " + (comparedWith.map { "compared with what \($0) last saw" } ?? note ?? "")]
        for rule in rules {
            let verdict = rule.decision.fires ? "fires" : "does not fire"
            lines.append("  \(rule.decision.rule) (\(rule.watches))  \(verdict): \(rule.decision.reason)")
            if let error = rule.requestError { lines.append("    ! the request cannot be rendered: \(error)") }
            guard let request = rule.request, let notification = rule.decision.notification else { continue }
            lines.append("    \(request.method) \(request.url)")
            for header in request.headers { lines.append("    \(header.name): \(header.value)") }
            lines.append("    Idempotency-Key: \(notification.id)")
            lines.append("    body: \(request.body)")
        }
        return lines
    }

    // MARK: - JSON

    /// `{"comparedWith", "note", "rules": [{"rule", "watches", "fires", "reason", "request", "error"}]}`.
    var json: WidgetValue {
        let rules = rules.map { rule -> WidgetValue in
            var object: WidgetObject = [
                "rule": .string(rule.decision.rule), "watches": .string(rule.watches), "fires": .bool(rule.decision.fires),
                "reason": .string(rule.decision.reason),
            ]
            if let request = rule.request, let notification = rule.decision.notification {
                var headers = WidgetObject(request.headers.map { ($0.name, WidgetValue.string($0.value)) } as [(String, WidgetValue)])
                headers["Idempotency-Key"] = .string(notification.id)
                object["request"] = .object([
                    "method": .string(request.method), "url": .string(request.url), "headers": .object(headers),
                    "body": .string(request.body),
                ])
            }
            if let error = rule.requestError { object["error"] = .string(error) }
            return .object(object)
        }
        return .object([
            "comparedWith": comparedWith.map(WidgetValue.string) ?? .null, "note": note.map(WidgetValue.string) ?? .null,
            "rules": .array(rules),
        ])
    }
}
