import Foundation
import Testing
import WidgetJSON
import WidgetLiquid

/// Templates cannot turn a small list into gigabytes either: a filter's list or object has at most
/// ``RenderBudget/maximumItems`` items (`concat` checks before it builds), and the lists a refresh's
/// templates keep are charged to its budget with the text.
struct TemplateListBudgetTests {
    private func failure(_ source: String, _ scope: TemplateScope) throws -> String {
        do {
            _ = try Template(source).render(scope)
            return ""
        } catch {
            return error.description
        }
    }

    @Test func aListDoubledByConcatInALoopStopsAtTheItemLimit() throws {
        let scope = TemplateScope(globals: ["a": [1, 2, 3, 4, 5, 6, 7, 8]])
        let said = try failure(
            "{% assign l = a %}{% for i in (1..40) %}{% assign l = l | concat: l %}{% endfor %}{{ l | size }}", scope)
        #expect(said.hasPrefix("concat would make a list of 2097152 items, more than the 1048576 one template value may have"), "\(said)")
        #expect(said.contains("keep fewer items first"), "\(said)")
    }

    @Test func splittingAHugeTextStopsOnePartPastTheItemLimit() throws {
        let scope = TemplateScope(globals: ["s": .string(String(repeating: "ab", count: 1_100_000))])
        #expect(try failure("{{ s | split: '' | size }}", scope).hasPrefix("split would make a list of 1048577 items"))
        #expect(try failure("{{ s | split: 'b' | size }}", scope).hasPrefix("split would make a list of 1048577 items"))
        #expect(try Template("{{ 'abab' | split: 'ab' | size }}").render(TemplateScope()) == 0)
        #expect(try Template("{{ 'a,b,,c,,' | split: ',' | join: '|' }}").render(TemplateScope()) == "a|b||c")
    }

    @Test func repeatedConcatInOneOutputStopsAtTheItemLimit() throws {
        let scope = TemplateScope(globals: ["a": .array(Array(repeating: 1, count: 600_000))])
        let said = try failure("{{ a | concat: a | size }}", scope)
        #expect(said.hasPrefix("concat would make a list of 1200000 items"), "\(said)")
        #expect(try Template("{{ a | concat: a | slice: 0, 2 | size }}").render(TemplateScope(globals: ["a": [1, 2]])) == 2)
    }

    @Test func listsATemplateKeepsAreChargedToTheRefreshsBudget() throws {
        var scope = TemplateScope(globals: ["a": .array(Array(repeating: 1, count: 1_000))])
        // 2,000 items at 16 bytes: 32,000 bytes a render.
        scope.budget = RenderBudget(bytes: 50_000)
        let template = try Template("{{ a | concat: a }}")
        #expect(try template.render(scope).array?.count == 2_000)
        let said = try failure("{{ a | concat: a }}", scope)
        #expect(said.hasPrefix("the templates of this refresh produced text and lists of more than 50000 bytes together"), "\(said)")
        // A list read as it is, with no filter, is the data's own: not charged.
        for _ in 0..<100 { _ = try Template("{{ a }}").render(scope) }
    }
}
