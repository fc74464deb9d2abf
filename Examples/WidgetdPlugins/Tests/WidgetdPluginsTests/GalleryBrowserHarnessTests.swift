import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages

/// `GalleryBrowser.visibleTexts` reads what a person sees: the family asked for, the entry current at the
/// page's clock, nothing of a closed `<details>`; and it reads every card of the seed gallery.
@Suite(.enabled(if: GalleryBrowser.isAvailable, "needs chromium"))
struct GalleryBrowserHarnessTests {
    @Test func theTextsAreThoseOfTheFamilyAndEntryShownWithClosedDetailsLeftOut() async throws {
        let folder = try SeedWidgetsEndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let card =
            #"<article class="card" id="w-joke" data-id="joke" data-status="fresh"><header><h2>Joke</h2></header><div class="entries">"#
            + #"<section class="entry" data-date="2026-11-22T05:00:00Z"><div class="view" data-family="small"><p>Small & first</p></div>"#
            + #"<div class="view" data-family="medium"><p>Why?</p><details><summary>Reveal</summary><p>Because.</p></details></div></section>"#
            + #"<section class="entry" data-date="2026-11-23T05:00:00Z" hidden><div class="view" data-family="medium"><p>Tomorrow’s</p></div></section>"#
            + "</div></article>"
        let page = GalleryPage(
            title: "Widgets", cards: [GalleryCard(id: "joke", html: card)], writtenAt: SeedWidgetsEndToEndTests.start)
        let file = folder.appendingPathComponent("index.html")
        try Data(page.html.utf8).write(to: file)

        let medium = try await GalleryBrowser.visibleTexts(file, family: "medium", now: "2026-11-22T16:05:00Z")
        let joke = try #require(medium["joke"])
        #expect(joke.contains("Joke") && joke.contains("Why?") && joke.contains("Reveal"), "\(joke)")
        #expect(!joke.contains("Because."), "a closed <details> hides its text: \(joke)")
        #expect(!joke.contains("Small"), "another family's view: \(joke)")
        #expect(!joke.contains("Tomorrow"), "a later entry: \(joke)")

        let small = try await GalleryBrowser.visibleTexts(file, family: "small", now: "2026-11-22T16:05:00Z", dark: true)
        #expect(small["joke"]?.contains("Small & first") == true, "\(small)")
        #expect(small["joke"]?.contains("Why?") == false, "\(small)")

        let tomorrow = try await GalleryBrowser.visibleTexts(file, family: "medium", now: "2026-11-23T06:00:00Z")
        #expect(tomorrow["joke"]?.contains("Tomorrow’s") == true, "\(tomorrow)")
        #expect(tomorrow["joke"]?.contains("Why?") == false, "\(tomorrow)")
    }

    @Test func eachFamilyShowsItsOwnViewAndAFamilyNotOfferedSaysSo() async throws {
        let folder = try SeedWidgetsEndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let view =
            #"{"small": "<p>S view</p>", "medium": "<p>M view</p>", "large": "<p>L view</p>", "accessoryCircular": "<p>C view</p>", "accessoryInline": "<p>I view</p>"}"#
        let read = DefinitionReader(registry: .builtIn, defaultTimeZone: TimeZone(identifier: "UTC")!)
            .read(Data(#"{"source": {"path": "a.json"}, "view": \#(view)}"#.utf8), file: "widgets.d/w.json")
        let definition = try #require(read.widgets.first?.definition, "\(read.diagnostics)")
        let now = SeedWidgetsEndToEndTests.start
        let snapshot = Snapshot(
            id: "w", title: "Families", status: .fresh, generatedAt: now, lastSuccessAt: now, nextRefreshAt: nil,
            entries: [TimelineEntry(date: now, content: ["text": "x"], url: "mrfunnyjokes://jotd")], error: nil)
        let page = GalleryPage(title: "Widgets", cards: [GalleryCard.render(snapshot, definition: definition, now: now)], writtenAt: now)
        let file = folder.appendingPathComponent("index.html")
        try Data(page.html.utf8).write(to: file)
        let expected: [(ViewDefinition.Family, String)] = [
            (.small, "S view"), (.medium, "M view"), (.large, "L view"), (.extraLarge, "L view"), (.accessoryCircular, "C view"),
            (.accessoryRectangular, "Unavailable in this size"), (.accessoryInline, "I view"),
        ]
        for (family, shown) in expected {
            let text = try #require(try await GalleryBrowser.visibleTexts(file, family: family.rawValue, now: Timestamp.string(now))["w"])
            let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            #expect(lines.contains(shown), "\(family): \(lines)")
            #expect(lines.filter { $0.hasSuffix(" view") || $0.hasPrefix("Unavailable") }.count == 1, "\(family): \(lines)")
        }
    }

    @Test func everySeedsCardHasItsTitleAndText() async throws {
        let fixture = try SeedWidgetsEndToEndTests.Fixture()
        let config = try SeedGalleryTests.allSeeds()
        defer { try? FileManager.default.removeItem(at: config) }
        let run = try await fixture.run(config, origins: SeedGalleryTests.origins)
        #expect(run.code == 0, "\(run.log)")
        let page = fixture.out.appendingPathComponent("index.html")
        let texts = try await GalleryBrowser.visibleTexts(page, family: "medium", now: Timestamp.string(SeedWidgetsEndToEndTests.start))
        let titles = [
            "bitdream.home": "BitDream", "bitdream.seedbox": "BitDream", "bitpal-portfolio": "Portfolio",
            "featured-artworks": "Featured Artworks", "joke-of-the-day": "Joke of the Day", "latest-articles": "Latest Articles",
            "sf50-runways": "Runways",
        ]
        #expect(texts.keys.sorted() == titles.keys.sorted(), "\(texts.keys.sorted())")
        for (id, title) in titles {
            let text = try #require(texts[id], "\(id)")
            #expect(text.contains(title), "\(id): \(text)")
            #expect(text.split(separator: "\n").count > 2, "\(id) shows more than its title: \(text)")
        }
    }
}
