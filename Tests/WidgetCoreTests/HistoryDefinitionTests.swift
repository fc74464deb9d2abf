import Foundation
import Testing
import WidgetCore
import WidgetJSON

/// A definition's `history` block: its defaults, its bounds, every mistake reported at its place with a
/// fix, instances inheriting it, ids that would collide with a history file, and templates that read a
/// series the block does not have.
struct HistoryDefinitionTests {
    private let reader = DefinitionReader(registry: TestStages.registry, defaultTimeZone: TimeZone(identifier: "UTC")!)

    private func read(_ text: String, file: String = "widgets.d/portfolio.json") -> DefinitionReader.Result {
        reader.read(Data(text.utf8), file: file)
    }

    private func problems(_ text: String, file: String = "widgets.d/portfolio.json") -> [String] {
        read(text, file: file).diagnostics.map(\.description)
    }

    /// A definition with `history` set to `block` (JSON text).
    private func definition(history block: String) -> String {
        #"{"source": {"url": "https://example.com/p.json"}, "history": \#(block)}"#
    }

    @Test func aBlockDecodesWithItsSeriesInOrderAndItsBounds() throws {
        let result = read(
            definition(history: #"{"keep": "30d", "points": 5000, "values": {"total": "$.totalValue", "down": "$.speed.down"}}"#))
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let history = try #require(result.widgets.first?.definition.history)
        #expect(history.keep == WidgetDuration(seconds: 30 * 86_400))
        #expect(history.points == 5_000)
        #expect(history.values.map(\.name) == ["total", "down"])
        #expect(history.values.map(\.path.text) == ["$.totalValue", "$.speed.down"])
        #expect(history.series(named: "down")?.path.text == "$.speed.down")
    }

    @Test func boundsDefaultToSevenDaysAndAThousandPoints() throws {
        let history = try #require(read(definition(history: #"{"values": {"total": "$.total"}}"#)).widgets.first?.definition.history)
        #expect(history.keep == HistoryDefinition.defaultKeep)
        #expect(history.keep.description == "7d")
        #expect(history.points == 1_000)
    }

    @Test func aDefinitionWithoutTheBlockKeepsNoHistory() throws {
        let widget = try #require(read(#"{"source": {"url": "https://example.com/p.json"}}"#).widgets.first)
        #expect(widget.definition.history == nil)
    }

    @Test func theLargestBoundsAreAccepted() {
        #expect(problems(definition(history: #"{"keep": "400d", "points": 10000, "values": {"a": "$.a"}}"#)).isEmpty)
        #expect(problems(definition(history: #"{"keep": "1s", "points": 1, "values": {"a": "$.a"}}"#)).isEmpty)
    }

    @Test func keepPastFourHundredDaysIsRefusedWithAFix() {
        #expect(
            problems(definition(history: #"{"keep": "401d", "values": {"a": "$.a"}}"#)) == [
                #"widgets.d/portfolio.json:1:71: $.history.keep: "keep" is from 1s to 400d; write e.g. "7d" or "30d""#
            ])
    }

    @Test func keepThatIsNotADurationIsRefused() {
        let found = problems(definition(history: #"{"keep": "a week", "values": {"a": "$.a"}}"#))
        #expect(found.count == 1)
        #expect(found.first?.contains("$.history.keep: ") == true)
        #expect(found.first?.contains("\"a week\"") == true)
    }

    @Test(arguments: ["0", "10001", "-3", "2.5", "\"100\""])
    func pointsOutOfRangeAreRefusedWithAFix(points: String) {
        let found = problems(definition(history: #"{"points": \#(points), "values": {"a": "$.a"}}"#))
        #expect(found.count == 1)
        #expect(
            found.first?.hasSuffix(#"$.history.points: "points" must be a whole number from 1 to 10000; write e.g. 1000"#) == true,
            "\(found)")
    }

    @Test func aBadSeriesNameIsReportedAtItsKeyWithAFix() {
        let found = problems(definition(history: #"{"values": {"total value": "$.total", "ok": "$.ok", "9lives": "$.x"}}"#))
        #expect(found.count == 2, "\(found)")
        #expect(found.allSatisfy { $0.contains("is not a series name") && $0.contains("write e.g. \"total\"") })
        #expect(found.contains { $0.contains("$.history.values['total value']") }, "\(found)")
        #expect(found.contains { $0.contains("\"9lives\"") })
    }

    @Test func aBadJSONPathIsReportedWithItsColumnAndAFix() {
        let found = problems(definition(history: #"{"values": {"total": "$.items[", "ok": "$.ok"}}"#))
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.contains("$.history.values.total: \"$.items[\" is not a JSONPath: ") == true, "\(found)")
        #expect(found.first?.hasSuffix("write e.g. \"$.totalValue\"") == true)
    }

    @Test func aSeriesThatIsNotAStringIsRefused() {
        let found = problems(definition(history: #"{"values": {"total": 3}}"#))
        #expect(
            found == [
                #"widgets.d/portfolio.json:1:83: $.history.values.total: the series "total" must be a JSONPath string, not number; write e.g. "$.totalValue""#
            ])
    }

    @Test func missingOrEmptyValuesAreRefused() {
        #expect(
            problems(definition(history: #"{"keep": "7d"}"#)).first?.hasSuffix(
                #"$.history: "history" has no "values"; add e.g. "values": {"total": "$.totalValue"}"#) == true)
        #expect(
            problems(definition(history: #"{"values": {}}"#)).first?.hasSuffix(
                #"$.history.values: "values" must be an object of named JSONPaths such as {"total": "$.totalValue"}"#) == true)
        #expect(problems(definition(history: #"{"values": ["$.a"]}"#)).first?.contains("must be an object of named JSONPaths") == true)
    }

    @Test func anUnknownKeyGetsAHint() {
        let found = problems(definition(history: #"{"kept": "7d", "values": {"a": "$.a"}}"#))
        #expect(found.count == 1)
        #expect(found.first?.contains("kept") == true)
        #expect(found.first?.contains("keep") == true)
    }

    @Test func aBlockThatIsNotAnObjectIsRefused() {
        #expect(problems(definition(history: #""7d""#)).first?.contains(#""history" must be an object such as"#) == true)
    }

    @Test func instancesInheritTheBlock() throws {
        let result = read(
            #"""
            {"source": {"url": "https://example.com/{{ params.who }}.json"}, "history": {"values": {"total": "$.total"}},
             "instances": [{"id": "a", "params": {"who": "a"}}, {"id": "b", "params": {"who": "b"}}]}
            """#)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        #expect(result.widgets.map(\.definition.id) == ["portfolio.a", "portfolio.b"])
        #expect(result.widgets.allSatisfy { $0.definition.history?.values.map(\.name) == ["total"] })
    }

    // MARK: - Ids

    @Test func anIdEndingInHistoryIsRefusedFromTheFileName() {
        let found = problems(#"{"source": {"url": "https://example.com/p.json"}}"#, file: "widgets.d/portfolio.history.json")
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.contains(#"the id "portfolio.history" is refused: an id may not end in ".history""#) == true)
        #expect(found.first?.contains(#"OUT/portfolio.history.json is the history of the widget "portfolio""#) == true)
        #expect(found.first?.contains(#"e.g. "portfolio-history""#) == true)
    }

    @Test func anIdEndingInHistoryIsRefusedFromTheIdKey() {
        let found = problems(#"{"id": "x.history", "source": {"url": "https://example.com/p.json"}}"#)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.contains("$.id: the id \"x.history\" is refused") == true)
    }

    @Test func anInstanceWhoseIdEndsInHistoryIsRefused() {
        let found = problems(
            #"{"source": {"url": "https://example.com/p.json"}, "instances": [{"id": "ok"}, {"id": "history"}]}"#)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.contains("$.instances[1].id: the widget id \"portfolio.history\" is refused") == true)
    }

    @Test func idsThatOnlyContainHistoryAreFine() {
        #expect(problems(#"{"id": "history", "source": {"url": "https://example.com/p.json"}}"#).isEmpty)
        #expect(problems(#"{"id": "history.x", "source": {"url": "https://example.com/p.json"}}"#).isEmpty)
        #expect(problems(#"{"id": "my-history", "source": {"url": "https://example.com/p.json"}}"#).isEmpty)
    }

    // MARK: - Templates

    @Test func aTemplateReadingAKnownSeriesIsFine() {
        let text = #"""
            {"source": {"url": "https://example.com/p.json"}, "history": {"values": {"total": "$.total"}},
             "transforms": [{"type": "map", "fields": {"n": "{{ history.total.size }}", "last": "{{ history.total.last.value }}", "all": "{{ history.size }}"}}]}
            """#
        #expect(problems(text).isEmpty, "\(problems(text))")
    }

    @Test func aTemplateReadingAnUnknownSeriesIsReportedWithAHint() {
        let text = #"""
            {"source": {"url": "https://example.com/p.json"}, "history": {"values": {"total": "$.total", "down": "$.down"}},
             "transforms": [{"type": "map", "fields": {"n": "{{ history.totl | size }}"}}]}
            """#
        let found = problems(text)
        #expect(found.count == 1, "\(found)")
        #expect(
            found.first?.contains(
                "$.transforms[0].fields.n: the template reads history.totl, which is not a series of \"history\"; did you mean 'total'?")
                == true, "\(found)")
    }

    @Test func aTemplateReadingHistoryWithoutABlockIsReportedWithAFix() {
        let text = #"""
            {"source": {"url": "https://example.com/p.json"}, "view": "{{ history.total | size }}"}
            """#
        let found = problems(text)
        #expect(found.count == 1, "\(found)")
        #expect(
            found.first?.contains(
                "$.view: the template reads history.total, but this definition keeps no history; add \"history\": {\"values\": {\"total\": \"$.…\"}}"
            ) == true, "\(found)")
    }

    @Test func aBlockThatCannotBeReadDoesNotAlsoReportItsTemplates() {
        let text = #"""
            {"source": {"url": "https://example.com/p.json"}, "history": {"points": 0, "values": {"total": "$.total"}}, "view": "{{ history.total | size }}"}
            """#
        let found = problems(text)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.contains("\"points\" must be") == true)
    }

    @Test func seriesNamesFollowTheirPattern() {
        for name in ["total", "_x", "A1", "down_speed"] { #expect(HistoryDefinition.isValidName(name)) }
        for name in ["", "1a", "a-b", "a.b", "é", "a b"] { #expect(!HistoryDefinition.isValidName(name)) }
    }
}
