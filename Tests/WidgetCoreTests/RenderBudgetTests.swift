import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetLiquid

/// Templates cannot turn a small input into gigabytes: each text is at most 1 MiB, `replace` and `join`
/// measure their result before building it, and one refresh's templates share a budget.
struct RenderBudgetTests {
    private func failure(_ source: String, _ scope: TemplateScope = TemplateScope()) throws -> String {
        let template = try Template(source)
        do {
            _ = try template.render(scope)
            return ""
        } catch {
            return error.description
        }
    }

    @Test func aReplaceThatWouldBuildGigabytesIsRefusedBeforeItIsBuilt() throws {
        // ~590 KB of numbers and spaces; each space becoming 3,000 bytes would make ~300 MB.
        let big = String(repeating: "y", count: 3_000)
        let said = try failure("{{ (1..99999) | join | replace: ' ', big }}", TemplateScope(globals: ["big": .string(big)]))
        #expect(said.hasPrefix("replace would make a text of 300"), "\(said)")
        #expect(said.contains("more than the 1048576 one template value may have"))
    }

    @Test func aJoinWithAHugeGlueIsRefused() throws {
        let glue = String(repeating: "-", count: 100_000)
        let said = try failure("{{ (1..1000) | join: glue }}", TemplateScope(globals: ["glue": .string(glue)]))
        #expect(said.hasPrefix("join would make a text of 999"), "\(said)")
    }

    @Test func appendingPastTheLimitFailsAtTheFilter() throws {
        let half = String(repeating: "z", count: 600_000)
        let said = try failure("{{ half | append: half }}", TemplateScope(globals: ["half": .string(half)]))
        #expect(said.hasPrefix("append would make a text of 1200000 bytes"), "\(said)")
        // Text around the tags counts too.
        let around = try failure("{{ half }}{{ half }}", TemplateScope(globals: ["half": .string(half)]))
        #expect(around.hasPrefix("the template would make a text of 1200000 bytes"), "\(around)")
    }

    @Test func textsWithinTheLimitRenderAsBefore() throws {
        let scope = TemplateScope(globals: ["words": ["a", "b", "c"]])
        #expect(try Template("{{ words | join: ', ' | replace: ',', ';' }}").render(scope) == "a; b; c")
        #expect(try Template("{{ 'ab' | replace: '', '-' }}").render(scope) == "-a-b-")
    }

    @Test func aRefreshsTemplatesShareOneBudget() throws {
        var scope = TemplateScope(globals: ["text": .string(String(repeating: "x", count: 600))])
        scope.budget = RenderBudget(bytes: 1_000)
        let template = try Template("{{ text }}")
        _ = try template.render(scope)
        #expect(throws: ExpressionError.self) { try template.render(scope) }
        // A new refresh has a new budget.
        let context = StageContext(widgetID: "w", now: Date())
        #expect(context.renderBudget.bytes == RenderBudget.defaultBytes)
        #expect(context.templateScope().budget === context.renderBudget)
    }

    /// Rendering has no clock of its own: it stops when its refresh is cancelled (at the refresh's deadline
    /// or a stop), before the next filter, instead of keeping a core busy for nothing.
    @Test func aCancelledRefreshStopsRenderingAtTheNextFilter() async throws {
        let template = try Template("{{ (1..99999) | join | size }}")
        let scope = TemplateScope()
        #expect(try template.render(scope) == 588_887)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return Result { () throws(ExpressionError) -> WidgetValue in try template.render(scope) }
        }
        guard case .failure(let error) = await task.value else {
            Issue.record("a cancelled render finished")
            return
        }
        #expect(error.description.hasPrefix("stopped: its refresh was cancelled"), "\(error)")
    }
}
