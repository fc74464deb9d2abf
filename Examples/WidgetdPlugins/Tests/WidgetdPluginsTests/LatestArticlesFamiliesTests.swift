import Foundation
import Testing
import WidgetCore
import WidgetRuntime

/// Latest Articles in every family of the six-seed gallery, as a person sees it in the browser, against
/// what the app's widget shows (artsy/eigen, `ios/ArtsyWidget/LatestArticles/`): small "News", the newest
/// title and "Read More"; medium two articles; large "LATEST ARTICLES" and four with their dates.
@Suite(.enabled(if: GalleryBrowser.isAvailable, "needs chromium"))
struct LatestArticlesFamiliesTests {
    /// The recorded feed's four newest titles.
    static let titles = [
        "The 10 Best Booths at Art Basel Miami Beach", "Why Collectors Are Turning to Works on Paper",
        "5 Artists on Our Radar This November", "The Year in Museum Acquisitions",
    ]
    /// Their dates as the app prints them, `MMM d` on the machine's clock (`Models/Article.swift:13`).
    static var dates: [String] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .current
        formatter.dateFormat = "MMM d"
        return ["2026-11-21T17:30:00Z", "2026-11-21T14:05:00Z", "2026-11-20T16:00:00Z", "2026-11-19T12:45:00Z"]
            .compactMap { Timestamp.date($0) }.map { formatter.string(from: $0) }
    }

    @Test func smallShowsOneTitleMediumTwoAndLargeFourWithTheirDates() async throws {
        let gallery = try await SeedGalleryPage.shared.value

        func articles(_ family: String) throws -> String {
            let texts = try #require(gallery.light[family], "\(family)")
            return try #require(texts["latest-articles"], "\(family): \(texts.keys.sorted())")
        }

        // LatestArticles+SmallView.swift:32-53: "News", the logo, the newest title, "Read More".
        let small = try articles("small")
        for shown in ["News", "ARTSY", Self.titles[0], "Read More"] { #expect(small.contains(shown), "\(shown): \(small)") }
        for title in Self.titles.dropFirst() { #expect(!small.contains(title), "\(small)") }
        // LatestArticles+MediumView.swift:22-52: the two newest, each with "Read More".
        let medium = try articles("medium")
        for shown in ["News", "ARTSY", Self.titles[0], Self.titles[1]] { #expect(medium.contains(shown), "\(shown): \(medium)") }
        #expect(medium.components(separatedBy: "Read More").count == 3, "\(medium)")
        for title in Self.titles.dropFirst(2) { #expect(!medium.contains(title), "\(medium)") }
        // LatestArticles+LargeView.swift:16-38: "LATEST ARTICLES", four rows of title and date.
        let large = try articles("large")
        #expect(large.contains("LATEST ARTICLES") && large.contains("ARTSY"), "\(large)")
        for (title, date) in zip(Self.titles, Self.dates) {
            #expect(large.contains("\(title)\n\(date)"), "\(title), then \(date): \(large)")
        }
        #expect(!large.contains("Read More"), "\(large)")
        // LatestArticles+View.swift:6: small, medium and large only.
        for family in ["extraLarge", "accessoryCircular", "accessoryRectangular", "accessoryInline"] {
            let text = try articles(family)
            #expect(text.contains("Unavailable in this size"), "\(family): \(text)")
            #expect(!text.contains(Self.titles[0]), "\(family) is not faked by another view: \(text)")
        }
    }
}
