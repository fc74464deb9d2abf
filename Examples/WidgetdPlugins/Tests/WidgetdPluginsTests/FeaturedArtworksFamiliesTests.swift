import Foundation
import Testing
import WidgetCore
import WidgetRuntime

/// Featured Artworks in every family of the six-seed gallery, as a person sees it in the browser, against
/// what the app's widget shows (artsy/eigen, `ios/ArtsyWidget/FullBleed/FullBleed+View.swift`): large and
/// extra-large only, the artist on the first line, the title on the second, the Artsy mark beside them.
@Suite(.enabled(if: GalleryBrowser.isAvailable, "needs chromium"))
struct FeaturedArtworksFamiliesTests {
    /// The recorded day's artworks, artist and title, in file order.
    static let artworks = [
        ("Hilma af Klint", "The Ten Largest, No. 7, Adulthood"), ("Yayoi Kusama", "Pumpkin"),
        ("Jean-Michel Basquiat", "Untitled (Skull)"), ("Georgia O'Keeffe", "Black Iris"),
    ]

    /// The artwork the page shows at the fixture's clock: the entries are at 08:00, 12:00, 16:00 and 20:00
    /// on the machine's clock (`Shared/Schedule.swift:10`), the first before 08:00.
    static var current: (artist: String, title: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let hour = calendar.component(.hour, from: SeedWidgetsEndToEndTests.start)
        return artworks[max(0, [8, 12, 16, 20].filter { hour >= $0 }.count - 1)]
    }

    @Test func largeAndExtraLargeShowTheArtistThenTheTitleAndTheOtherFamiliesAreUnavailable() async throws {
        let gallery = try await SeedGalleryPage.shared.value
        let (artist, title) = Self.current

        // FullBleed+View.swift:8: .systemLarge and .systemExtraLarge; :44-53: artist, title, logo.
        for family in ["large", "extraLarge"] {
            let texts = try #require(gallery.light[family], "\(family)")
            let text = try #require(texts["featured-artworks"], "\(family)")
            let lines = text.split(separator: "\n").map(String.init)
            let (first, second, mark) = (lines.firstIndex(of: artist), lines.firstIndex(of: title), lines.firstIndex(of: "ARTSY"))
            #expect(first != nil && second != nil && mark != nil, "\(family): \(text)")
            #expect(first.flatMap { a in second.map { a < $0 } } == true, "\(family): the artist, then the title: \(text)")
            #expect(!text.contains("Sample"), "\(family): \(text)")
            for (other, _) in Self.artworks where other != artist {
                #expect(!text.contains(other), "\(family) shows one artwork: \(text)")
            }
        }
        for family in ["small", "medium", "accessoryCircular", "accessoryRectangular", "accessoryInline"] {
            let texts = try #require(gallery.light[family], "\(family)")
            let text = try #require(texts["featured-artworks"], "\(family)")
            #expect(text.contains("Unavailable in this size"), "\(family): \(text)")
            #expect(!text.contains(artist), "\(family) is not faked by large's view: \(text)")
        }
    }
}
