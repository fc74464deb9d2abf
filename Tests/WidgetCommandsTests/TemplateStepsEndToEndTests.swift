import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetTestSupport

/// The built `widgetd` with templates that loop 10¹⁰ times without reading data: `validate` names each,
/// and `run --once` ends, the other widgets fresh. `--template-steps` keeps the tests fast: the limit
/// is counted in steps, not time.
@Suite(.timeLimit(.minutes(5)))
struct TemplateStepsEndToEndTests {
    /// 10¹⁰ iterations; `body` goes in the inner loop.
    static func loop(_ body: String = "") -> String {
        "{% for a in (1..100000) %}{% for b in (1..100000) %}\(body){% endfor %}{% endfor %}"
    }

    static let limit = "the templates did more than 1000000 steps (tags, loop iterations and filter calls), the limit for"

    @Test func validateNamesALoopInATitlePlaceholderFieldAndView() async throws {
        let folder = try TemporaryFolder()
        let source = #""source": {"path": "data/a.json"}, "parser": "json""#
        try folder.write("widgets.d/data/a.json", "{}")
        try folder.write("widgets.d/a-title.json", #"{\#(source), "title": "\#(Self.loop())"}"#)
        try folder.write("widgets.d/b-placeholder.json", #"{\#(source), "placeholder": {"text": "\#(Self.loop())"}}"#)
        try folder.write(
            "widgets.d/c-field.json", #"{\#(source), "transforms": [{"type": "map", "fields": {"x": "\#(Self.loop())"}}]}"#)
        try folder.write("widgets.d/d-view.json", #"{\#(source), "view": "\#(Self.loop())"}"#)
        let result = try await Widgetd.run(["validate", "--config", "widgets.d", "--template-steps", "1000000"], in: folder.url)
        #expect(result.status == 1)
        let lines = result.stdoutLines
        #expect(lines.count == 4, "\(result.stdout)")
        for (line, place) in zip(lines, ["a-title.json:1:", "b-placeholder.json:1:", "c-field.json:1:", "d-view.json:1:"]) {
            #expect(line.hasPrefix("widgets.d/" + place), "\(line)")
        }
        for (line, path) in zip(lines, ["$.title", "$.placeholder.text", "$.transforms[0].fields.x", "$.view"]) {
            #expect(line.contains(": \(path): this template can never render: \(Self.limit) checking one definition file"), "\(line)")
            #expect(line.hasSuffix("--template-steps N raises the limit"), "\(line)")
        }
        #expect(result.stderr == "4 files checked, 0 widgets valid, 4 problems\n")
    }

    @Test func runOnceEndsWithALoopingViewAndFieldAndTheOtherWidgetsFresh() async throws {
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/data/a.json", #"{"title": "hello"}"#)
        let source = #""source": {"path": "data/a.json"}, "parser": "json", "timeline": "single""#
        // Both read data, so they are not rendered when the definitions load: only when they run.
        try folder.write("widgets.d/view.json", #"{\#(source), "view": "\#(Self.loop("{% if entry.content.title %}{% endif %}"))"}"#)
        try folder.write(
            "widgets.d/field.json",
            #"{\#(source), "transforms": [{"type": "map", "fields": {"x": "\#(Self.loop("{% if title %}{% endif %}"))"}}]}"#)
        try folder.write("widgets.d/good.json", #"{\#(source), "view": "<p>{{ entry.content.title }}</p>"}"#)
        let result = try await Widgetd.run(
            ["run", "--config", "widgets.d", "--out", "out", "--once", "--template-steps", "1000000"], in: folder.url)
        #expect(result.status == 1)
        #expect(result.stderrLines.last == "3 widgets refreshed into out: 2 fresh, 1 not fresh", "\(result.stderr)")

        let field = try JSONReader.read(try Data(contentsOf: folder.file("out/field.json")))
        let error = field["error"]?.string ?? ""
        #expect(error.contains(#"the "x" field failed on the value: \#(Self.limit) one refresh"#), "\(error)")

        let page = try String(contentsOf: folder.file("out/index.html"), encoding: .utf8)
        #expect(page.contains("view: \(Self.limit) the views of one card"), "\(page.count) bytes")
        #expect(page.contains("<p>hello</p>"))
        let good = try JSONReader.read(try Data(contentsOf: folder.file("out/good.json")))
        #expect(good["status"] == "fresh")
    }
}
