import Foundation
import Testing
import WidgetRuntime

/// Seed 002 (SF50 Runways) in the six-seed gallery, family by family, as a person sees the page: the texts
/// the app's widget views show for the recorded METAR (RISCfuture/SF50-TOLD, `SF50 Runways/Views/`), and
/// "unavailable" for the families the app does not offer (SF50_Runways.swift:34: small and medium).
struct SF50RunwaysFamiliesTests {
    /// What each family shows, in order. 350° at 15 kt (the gust of 22 left out, RunwaySnapshot.swift:32-47),
    /// the runways by name (lines 52-62): 10 has 7 kt of tailwind and 13 of crosswind from the left, so
    /// 7,044 ft needed of 4,800 (a red cross); 17L and 17R 15 kt of tailwind, over the limit: N/A (a grey
    /// question mark); 28 a 7 kt headwind, 4,853 of 4,800 (red); 35L and 35R 15 kt of headwind, 4,441 ft
    /// (green checks). See SeedWidgetsEndToEndTests for the arithmetic.
    static let expected: [String: [String]] = [
        // WidgetGridView.swift:13-33, RunwayGridItem.swift:9-57: up to eight, two by two.
        "small": ["Centennial", "✗ 10", "? 17L", "? 17R", "✗ 28", "✓ 35L", "✓ 35R"],
        // WidgetListView.swift:8-24, RunwayListItem.swift:21-127: the first four, arrows and distances.
        "medium": [
            "Centennial", "10", "▲7 ▶13", "7,044′ / 4,800′", "17L", "▲15 ◀2", "N/A", "17R", "▲15 ◀2", "N/A", "28", "▼7 ◀13",
            "4,853′ / 4,800′",
        ],
    ]

    @Test(.enabled(if: GalleryBrowser.isAvailable, "needs chromium"))
    func everyFamilyShowsWhatTheAppShowsOrSaysItIsUnavailable() async throws {
        let gallery = try await SeedGalleryPage.shared.value
        for (family, texts) in gallery.readings {
            let text = try #require(texts["sf50-runways"], "\(family): \(texts.keys.sorted())")
            if let expected = Self.expected[family] {
                SeedGalleryPage.expectInOrder(expected, in: text, family)
                // The gusts are not shown, nor a component from them (21.8 kt of tailwind).
                #expect(!text.contains("22") && !text.contains("21.8"), "\(family): \(text)")
                if family == "medium" { #expect(!text.contains("35L"), "four runways only: \(text)") }
            } else {
                #expect(text.lowercased().contains("unavailable"), "\(family): \(text)")
                #expect(!text.contains("17L"), "\(family): \(text)")
            }
        }
    }
}
