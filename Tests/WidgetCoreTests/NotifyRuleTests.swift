import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetLiquid

/// A definition's `notify`: rules read into `NotifyRule`s, and every mistake reported at its place with a
/// fix.
struct NotifyRuleTests {
    private let reader = DefinitionReader(
        registry: TestStages.registry, defaultTimeZone: TimeZone(identifier: "UTC")!,
        environment: SecretStore(environment: ["HOOK": "abc"], files: ["NTFY_TOKEN": "tk_secret"], folder: "/run/secrets"))

    private func read(_ notify: String, extra: String = "") -> DefinitionReader.Result {
        reader.read(Data(#"{"source": {"path": "x.json"}\#(extra), "notify": \#(notify)}"#.utf8), file: "widgets.d/prices.json")
    }

    private func problems(_ notify: String, extra: String = "") -> [String] {
        read(notify, extra: extra).diagnostics.map(\.description)
    }

    private func rules(_ notify: String) throws -> [NotifyRule] {
        let result = read(notify)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        return try #require(result.widgets.first).definition.notify
    }

    // MARK: - Reading

    @Test func everyTriggerAndWebhookPartIsRead() throws {
        let rules = try rules(
            #"""
            [{"name": "down", "on": "status", "to": ["stale", "placeholder"],
              "webhook": {"url": "https://ntfy.sh/{{ secret.NTFY_TOKEN }}", "headers": {"Title": "{{ widget.title }}", "Priority": "high"},
                          "body": "{{ widget.id }} is {{ status }}"}},
             {"name": "price", "on": "change", "path": "$.price", "webhook": {"url": "https://hooks.example/{{ notification.id }}", "method": "put",
                          "body": {"text": "{{ change.from }} → {{ change.to }}", "n": 1}}},
             {"name": "low", "on": "condition", "if": "value.total < 1000 and status == 'fresh'", "webhook": {"url": "https://x.example", "body": "low"}}]
            """#)
        try #require(rules.count == 3)
        #expect(rules.map(\.name) == ["down", "price", "low"])
        #expect(rules[0].trigger == .status(to: ["stale", "placeholder"]))
        #expect(rules[0].webhook.method == "POST")
        #expect(rules[0].webhook.headers.map(\.name) == ["Title", "Priority"])
        #expect(rules[1].trigger == .change(path: try JSONPath("$.price")))
        #expect(rules[1].webhook.method == "PUT")
        guard case .json = rules[1].webhook.body else {
            Issue.record("a JSON body is read as a template tree")
            return
        }
        guard case .condition(let template) = rules[2].trigger else {
            Issue.record("a condition is read as a template")
            return
        }
        #expect(NotifyRule.conditionText(of: template) == "value.total < 1000 and status == 'fresh'")
        #expect(rules[2].trigger.watched == "condition value.total < 1000 and status == 'fresh'")
    }

    @Test func aStatusRuleWithoutToFiresOnAnyStatus() throws {
        let rules = try rules(#"[{"on": "status", "webhook": {"url": "https://x.example", "body": "{{ status }}"}}]"#)
        #expect(rules.first?.trigger == .status(to: []))
    }

    @Test func instancesInheritTheRules() throws {
        let result = reader.read(
            Data(
                #"""
                {"source": {"path": "x.json"}, "instances": [{"id": "a", "params": {}}, {"id": "b", "params": {}}],
                 "notify": [{"on": "status", "webhook": {"url": "https://x.example/{{ params.topic | default: 'all' }}", "body": "{{ status }}"}}]}
                """#.utf8), file: "widgets.d/prices.json")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        #expect(result.widgets.map { $0.definition.notify.count } == [1, 1])
    }

    @Test func webhookSecretsAreAcceptedAndJoinTheWidgetsSecretUses() throws {
        let result = read(
            #"""
            [{"on": "status", "webhook": {"url": "https://h.example/{{ env.HOOK }}",
              "headers": {"Authorization": "{{ 'Bearer ' | append: secret.NTFY_TOKEN }}"}, "body": "{{ status }}"}}]
            """#)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let definition = try #require(result.widgets.first).definition
        #expect(definition.secretUses.map(\.display) == ["env.HOOK", "secret.NTFY_TOKEN"])
        #expect(definition.redact("Bearer tk_secret", secrets: reader.environment!) == "Bearer ***")
    }

    @Test func theKeyIsInTheSchema() {
        #expect(DefinitionDocument.keys.contains("notify"))
        #expect(DefinitionDocument.CodingKeys.notify.keyDescription.summary.contains("webhook"))
    }

    // MARK: - Mistakes

    @Test func anUnknownTriggerIsReportedWithAHint() {
        #expect(
            problems(#"[{"on": "changed", "webhook": {"url": "https://x.example", "body": "x"}}]"#) == [
                #"widgets.d/prices.json:1:50: $.notify[0].on: "changed" is not a trigger; did you mean 'change'?"#
            ])
        #expect(
            problems(#"[{"webhook": {"url": "https://x.example", "body": "x"}}]"#) == [
                #"widgets.d/prices.json:1:43: $.notify[0]: the rule has no "on"; add "on": "status", "change" (with "path") or "condition" (with "if")"#
            ])
    }

    @Test func aToThatIsNoStatusIsReportedAtItsElement() {
        #expect(
            problems(#"[{"on": "status", "to": ["stale", "placeholdr"], "webhook": {"url": "https://x.example", "body": "x"}}]"#) == [
                #"widgets.d/prices.json:1:76: $.notify[0].to[1]: "placeholdr" is not a status; did you mean 'placeholder'?"#
            ])
        #expect(
            problems(#"[{"on": "status", "to": "stale", "webhook": {"url": "https://x.example", "body": "x"}}]"#) == [
                #"widgets.d/prices.json:1:66: $.notify[0].to: "to" must be a non-empty list of statuses, e.g. ["stale", "placeholder"]"#
            ])
        #expect(
            problems(#"[{"on": "change", "path": "$.a", "to": ["stale"], "webhook": {"url": "https://x.example", "body": "x"}}]"#) == [
                #"widgets.d/prices.json:1:75: $.notify[0].to: "to" is read only with "on": "status"; remove it"#
            ])
    }

    @Test func aBadPathIsReportedWithItsColumn() {
        #expect(
            problems(#"[{"on": "change", "path": "$.price[", "webhook": {"url": "https://x.example", "body": "x"}}]"#) == [
                #"widgets.d/prices.json:1:77: $.notify[0].path: "$.price[" is not a JSONPath: expected a selector (a quoted name, '*', an index, a slice or a '?' filter) at column 9; write e.g. "$.price""#
            ])
        #expect(
            problems(#"[{"on": "change", "webhook": {"url": "https://x.example", "body": "x"}}]"#) == [
                #"widgets.d/prices.json:1:43: $.notify[0]: a rule with "on": "change" needs "path", the value to watch; add e.g. "path": "$.price""#
            ])
    }

    @Test func aConditionThatDoesNotParseIsReportedWithItsColumn() {
        let found = problems(#"[{"on": "condition", "if": "value.total <", "webhook": {"url": "https://x.example", "body": "x"}}]"#)
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("widgets.d/prices.json:1:") == true)
        #expect(found.first?.contains("$.notify[0].if: the condition does not parse:") == true)
        #expect(found.first?.contains("column 13") == true, "\(found)")
        #expect(
            problems(#"[{"on": "condition", "if": "{{ value.total }}", "webhook": {"url": "https://x.example", "body": "x"}}]"#).first?
                .contains("a condition is written without {% %} or {{ }}") == true)
        #expect(
            problems(#"[{"on": "condition", "if": "valeu.total < 3", "webhook": {"url": "https://x.example", "body": "x"}}]"#) == [
                #"widgets.d/prices.json:1:69: $.notify[0].if: a condition reads 'valeu', which is not in scope here; did you mean 'value'?"#
            ])
    }

    @Test func aMissingWebhookOrUrlOrBodyIsReported() {
        #expect(
            problems(#"[{"on": "status"}]"#) == [
                #"widgets.d/prices.json:1:43: $.notify[0]: the rule has no "webhook"; add e.g. "webhook": {"url": "https://ntfy.sh/TOPIC", "body": "{{ widget.title }} is {{ status }}"}"#
            ])
        #expect(
            problems(#"[{"on": "status", "webhook": {"body": "x"}}]"#) == [
                #"widgets.d/prices.json:1:71: $.notify[0].webhook: the webhook has no "url"; add e.g. "url": "https://ntfy.sh/TOPIC""#
            ])
        #expect(
            problems(#"[{"on": "status", "webhook": {"url": "https://x.example", "body": 3}}]"#) == [
                #"widgets.d/prices.json:1:108: $.notify[0].webhook.body: "body" must be a template (a string) or a JSON object or array, not number; write e.g. "{{ status }}""#
            ])
    }

    @Test func aBodyTemplateThatDoesNotParseIsReportedWithItsColumn() {
        let text = problems(#"[{"on": "status", "webhook": {"url": "https://x.example", "body": "{{ status | upcse }}"}}]"#)
        #expect(text.count == 1)
        #expect(text.first?.contains("$.notify[0].webhook.body: unknown filter 'upcse'") == true, "\(text)")
        let json = problems(#"[{"on": "status", "webhook": {"url": "https://x.example", "body": {"a": ["{{ status "]}}}]"#)
        #expect(json.count == 1)
        #expect(json.first?.contains("$.notify[0].webhook.body.a[0]") == true, "\(json)")
        let header = problems(#"[{"on": "status", "webhook": {"url": "https://x.example", "headers": {"A b": "x"}, "body": "x"}}]"#)
        #expect(header.first?.contains(#""A b" is not a header name"#) == true, "\(header)")
    }

    @Test func aMethodOtherThanPostOrPutIsReported() {
        #expect(
            problems(#"[{"on": "status", "webhook": {"url": "https://x.example", "method": "GET", "body": "x"}}]"#) == [
                #"widgets.d/prices.json:1:110: $.notify[0].webhook.method: "GET" is not a webhook method; use "POST" (the default) or "PUT""#
            ])
    }

    @Test func aRuleNameUsedTwiceIsReported() {
        #expect(
            problems(
                #"[{"name": "a", "on": "status", "webhook": {"url": "https://x.example", "body": "x"}}, {"name": "a", "on": "status", "webhook": {"url": "https://x.example", "body": "y"}}]"#
            ) == [
                #"widgets.d/prices.json:1:137: $.notify[1].name: the rule name "a" is used twice; give each rule its own "name""#
            ])
    }

    @Test func severalRulesMustEachHaveAName() throws {
        let found = problems(
            #"[{"name": "a", "on": "status", "webhook": {"url": "https://x.example", "body": "x"}}, {"on": "status", "webhook": {"url": "https://x.example", "body": "y"}}]"#
        )
        try #require(found.count == 1, "\(found)")
        #expect(found[0].contains("$.notify[1]: this rule has no \"name\"; with several rules each needs one"), "\(found)")
        #expect(found[0].contains(#"add e.g. "name": "rule-2""#))
        // A single rule may go unnamed: it is notify-1.
        #expect(try rules(#"[{"on": "status", "webhook": {"url": "https://x.example", "body": "x"}}]"#).map(\.name) == ["notify-1"])
    }

    @Test func aRuleNameThatIsNotOneIsReported() {
        #expect(
            problems(#"[{"name": "a b", "on": "status", "webhook": {"url": "https://x.example", "body": "x"}}]"#) == [
                #"widgets.d/prices.json:1:52: $.notify[0].name: "a b" is not a rule name; use 1 to 64 letters, digits, '.', '_' or '-', e.g. "down""#
            ])
    }

    @Test func aBodyThatReadsASecretIsReported() {
        #expect(
            problems(#"[{"on": "status", "webhook": {"url": "https://x.example", "body": {"t": "{{ secret.NTFY_TOKEN }}"}}}]"#) == [
                #"widgets.d/prices.json:1:114: $.notify[0].webhook.body.t: {{ secret.… }} may only be used in a webhook's "url" and "headers" (a notification's body is kept in the widget's state), so that secrets never reach a snapshot; move it there"#
            ])
        #expect(
            problems(#"[{"on": "condition", "if": "env.HOOK", "webhook": {"url": "https://x.example", "body": "x"}}]"#).first?.contains(
                "a condition never sees secrets") == true)
    }

    @Test func urlAndHeadersThatReadDataAreReported() {
        #expect(
            problems(#"[{"on": "status", "webhook": {"url": "https://x.example/{{ value.id }}", "body": "x"}}]"#) == [
                #"widgets.d/prices.json:1:79: $.notify[0].webhook.url: the url reads 'value', which is not in scope here; here templates read widget, params, env, secret, notification; put data in the "body""#
            ])
        #expect(
            problems(#"[{"on": "status", "webhook": {"url": "https://x.example", "headers": {"X-S": "{{ status }}"}, "body": "x"}}]"#) == [
                #"widgets.d/prices.json:1:119: $.notify[0].webhook.headers['X-S']: a header reads 'status', which is not in scope here: headers read only widget, params, env, secret, notification; put data in the "body""#
            ])
    }

    @Test func aMissingSecretIsReportedLikeASourcesSecret() {
        #expect(
            problems(#"[{"on": "status", "webhook": {"url": "https://x.example/{{ secret.GOTIFY }}", "body": "x"}}]"#) == [
                #"widgets.d/prices.json:1:79: $.notify[0].webhook.url: the secret GOTIFY is not a file in the secrets folder /run/secrets; write it to /run/secrets/GOTIFY"#
            ])
    }

    @Test func notifyMustBeAnArrayOfObjects() {
        #expect(
            problems(#"{"on": "status"}"#) == [
                #"widgets.d/prices.json:1:42: $.notify: "notify" must be an array of rules such as [{"on": "status", "webhook": {"url": "https://…", "body": "{{ status }}"}}]"#
            ])
        #expect(
            problems(#"[{"on": "status", "webhok": {}}]"#).contains {
                $0.contains("$.notify[0].webhok: unknown key 'webhok'; did you mean 'webhook'?")
            })
    }
}
