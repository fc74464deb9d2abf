import Foundation
import Testing
import WidgetRuntime

/// Seed 004 (Bitpal) in the six-seed gallery, family by family, as a person sees the page: the texts
/// Bitpal's widget views show for the recorded prices (Pointwelve/Bitpal-iOS, branch
/// 008-api-rate-limit-optimization, Bitpal-v2/BitpalWidget/Views/), and "unavailable" for the families the
/// app does not offer (BitpalWidget.swift:24: small, medium and large).
struct BitpalFamiliesTests {
    /// What each family shows, in order. The numbers (see SeedWidgetsTests in the main package): value
    /// $67,574.825 → "$67,574.82" (half to even, SmallWidgetView.swift:102-124); total P&L 16,287.325 +
    /// 1,250.75 = 17,538.075 → "+17,538", the currency formatter's "+" prefix in place of the "$"
    /// (SmallWidgetView.swift:127-135); 17,538.075 ÷ 50,036.75 = 35.05 % → "(+35.1%)" (lines 138-149).
    static let expected: [String: [String]] = [
        "small": ["Portfolio", "$67,574.82", "+17,538", "(+35.1%)", "Updated"],
        // MediumWidgetView.swift:33-128: the top two of five holdings, then "+3 more".
        "medium": [
            "Portfolio", "$67,574.82", "Unrealized:", "+16,287", "Realized:", "+1,251", "Updated", "Top Holdings",
            "BTC", "Bitcoin", "$48,625", "+17,375", "ETH", "Ethereum", "$13,649", "-$2,351", "+3 more",
        ],
        // LargeWidgetView.swift:34-170 and HoldingRowView.swift:22-93: every holding with its percentage.
        "large": [
            "Portfolio", "$67,574.82", "Total P&L", "+17,538", "Unrealized", "+16,287", "Realized", "+1,251", "Top Holdings",
            "BTC", "$48,625", "+17,375 (+55.6%)", "ETH", "$13,649", "-$2,351 (-14.7%)", "SOL", "$4,651", "+826 (+21.6%)",
            "ARB", "$391", "+391 (+0.0%)", "PEPE", "$258", "+46 (+21.6%)", "Updated",
        ],
    ]

    @Test(.enabled(if: GalleryBrowser.isAvailable, "needs chromium"))
    func everyFamilyShowsWhatTheAppShowsOrSaysItIsUnavailable() async throws {
        let gallery = try await SeedGalleryPage.shared.value
        for (family, texts) in gallery.readings {
            let text = try #require(texts["bitpal-portfolio"], "\(family): \(texts.keys.sorted())")
            if let expected = Self.expected[family] {
                SeedGalleryPage.expectInOrder(expected, in: text, family)
                // Medium shows the top two holdings only.
                if family == "medium" { #expect(!text.contains("SOL"), "\(text)") }
                #expect(!text.contains("Sample"), "\(text)")
            } else {
                #expect(text.lowercased().contains("unavailable"), "\(family): \(text)")
                #expect(!text.contains("$67,574.82"), "\(family): \(text)")
            }
        }
    }
}
