import Foundation
import Testing
import WidgetCore
import WidgetLiquid

/// The templates a definition renders as it loads (its title, placeholder and templates that read no
/// data: fields, views) spend one step budget per file: a 10¹⁰ loop in any of them is reported at its
/// place, with the limit and the option that raises it, once the file's steps are spent.
struct DefinitionTemplateStepsTests {
    /// 10¹⁰ iterations that read no data.
    static let loop = "{% for a in (1..100000) %}{% for b in (1..100000) %}{% endfor %}{% endfor %}"

    /// A reader whose files may spend 1,000,000 steps: the loops stop after about 80,000 iterations.
    let reader: DefinitionReader = {
        var reader = DefinitionReader(registry: TestStages.registry, defaultTimeZone: TimeZone(identifier: "UTC")!)
        reader.templateStepLimit = 1_000_000
        return reader
    }()

    func problems(_ members: String) -> [String] {
        let text = #"{"source": {"url": "https://example.com/a.json"}, \#(members)}"#
        return reader.read(Data(text.utf8), file: "widgets.d/news.json").diagnostics.map(\.description)
    }

    static let limit =
        "the templates did more than 1000000 steps (tags, loop iterations and filter calls), the limit for checking one definition file"
    static let fix = "--template-steps N raises the limit"

    func expectOneProblem(at path: String, _ members: String) {
        let found = problems(members)
        #expect(found.count == 1, "\(found)")
        let problem = found.first ?? ""
        #expect(problem.hasPrefix("widgets.d/news.json:1:"), "\(problem)")
        #expect(problem.contains(": \(path): "), "\(problem)")
        #expect(problem.contains(Self.limit), "\(problem)")
        #expect(problem.hasSuffix(Self.fix), "\(problem)")
    }

    @Test func aLoopInTheTitleIsReportedAtTheTitle() {
        expectOneProblem(at: "$.title", #""title": "News \#(Self.loop)""#)
    }

    @Test func aLoopInThePlaceholderIsReportedAtItsField() {
        expectOneProblem(at: "$.placeholder.text", #""placeholder": {"text": "\#(Self.loop)"}"#)
    }

    @Test func aLoopInAMapFieldIsReportedAtTheField() {
        expectOneProblem(at: "$.transforms[0].fields.x", #""transforms": [{"type": "map", "fields": {"x": "\#(Self.loop)"}}]"#)
    }

    @Test func aLoopInAViewIsReportedAtTheView() {
        expectOneProblem(at: "$.view", #""view": "\#(Self.loop)""#)
    }

    @Test func aLoopInATitleOfEveryInstanceIsReportedOnce() {
        let found = problems(
            #""title": "{{ params.name }}\#(Self.loop)", "instances": [{"id": "a", "params": {"name": "A"}}, {"id": "b", "params": {"name": "B"}}]"#
        )
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.contains(Self.limit) == true, "\(found)")
    }

    @Test func theDefaultBudgetLeavesLegitimateTemplatesAlone() {
        var reader = DefinitionReader(registry: TestStages.registry, defaultTimeZone: TimeZone(identifier: "UTC")!)
        #expect(reader.templateStepLimit == TemplateSteps.defaultLimit)
        reader.templateStepLimit = 1_000
        let text = #"""
            {"source": {"url": "https://example.com/a.json"}, "title": "{% for i in (1..3) %}{{ i }}{% endfor %}",
             "placeholder": {"text": "{{ (1..20) | join: ', ' }}"}}
            """#
        let result = reader.read(Data(text.utf8), file: "widgets.d/news.json")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        #expect(result.widgets.first?.definition.title == "123")
        #expect(result.widgets.first?.definition.templateStepLimit == 1_000)
    }
}
