import Foundation
import Testing
import WidgetCore
import WidgetLiquid

/// The `view` key of a definition: one template for every family, or one per family, checked when read;
/// and the id the gallery takes.
struct ViewDefinitionTests {
    private let reader = DefinitionReader(registry: TestStages.registry, defaultTimeZone: TimeZone(identifier: "UTC")!)

    private func read(view: String) -> DefinitionReader.Result {
        reader.read(Data(#"{"source": {"url": "https://example.com/a.json"}, "view": \#(view)}"#.utf8), file: "widgets.d/news.json")
    }

    @Test func oneTemplateServesEveryHomeScreenFamilyAndNoLockScreenOne() throws {
        let result = read(view: #""<h3>{{ entry.content.title }}</h3>""#)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let view = try #require(result.widgets.first?.definition.view)
        for family in ViewDefinition.Family.homeScreen {
            #expect(view.template(for: family)?.source == "<h3>{{ entry.content.title }}</h3>")
        }
        for family in ViewDefinition.Family.accessories {
            #expect(view.template(for: family) == nil, "\(family)")
            #expect(!view.isAvailable(family))
        }
        #expect(view.availableFamilies == [.small, .medium, .large, .extraLarge])
    }

    @Test func lockScreenFamiliesShowOnlyWhenWritten() throws {
        let result = read(view: #"{"medium": "M", "accessoryInline": "I"}"#)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let view = try #require(result.widgets.first?.definition.view)
        #expect(view.families == [.medium, .accessoryInline])
        #expect(view.availableFamilies == [.small, .medium, .large, .extraLarge, .accessoryInline])
        #expect(view.template(for: .extraLarge)?.source == "M")
        #expect(view.template(for: .accessoryInline)?.source == "I")
        #expect(view.template(for: .accessoryCircular) == nil)
        #expect(view.template(for: .accessoryRectangular) == nil)
    }

    @Test func supportedFamiliesLeaveTheOthersUnavailable() throws {
        let result = read(view: #"{"large": "L", "supportedFamilies": ["large", "extraLarge"]}"#)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let view = try #require(result.widgets.first?.definition.view)
        #expect(view.supportedFamilies == [.large, .extraLarge])
        #expect(view.availableFamilies == [.large, .extraLarge])
        #expect(view.template(for: .extraLarge)?.source == "L")
        for family in [ViewDefinition.Family.small, .medium] + ViewDefinition.Family.accessories {
            #expect(view.template(for: family) == nil, "\(family)")
        }
        let lockScreen = read(view: #"{"accessoryRectangular": "R", "supportedFamilies": ["accessoryCircular", "accessoryRectangular"]}"#)
        #expect(lockScreen.diagnostics.isEmpty, "\(lockScreen.diagnostics)")
        let small = try #require(lockScreen.widgets.first?.definition.view)
        #expect(small.availableFamilies == [.accessoryCircular, .accessoryRectangular])
        #expect(small.template(for: .accessoryCircular)?.source == "R")
    }

    @Test func badSupportedFamiliesAreReportedWithTheirPlaceAndTheKnownNames() {
        let unknown = read(view: #"{"large": "L", "supportedFamilies": ["large", "extraLrge"]}"#).diagnostics.map(\.description)
        #expect(
            unknown == [
                #"widgets.d/news.json:1:105: $.view.supportedFamilies[1]: "extraLrge" is not a family (did you mean 'extraLarge'?); write one of "small", "medium", "large", "extraLarge", "accessoryCircular", "accessoryRectangular", "accessoryInline""#
            ], "\(unknown)")
        let notAList = read(view: #"{"large": "L", "supportedFamilies": "large"}"#).diagnostics.map(\.description)
        #expect(
            notAList.count == 1
                && notAList[0].contains(
                    #"$.view.supportedFamilies: "supportedFamilies" must be a list of families such as ["large", "extraLarge"], not string"#
                ), "\(notAList)")
        let empty = read(view: #"{"large": "L", "supportedFamilies": []}"#).diagnostics.map(\.description)
        #expect(empty.count == 1 && empty[0].contains("not an empty one"), "\(empty)")
        let number = read(view: #"{"large": "L", "supportedFamilies": [3]}"#).diagnostics.map(\.description)
        #expect(number.count == 1 && number[0].contains("$.view.supportedFamilies[0]: number is not a family"), "\(number)")
        let orphan = read(view: #"{"large": "L", "supportedFamilies": ["large", "accessoryInline"]}"#).diagnostics.map(\.description)
        #expect(
            orphan.count == 1
                && orphan[0].contains(
                    #"$.view.supportedFamilies: "accessoryInline" is supported but has no template, nor does a neighbour ("accessoryRectangular", "accessoryCircular"); add "accessoryInline": "…" to "view" or remove it from the list"#
                ), "\(orphan)")
    }

    @Test func aMissingFamilyShowsTheNearestOne() throws {
        let result = read(view: #"{"small": "S {{ entry.date }}", "large": "L"}"#)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let view = try #require(result.widgets.first?.definition.view)
        #expect(view.families == [.small, .large])
        #expect(view.template(for: .small)?.source == "S {{ entry.date }}")
        #expect(view.template(for: .medium)?.source == "L")
        #expect(view.template(for: .large)?.source == "L")
    }

    @Test func withoutAViewTheDefinitionHasNone() throws {
        let result = reader.read(Data(#"{"source": {"url": "https://example.com/a.json"}}"#.utf8), file: "widgets.d/news.json")
        #expect(result.widgets.first?.definition.view == nil)
    }

    @Test func partialsAreReadFromTheViewsFolderBesideTheDefinitionAndChangeItsFingerprint() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("views-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("views"), withIntermediateDirectories: true)
        let definition = #"{"source": {"url": "https://example.com/a.json"}, "view": "{% render 'card' %}"}"#
        let file = folder.appendingPathComponent("news.json").path
        func read() -> DefinitionReader.Result { reader.read(Data(definition.utf8), file: file) }

        let missing = read().diagnostics.map(\.description)
        #expect(missing.count == 1 && missing[0].contains("$.view: there is no partial 'card'"), "\(missing)")
        try Data("<h3>{{ entry.content.title }}</h3>{% render 'byline' %}".utf8).write(
            to: folder.appendingPathComponent("views/card.liquid"))
        try Data("<p>{{ entry.content.author | upcse }}</p>".utf8).write(to: folder.appendingPathComponent("views/byline.liquid"))
        let broken = read().diagnostics.map(\.description)
        #expect(broken.count == 1 && broken[0].contains("views/byline.liquid:1:30: unknown filter 'upcse'"), "\(broken)")

        try Data("<p>{{ entry.content.author }}</p>".utf8).write(to: folder.appendingPathComponent("views/byline.liquid"))
        let first = read()
        #expect(first.diagnostics.isEmpty, "\(first.diagnostics)")
        try Data("<p>by {{ entry.content.author }}</p>".utf8).write(to: folder.appendingPathComponent("views/byline.liquid"))
        let second = read()
        #expect(second.widgets.first?.definition.fingerprint != first.widgets.first?.definition.fingerprint)
        #expect(second.widgets.first?.definition.view?.partials != nil)
    }

    @Test func theIdIndexIsTakenByTheGalleryAndTheIndex() {
        let named = reader.read(Data(#"{"source": {"url": "https://example.com/a.json"}}"#.utf8), file: "widgets.d/index.json")
        #expect(
            named.diagnostics.map(\.description) == [
                #"widgets.d/index.json:1:1: $: the id "index" is taken by the output folder's own files (OUT/index.json and OUT/index.html list every widget); rename the file or add an "id" key"#
            ])
        let written = reader.read(Data(#"{"id": "index", "source": {"url": "https://example.com/a.json"}}"#.utf8), file: "widgets.d/a.json")
        #expect(written.diagnostics.map(\.description).first?.contains(#"$.id: the id "index" is taken"#) == true, "\(written.diagnostics)")
        #expect(written.widgets.isEmpty)
    }

    @Test func badViewsAreReportedWithTheirPlaceAndAFix() {
        #expect(
            read(view: "3").diagnostics.map(\.description) == [
                #"widgets.d/news.json:1:59: $.view: "view" must be a template or an object of families such as {"small": "…", "medium": "…"}, not number"#
            ])
        let unknown = read(view: #"{"tiny": "x"}"#).diagnostics.map(\.description)
        #expect(unknown.contains { $0.contains("$.view.tiny") && $0.contains("small") }, "\(unknown)")
        let empty = read(view: "{}").diagnostics.map(\.description)
        #expect(
            empty.contains {
                $0.contains(
                    #"$.view: "view" has no family; give at least one of "small", "medium", "large", "extraLarge", "accessoryCircular", "accessoryRectangular" or "accessoryInline""#
                )
            }, "\(empty)")
        let filter = read(view: #"{"medium": "{{ entry.content.title | upcse }}"}"#).diagnostics.map(\.description)
        #expect(filter.contains { $0.contains("$.view.medium") && $0.contains("did you mean 'upcase'") }, "\(filter)")
        let secret = read(view: #""{{ env.TOKEN }}""#).diagnostics.map(\.description)
        #expect(secret.contains { $0.contains("$.view") && $0.contains("may only be used in a source") }, "\(secret)")
    }
}
