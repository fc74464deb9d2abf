import Foundation
import Testing
import WidgetJSON
import WidgetLiquid

/// The reason of the ``ExpressionError`` `body` throws, or `nil` when it throws none.
private func failureReason(_ body: () throws -> Any) -> String? {
    do {
        _ = try body()
        return nil
    } catch let error as ExpressionError {
        return error.reason
    } catch {
        return "\(error)"
    }
}

/// Liquid's tags beyond what the Golden Liquid suite checks: errors with their columns, partials from a
/// folder, HTML escaping, limits and what `variables` reports.
struct TemplateTagsTests {
    private func render(_ source: String, _ globals: WidgetObject = [:]) throws -> String {
        try Template(source).renderString(TemplateScope(globals: globals))
    }

    @Test func conditionalsLoopsAndAssignsWorkTogether() throws {
        let source = """
            {%- assign total = 0 -%}
            {%- for coin in coins -%}
              {%- assign total = total | plus: coin.value -%}
              {%- if coin.cost == 0 %}{{ coin.name }}: 0 %{% else %}{{ coin.name }}: {{ coin.value | minus: coin.cost | times: 100 | divided_by: coin.cost }} %{% endif %}
            {% endfor -%}
            total {{ total }}
            """
        let coins: WidgetValue = [["name": "BTC", "value": 150, "cost": 100], ["name": "DOGE", "value": 5, "cost": 0]]
        #expect(try render(source, ["coins": coins]) == "BTC: 50 %\nDOGE: 0 %\ntotal 155")
    }

    @Test func aBlockNeverClosedNamesItsColumnAndTheFix() {
        #expect(throws: ExpressionError("'{% if %}' is never closed", column: 3, hint: "add {% endif %}")) {
            try Template("a {% if x %}b")
        }
        #expect(throws: ExpressionError("'{% for %}' is never closed", column: 1, hint: "add {% endfor %}")) {
            try Template("{% for x in xs %}{% if x %}{% endif %}")
        }
    }

    @Test func aStrayOrMisspelledTagIsAnError() {
        #expect(
            throws: ExpressionError(
                "unknown tag 'endfi'", column: 12, hint: "did you mean 'endif'?")
        ) {
            try Template("{% if x %}a{% endfi %}")
        }
        #expect(
            throws: ExpressionError(
                "unexpected '{% endfor %}'", column: 1, hint: "there is no open '{% for %}' for it to close; remove it")
        ) {
            try Template("{% endfor %}")
        }
        #expect(
            throws: ExpressionError(
                "unknown tag 'iff'", column: 1, hint: "did you mean 'if'?")
        ) {
            try Template("{% iff x %}")
        }
    }

    @Test func badConditionsAndLoopArgumentsAreErrors() {
        #expect(failureReason { try Template("{% if a startswith b %}{% endif %}") } == "unexpected 's' in the condition")
        #expect(failureReason { try Template("{% for x in xs step: 2 %}{% endfor %}") } == "'for' has no argument 'step'")
        #expect(failureReason { try Template("{% assign = 1 %}") } == "expected a variable name after 'assign'")
        #expect(failureReason { try Template("{% render name %}") } == "'render' takes the partial's name as a quoted string")
        #expect(failureReason { try Template("{% case x %}{% when %}a{% endcase %}") } == "'when' needs a value to match")
        #expect(failureReason { try render("{% if '2' > 1 %}a{% endif %}") } == "cannot compare a string with an integer using '>'")
    }

    @Test func partialsComeFromAFolderAndSeeOnlyTheirArguments() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("partials-\(UUID().uuidString)")
        let folder = root.appendingPathComponent("partials")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        // Beside the folder, where '../outside' would lead if names could leave it.
        try "escaped".write(to: root.appendingPathComponent("outside.liquid"), atomically: true, encoding: .utf8)
        try "<b>{{ coin.name }}</b>{% if secret %}leak{% endif %}".write(
            to: folder.appendingPathComponent("coin.liquid"), atomically: true, encoding: .utf8)
        try "{% render 'loop' %}".write(to: folder.appendingPathComponent("loop.liquid"), atomically: true, encoding: .utf8)
        var scope = TemplateScope(item: ["secret": true])
        scope.partials = TemplatePartialFolder(folder)
        let template = try Template("{% for c in coins %}{% render 'coin', coin: c %}{% endfor %}")
        scope.globals = ["coins": [["name": "BTC"], ["name": "ETH"]]]
        #expect(try template.renderString(scope) == "<b>BTC</b><b>ETH</b>")
        #expect(template.partialNames == ["coin"])

        #expect(
            failureReason { try Template("{% render 'missing' %}").renderString(scope) }?
                .hasPrefix("there is no partial 'missing': ") == true)
        #expect(failureReason { try Template("{% render '../outside' %}").renderString(scope) } == "'../outside' is not a partial name")
        do {
            _ = try Template("{% render 'loop' %}").renderString(scope)
            Issue.record("a partial that renders itself must stop")
        } catch {
            #expect(error.reason.contains("more than 16 deep"))
        }
    }

    @Test func escapingScopesEscapeEveryOutputUnlessMarkedSafe() throws {
        var scope = TemplateScope(globals: ["title": "<script>x()</script>", "html": "<b>ok</b>"])
        scope.escapesHTML = true
        let template = try Template("{{ title }}|{{ html | safe }}|{% echo title %}|{{ title | escape }}")
        #expect(
            try template.renderString(scope)
                == "&lt;script&gt;x()&lt;/script&gt;|<b>ok</b>|&lt;script&gt;x()&lt;/script&gt;|&lt;script&gt;x()&lt;/script&gt;")
        #expect(try Template("{{ title }}").render(scope) == .string("&lt;script&gt;x()&lt;/script&gt;"))
        #expect(try Template("{{ html | safe }}").render(TemplateScope(globals: ["html": "<b>"])) == .string("<b>"))
    }

    @Test func variablesAndFreeVariablesSeeInsideTags() throws {
        let template = try Template(
            "{% assign n = items | size %}{% for i in items %}{{ i.title }}{{ forloop.index }}{% endfor %}{% if user %}{{ n }}{% endif %}")
        #expect(template.variables == ["n", "items", "i", "forloop", "user"])
        #expect(template.freeVariables == ["items", "user"])
    }

    @Test func secretsCannotBeReadInTags() throws {
        let template = try Template("{% if env.TOKEN %}yes{% endif %}{{ env.TOKEN }}")
        #expect(template.secretUses.problems.contains { $0.contains("only in an output tag") })
        let assigned = try Template("{% assign t = env.TOKEN %}{{ t | slice: 0, 2 }}")
        #expect(assigned.secretUses.problems.contains { $0.contains("only in an output tag") })
    }

    @Test func loopsStopWhenTheirRefreshIsCancelled() async throws {
        let template = try Template("{% for i in (1..100000) %}{% for j in (1..100000) %}{% endfor %}{% endfor %}")
        let task = Task { try template.renderString(TemplateScope()) }
        task.cancel()
        await #expect(throws: ExpressionError.self) { try await task.value }
    }
}

struct StrictVariableTests {
    private func scope() -> TemplateScope {
        var scope = TemplateScope(item: ["name": "a", "title": "b", "author": nil, "tags": ["x", "y"]])
        scope.strictVariables = true
        return scope
    }

    @Test func missingMembersAndElementsAreErrors() throws {
        #expect(
            throws: ExpressionError(
                "'item' has no member 'titel'", column: 6, hint: "did you mean 'title'?")
        ) {
            try Template("x {{ item.titel | upcase }}").renderString(scope())
        }
        #expect(failureReason { try Template("{{ tags[5] }}").render(scope()) } == "'tags' has no element [5] (it has 2)")
        #expect(
            failureReason { try Template("{{ tags.nope }}").render(scope()) } == "'tags' is an array, which has no member 'nope'")
        #expect(try Template("{{ tags.size }}-{{ author }}").renderString(scope()) == "2-")
    }

    @Test func guardsAllowWhatIsMissing() throws {
        #expect(try Template("{{ item.titel | default: 'none' }}").render(scope()) == "none")
        #expect(try Template("{% if item.titel %}1{% elsif nope.deeper %}2{% else %}3{% endif %}").render(scope()) == "3")
        #expect(try Template("{% case nope %}{% when 1 %}1{% else %}none{% endcase %}").render(scope()) == "none")
        #expect(try Template("{{ nope }}").test(scope()) == false)
        #expect(
            try Template("{% assign t = tags | size %}{{ t }}{% for x in tags %}{{ forloop.index }}{% endfor %}").render(scope()) == "212")
    }
}

struct TypedTagTemplateTests {
    @Test func aResultThatIsOneOutputKeepsItsType() throws {
        let template = try Template("{%- if cost > 0 -%}{{ gain | times: 100.0 | divided_by: cost }}{%- else -%}{{ 0 }}{%- endif -%}")
        #expect(try template.render(TemplateScope(globals: ["cost": 4, "gain": 1])) == .number(WidgetNumber("25.0")!))
        #expect(try template.render(TemplateScope(globals: ["cost": 0, "gain": 1])) == .number(0))
        #expect(try Template("{% if a %}{{ list }}{% endif %}").render(TemplateScope(globals: ["a": true, "list": [1, 2]])) == [1, 2])
        // Any other text, or a second output, makes it text.
        #expect(try Template("{% if a %} {{ n }}{% endif %}").render(TemplateScope(globals: ["a": true, "n": 1])) == " 1")
        #expect(try Template("{% if a %}{{ n }}{{ n }}{% endif %}").render(TemplateScope(globals: ["a": true, "n": 1])) == "11")
        #expect(try Template("{% increment c %}{{ n }}").render(TemplateScope(globals: ["n": 1])) == "01")
    }
}

struct TemplateTagSafetyTests {
    @Test func secretsCannotLeakThroughCapturesComputedNamesPartialsOrShadowedParams() throws {
        let leaks = [
            "{% capture t %}{{ env.TOKEN }}{% endcapture %}{{ t | slice: 0, 4 }}",
            "{% assign n = 'env' %}{% assign t = [n].TOKEN %}{{ t | slice: 0, 4 }}",
            "{% assign n = 'env' %}{% if [n].TOKEN contains 'a' %}a{% endif %}",
            "{% for params in inputs.list %}{{ env[params.k] }}{% endfor %}",
            "{% include 'q' %}",
        ]
        for source in leaks {
            #expect(!(try Template(source).secretUses.problems.isEmpty), "\(source)")
        }
        #expect(try Template("Bearer {{ env.TOKEN }}").secretUses.problems.isEmpty)
    }

    @Test func partialsAreRefusedWhereSecretsAreInScope() throws {
        var scope = TemplateScope(globals: ["env": ["TOKEN": "s3cr3t"]])
        scope.partials = GoldenLiquidTests.Partials(sources: ["q": "{{ env }}"])
        for tag in ["include", "render"] {
            #expect(
                failureReason { try Template("{% \(tag) 'q' %}").renderString(scope) }
                    == "'\(tag)' cannot be used where secrets are in scope")
        }
    }

    @Test func aHugeLoopOffsetOrLimitIsSafe() throws {
        let template = try Template(
            "{% for x in (1..3) offset: '9223372036854775807' limit: 2 %}{{ x }}{% endfor %}|{% for x in (1..3) offset: 1 limit: 9223372036854775807 %}{{ x }}{% endfor %}"
        )
        #expect(try template.renderString(TemplateScope()) == "|23")
    }

    @Test func aCaptureIsEscapedOnceInAnEscapingScope() throws {
        var scope = TemplateScope(globals: ["title": "A & B"])
        scope.escapesHTML = true
        #expect(
            try Template("{% capture t %}<b>{{ title }}</b>{% endcapture %}{{ t }}|{{ t | upcase }}").renderString(scope)
                == "<b>A &amp; B</b>|&lt;B&gt;A &amp;AMP; B&lt;/B&gt;")
    }
}
