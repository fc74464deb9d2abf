import Foundation
import Testing
import WidgetCore
import WidgetRuntime
import WidgetStages
import WidgetTestSupport

/// Loading a folder reads its files on several cores; what it gives must not depend on that.
struct DefinitionDirectoryTests {
    @Test func aLargeFolderLoadsInFileOrderWithTheLaterOfTwoEqualIDsReported() throws {
        let folder = try TemporaryFolder()
        for index in 0..<60 {
            let name = String(format: "w%02d.json", index)
            let text: String
            switch index % 10 {
            case 3: text = #"{"source": {"path": "x.json"}, "staleAftr": "1h"}"#
            case 7: text = #"{"id": "shared", "source": {"path": "x.json"}}"#
            default: text = #"{"source": {"path": "x.json"}}"#
            }
            try folder.write("widgets.d/\(name)", text)
        }
        let directory = DefinitionDirectory(path: folder.file("widgets.d").path)
        let result = directory.load(reader: DefinitionReader(registry: .builtIn))
        let expectedIDs = (0..<60).filter { $0 % 10 != 3 && $0 % 10 != 7 }.map { String(format: "w%02d", $0) }
        #expect(result.widgets.map(\.id) == Array(expectedIDs.prefix(6)) + ["shared"] + expectedIDs.dropFirst(6))
        #expect(result.files == (0..<60).map { directory.path + "/" + String(format: "w%02d.json", $0) })
        let problems = result.diagnostics.map { ($0.file as NSString).lastPathComponent + " " + $0.message }
        var expected: [String] = []
        for index in 0..<60 where index % 10 == 3 || (index % 10 == 7 && index > 7) {
            let name = String(format: "w%02d.json", index)
            expected.append(
                index % 10 == 3
                    ? "\(name) unknown key 'staleAftr'; did you mean 'staleAfter'?"
                    : #"\#(name) the widget id "shared" is already used by \#(directory.path)/w07.json; rename this file or set a different "id""#
            )
        }
        #expect(problems == expected)
        #expect(result.failedFiles.count == expected.count)
        // Loading again gives the same result, whichever core read which file.
        let again = directory.load(reader: DefinitionReader(registry: .builtIn))
        #expect(again.widgets.map(\.id) == result.widgets.map(\.id))
        #expect(again.diagnostics == result.diagnostics)
    }

    /// Files written alike share what they repeat within one load (members, stages, templates): each file's
    /// problems, warnings and widgets must be those it has read alone, whichever file read a part first.
    @Test func filesWrittenAlikeReadAsEachAlone() throws {
        let folder = try TemporaryFolder()
        let good = #"{ "type": "each", "at": ["08:00", "20:00"] }"#
        let transforms = #"[{ "type": "limit", "count": 4 }, { "type": "map", "fields": { "t": "{{ title | upcase }}" } }]"#
        let variants: [(schedule: String, timeline: String, transforms: String)] = [
            (#"{ "every": "15m", "maxPerDay": 96 }"#, good, transforms),
            // An unknown key in a member, a bad duration, bad stage options, a warning (96 refreshes a day, 50 allowed).
            (#"{ "every": "15m", "maxPerDay": 96, "jiter": "1m" }"#, good, transforms),
            (#"{ "every": "15 minutes" }"#, good, transforms),
            (#"{ "every": "15m", "maxPerDay": 96 }"#, #"{ "type": "each", "at": ["08:00", "20:00"], "limt": 3 }"#, transforms),
            (#"{ "every": "15m", "maxPerDay": 96 }"#, good, #"[{ "type": "limit", "count": -4 }]"#),
            (#"{ "every": "15m", "maxPerDay": 50 }"#, good, #"[{ "type": "limit", "cont": 4 }]"#),
            (#"{ "every": "15m", "maxPerDay": 50 }"#, good, transforms),
        ]
        var texts: [String] = []
        for index in 0..<48 {
            let variant = variants[index % variants.count]
            let text = """
                {
                  "title": "Widget \(index)",
                  "source": { "url": "https://example.com/items?page=\(index % 5)" },
                  "transforms": \(variant.transforms),
                  "timeline": \(variant.timeline),
                  "schedule": \(variant.schedule),
                  "fallback": { "keep": 20 }
                }
                """
            texts.append(text)
            try folder.write(String(format: "widgets.d/w%02d.json", index), text)
        }
        let directory = DefinitionDirectory(path: folder.file("widgets.d").path)
        let result = directory.load(reader: DefinitionReader(registry: .builtIn))
        let alone = zip(result.files, texts).map { DefinitionReader(registry: .builtIn).read(Data($1.utf8), file: $0) }
        #expect(result.diagnostics == alone.flatMap(\.diagnostics))
        #expect(result.warnings == alone.flatMap(\.warnings))
        #expect(!result.diagnostics.isEmpty && !result.warnings.isEmpty)
        let widgets = alone.flatMap(\.widgets)
        #expect(result.widgets.map(\.id) == widgets.map(\.id))
        for (shared, single) in zip(result.widgets, widgets) {
            #expect(shared.definition.schedule == single.definition.schedule)
            #expect(shared.definition.transforms == single.definition.transforms)
            #expect(shared.definition.source == single.definition.source)
            #expect(shared.definition.fallback == single.definition.fallback)
            #expect(shared.definition.fingerprint == single.definition.fingerprint)
            #expect(shared.transformers.map { "\($0)" } == single.transformers.map { "\($0)" })
            #expect("\(shared.timeline)" == "\(single.timeline)")
        }
        // `validate`'s check reports the same.
        let check = directory.check(reader: DefinitionReader(registry: .builtIn))
        #expect(check.diagnostics == result.diagnostics)
        #expect(check.widgetCount == result.widgets.count)
    }
}
