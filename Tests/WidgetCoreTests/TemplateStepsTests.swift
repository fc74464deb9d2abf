import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetLiquid

/// Every template runs under a step budget: a loop that reads no data stops at the limit, with an error
/// that names it, and is counted by steps, not by time.
struct TemplateStepsTests {
    /// 10¹⁰ iterations: two nested loops over the largest range.
    static let tenBillion = "{% for a in (1..100000) %}{% for b in (1..100000) %}{% endfor %}{% endfor %}"

    static func scope(_ steps: TemplateSteps, globals: WidgetObject = [:]) -> TemplateScope {
        var scope = TemplateScope(globals: globals)
        scope.steps = steps
        return scope
    }

    @Test func aLoopOfTenBillionIterationsStopsAtTheLimitNamingIt() throws {
        let steps = TemplateSteps(limit: 1_000_000)
        #expect {
            try Template(Self.tenBillion).render(Self.scope(steps))
        } throws: { error in
            let text = "\(error)"
            return text.contains("the templates did more than 1000000 steps") && text.contains("the limit for one refresh")
                && text.contains("--template-steps N raises the limit")
        }
        // Stopped within one charge of the limit: the largest is a range of 100,000 numbers.
        #expect(steps.spent > 1_000_000)
        #expect(steps.spent <= 1_000_000 + 100_000)
    }

    @Test func stepsCountTagsLoopIterationsRangesAndFilterInputs() throws {
        let loop = TemplateSteps()
        _ = try Template("{% for i in (1..3) %}x{% endfor %}").render(Self.scope(loop))
        // The `for` tag, three numbers, three iterations and three texts.
        #expect(loop.spent == 1 + 3 + 3 * TemplateSteps.loopIterationSteps + 3)

        let filters = TemplateSteps()
        let text = String(repeating: "a", count: 640)
        _ = try Template("{{ list | join: ',' | upcase }}").render(Self.scope(filters, globals: ["list": [1, 2, 3, 4, 5]]))
        _ = try Template("{{ text | size }}").render(Self.scope(filters, globals: ["text": .string(text)]))
        // `join` is given 5 elements, `upcase` 9 bytes, `size` 640 bytes (10 × 64).
        #expect(filters.spent == (1 + 5) + (1 + 0) + (1 + 10))
    }

    @Test func copiesOfAScopeShareOneBudget() throws {
        let steps = TemplateSteps(limit: 100)
        let scope = Self.scope(steps)
        let template = try Template("{% for i in (1..4) %}{% endfor %}")
        _ = try template.render(scope)
        var copy = scope
        copy.item = ["title": "x"]
        #expect(throws: ExpressionError.self) {
            for _ in 0..<10 { _ = try template.render(copy) }
        }
        #expect(steps.spent > 100)
    }

    @Test func aScopeWithoutABudgetCountsNothing() throws {
        #expect(TemplateScope().steps == nil)
        let text = try Template("{% for i in (1..3) %}{{ i }}{% endfor %}").renderString(TemplateScope())
        #expect(text == "123")
    }

    @Test func theTemplatesOfOneRefreshShareItsBudget() {
        var context = StageContext(widgetID: "w", now: Date(timeIntervalSince1970: 0))
        #expect(context.templateSteps.limit == TemplateSteps.defaultLimit)
        #expect(context.templateScope().steps === context.templateSteps)
        #expect(context.templateScope(item: ["a": 1]).steps === context.templateSteps)
        context.templateSteps = TemplateSteps(limit: 5)
        #expect(context.templateScope().steps?.limit == 5)
    }

    @Test func laterTemplatesOfARefreshWhoseBudgetIsSpentStopAtOnce() async throws {
        var context = StageContext(widgetID: "w", now: Date(timeIntervalSince1970: 0))
        context.templateSteps = TemplateSteps(limit: 1_000_000)
        let scope = context.templateScope(item: ["title": "x"])
        let template = try Template("{% for a in (1..100000) %}{% for b in (1..100000) %}{% if title %}{% endif %}{% endfor %}{% endfor %}")
        #expect(throws: ExpressionError.self) { try template.render(scope) }
        #expect(context.templateSteps.spent <= 1_000_000 + 100_000)
        // The budget is spent: the next template of the same refresh stops at once.
        #expect(throws: ExpressionError.self) { try Template("{% for i in (1..2) %}{% endfor %}").render(scope) }
    }
}
