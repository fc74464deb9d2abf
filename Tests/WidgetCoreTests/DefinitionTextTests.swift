import Foundation
import Testing

@testable import WidgetCore

/// Definitions may carry `//` and `/* */` comments and trailing commas, as VS Code's settings files do;
/// positions in errors stay the file's, and a key written twice in one object is an error naming both
/// places.
struct DefinitionTextTests {
    private let reader = DefinitionReader(registry: TestStages.registry, defaultTimeZone: TimeZone(identifier: "UTC")!)

    private func problems(_ text: String) -> [String] {
        reader.read(Data(text.utf8), file: "widgets.d/news.json").diagnostics.map(\.description)
    }

    @Test func commentsAndTrailingCommasBecomeSpacesAndTheRestStaysAsWritten() {
        let text = "{\"a\": 1, // one\n \"b\": [2, 3,], /* é */ \"c\": \"x//y/*z*/\",}"
        let prepared = DefinitionText.prepare(Data(text.utf8))
        #expect(String(decoding: prepared.data, as: UTF8.self) == "{\"a\": 1,       \n \"b\": [2, 3 ],         \"c\": \"x//y/*z*/\" }")
        #expect(prepared.duplicates.isEmpty)
        #expect(prepared.unclosedComment == nil)
        // Without either, the bytes are the file's own.
        let plain = Data(#"{"a": [1, 2], "b": "https://example.com//x"}"#.utf8)
        #expect(DefinitionText.prepare(plain).data == plain)
    }

    @Test func aCommentedDefinitionWithTrailingCommasIsValid() {
        let definition = """
            // Berlin's weather, every half hour.
            {
              "title": "Weather", /* shown on the card */
              "source": { "url": "https://api.example.com/v1/forecast?city=berlin" },
              "transforms": [
                { "type": "map", "fields": { "t": "{{ temperature }}", }, },
              ],
              "schedule": { "every": "30m", },
            }
            """
        #expect(problems(definition) == [])
    }

    @Test func positionsAfterACommentAreTheFilesColumnsInCharacters() {
        let definition = """
            {
              /* émoji 🙂 */ "source": { "url": "https://x.example" }, "schedule": { "every": "ten minutes" }
            }
            """
        let said = problems(definition)
        let column =
            Array("  /* émoji 🙂 */ \"source\": { \"url\": \"https://x.example\" }, \"schedule\": { \"every\": ".unicodeScalars).count + 1
        #expect(said.count == 1)
        #expect(said.first?.hasPrefix("widgets.d/news.json:2:\(column): $.schedule.every: ") == true, "\(said)")
    }

    @Test func aKeyWrittenTwiceIsAnErrorNamingBothPlaces() {
        let definition = """
            {
              "title": "News",
              "source": { "url": "https://a.example", "url": "https://b.example" },
              "title": "Again"
            }
            """
        #expect(
            problems(definition) == [
                "widgets.d/news.json:3:43: $.source.url: the key \"url\" is written twice in this object, first at 3:15; keep one",
                "widgets.d/news.json:4:3: $.title: the key \"title\" is written twice in this object, first at 2:3; keep one",
            ])
        // Keys that differ only in how they are escaped are the same key.
        let escaped = #"{"source": {"url": "https://a.example"}, "titl\u0065": "a", "title": "b"}"#
        #expect(problems(escaped).contains { $0.contains("the key \"title\" is written twice") })
    }

    @Test func aCommentThatIsNeverClosedIsNamed() {
        #expect(
            problems("{\n  \"title\": \"x\" /* never closed\n}\n") == [
                "widgets.d/news.json:2:16: this /* comment is never closed; end it with */"
            ])
    }
}
