import Foundation
import Testing
import WidgetCore
import WidgetRuntime

/// The six-seed gallery page as `SeedGalleryTests` renders it (every seed's folder against the recorded
/// APIs at the fixture's clock), read in the browser family by family: what a person sees in each card.
/// The page is rendered and read once for all the tests that need it.
struct SeedGalleryPage: Sendable {
    /// The seven families the gallery's size switch offers.
    static let families = [
        "small", "medium", "large", "extraLarge", "accessoryCircular", "accessoryRectangular", "accessoryInline",
    ]

    /// Each family's visible texts in the light theme, by family, then by widget id.
    let light: [String: [String: String]]
    /// The medium family's visible texts in the dark theme, by widget id.
    let darkMedium: [String: String]

    /// Every reading of the page a test checks, in order: each family in the light theme, and medium in
    /// the dark one too (the texts are the same in both themes).
    var readings: [(family: String, texts: [String: String])] {
        Self.families.flatMap { family in
            [(family, light[family] ?? [:])] + (family == "medium" ? [(family, darkMedium)] : [])
        }
    }

    /// The page rendered and read once.
    static let shared = Task { try await read() }

    /// Renders the gallery of all six seeds and reads every family of it.
    static func read() async throws -> SeedGalleryPage {
        let fixture = try SeedWidgetsEndToEndTests.Fixture()
        let config = try SeedGalleryTests.allSeeds()
        defer { try? FileManager.default.removeItem(at: config) }
        let run = try await fixture.run(config, origins: SeedGalleryTests.origins)
        #expect(run.code == 0, "\(run.log)")
        let page = fixture.out.appendingPathComponent("index.html")
        let now = Timestamp.string(SeedWidgetsEndToEndTests.start)
        var light: [String: [String: String]] = [:]
        for family in families {
            light[family] = try await GalleryBrowser.visibleTexts(page, family: family, now: now)
        }
        let darkMedium = try await GalleryBrowser.visibleTexts(page, family: "medium", now: now, dark: true)
        return SeedGalleryPage(light: light, darkMedium: darkMedium)
    }

    /// Expects each of `expected` in `text`, each after the one before.
    static func expectInOrder(_ expected: [String], in text: String, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        var rest = text[...]
        for part in expected {
            guard let range = rest.range(of: part) else {
                Issue.record("\(label): \"\(part)\" is missing after what came before, in: \(text)", sourceLocation: sourceLocation)
                return
            }
            rest = rest[range.upperBound...]
        }
    }
}
