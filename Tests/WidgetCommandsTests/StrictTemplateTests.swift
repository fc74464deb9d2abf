import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetTestSupport
import WidgetTesting

/// Strict templates and partials through the real `widgetd`: a runtime template error names the file,
/// line and column and the item; `validate` sees a misspelt name where no item is in scope; `render`
/// reads partials from `partials/` beside the definitions.
@Suite(.timeLimit(.minutes(5)))
struct StrictTemplateTests {
    static let list = #"[{"name": "Ada", "score": 3}, {"name": "Grace", "score": 5}]"#

    @Test func aMissingVariableFailsWithTheFileLineColumnItemAndNearestName() async throws {
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/data/people.json", Self.list)
        try folder.write(
            "widgets.d/people.json",
            """
            {
              // one typo, in the second field
              "source": { "path": "data/people.json" },
              "transforms": [
                { "type": "map", "fields": { "who": "{{ name }}", "points": "{{ score | plus: 1 }} / {{ scroe }}" } }
              ]
            }
            """)
        let output = try await Widgetd.run(["run", "--config", "widgets.d", "--out", "out", "--once"], in: folder.url)
        #expect(output.status == 1)
        let snapshot = try OutputFolder.snapshot("people", in: folder.file("out"))
        let error = try #require(snapshot["error"]?.string)
        // Line 5: the template's string opens at column 65, and the name in {{ scroe }} is its 28th character.
        #expect(
            error
                == "transforms[0] (map) (widgets.d/people.json:5:93): the \"points\" field failed on item 0: there is no variable 'scroe' at column 28; did you mean 'score'?"
        )
    }

    @Test func validateSeesAMisspeltNameInASource() async throws {
        let folder = try TemporaryFolder()
        try folder.write(
            "widgets.d/weather.json",
            """
            {"source": {"url": "https://example.com/{{ parms.city }}"}, "parser": "json",
             "instances": [{"id": "a", "params": {"city": "Oslo"}}]}
            """)
        let output = try await Widgetd.run(["validate", "--config", "widgets.d"], in: folder.url)
        #expect(output.status == 1)
        #expect(
            output.stdout.contains(
                "widgets.d/weather.json:1:20: $.source.url: the template reads 'parms', which is not in scope here; did you mean 'params'?"),
            "\(output.stdout)")
    }

    @Test func partialsBesideTheDefinitionsAreRendered() async throws {
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/data/people.json", Self.list)
        try folder.write("widgets.d/partials/badge.liquid", "{{ person.name | upcase }}{% if person.score > 4 %} ★{% endif %}")
        try folder.write(
            "widgets.d/people.json",
            """
            {"source": {"path": "data/people.json"},
             "transforms": [{"type": "map", "fields": {"badge": "{% render 'badge', person: item %}"}}]}
            """)
        let output = try await Widgetd.run(["run", "--config", "widgets.d", "--out", "out", "--once"], in: folder.url)
        #expect(output.status == 0, "\(output.stderr)")
        let snapshot = try OutputFolder.snapshot("people", in: folder.file("out"))
        let badges = snapshot["entries"]?[0]?["content"]?.array?.compactMap { $0["badge"]?.string }
        #expect(badges == ["ADA", "GRACE ★"])
    }
}
