import Foundation
import Testing
import WidgetCore
import WidgetJSON
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
        // Every family expected was read: a loop over none would check nothing.
        #expect(Set(gallery.readings.map(\.family)).isSuperset(of: Self.expected.keys), "\(gallery.readings.map(\.family))")
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

    @Test func theLargeFamilyDrawsTheValuesHistoryOnceItHasTwoPoints() throws {
        let definition = try SeedView.definition(seed: "004-bitpal-portfolio", id: "bitpal-portfolio")
        let values = ["61250.5", "63010", "59875.25", "64100.125", "67574.825"]
        let large = try SeedView.render(definition, family: .large, history: ["total": SeedView.points(values)])
        let svg = try #require(large.firstMatch(of: /<svg class="sparkline"[^>]*>.*?<\/svg>/), "\(large)").output
        #expect(svg.hasPrefix(#"<svg class="sparkline" viewBox="0 0 400 48" width="400" height="48" role="img">"#), "\(svg)")
        #expect(
            svg.contains("<title>Portfolio value (USD): min 59875.25, max 67574.825, first 61250.5, last 67574.825 (5 points)</title>"),
            "\(svg)")
        #expect(svg.contains(#"<circle class="spark-min" "#) && svg.contains(#"<circle class="spark-first" "#), "\(svg)")
        #expect(svg.contains(#"<circle class="spark-max spark-last" "#), "\(svg)")
        // Between the totals and the holdings.
        let sparkline = try #require(large.range(of: "<svg"))
        #expect(large.range(of: "Realized")!.lowerBound < sparkline.lowerBound)
        #expect(sparkline.upperBound < large.range(of: "Top Holdings")!.lowerBound)

        // One point, or no history block, draws nothing; small and medium never do.
        let one = try SeedView.render(definition, family: .large, history: ["total": SeedView.points(["1"])])
        #expect(!one.contains("<svg") && one.contains("Top Holdings"), "\(one)")
        #expect(!(try SeedView.render(definition, family: .large, history: [:])).contains("<svg"))
        for family in [ViewDefinition.Family.small, .medium] {
            #expect(!(try SeedView.render(definition, family: family, history: ["total": SeedView.points(values)])).contains("<svg"))
        }
    }

    /// With `WIDGETD_SCREENSHOTS` set (`Examples/gallery/screenshots.sh`), the large card with a day of
    /// history is photographed, light and dark, into the seed's `screenshots/large-history-*.png`.
    @Test(.enabled(if: GalleryBrowser.isAvailable, "needs chromium"))
    func theLargeCardWithItsHistoryIsPhotographedLightAndDark() throws {
        let definition = try SeedView.definition(seed: "004-bitpal-portfolio", id: "bitpal-portfolio")
        // A day of quarter-hours climbing with the market's swings to the sample's value, the last point.
        let values =
            (0..<96).map { step -> String in
                let swing = 1_800 * sin(Double(step) / 5) + 700 * sin(Double(step) * 1.7)
                return String(format: "%.2f", 112_000 + Double(step) * 125 + swing)
            } + ["125000.5"]
        var content = try #require(definition.placeholder?.object)
        content["sample"] = false
        let html = try SeedView.page(definition, family: .large, content: .object(content), history: ["total": SeedView.points(values)])
        #expect(html.contains(#"<svg class="sparkline" viewBox="0 0 400 48""#))
        guard let folder = ProcessInfo.processInfo.environment["WIDGETD_SCREENSHOTS"], !folder.isEmpty else { return }
        let out = try SeedWidgetsEndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let page = out.appendingPathComponent("index.html")
        try Data(html.utf8).write(to: page)
        let screenshots = SeedWidgetsEndToEndTests.seeds.appendingPathComponent("004-bitpal-portfolio/screenshots")
        for dark in [false, true] {
            let file = screenshots.appendingPathComponent("large-history-\(dark ? "dark" : "light").png")
            let query = "family=large&widget=bitpal-portfolio&now=\(Timestamp.string(SeedWidgetsEndToEndTests.start))"
            try SeedGalleryTests.screenshot(page, query: query, size: "470,720", dark: dark, into: file)
        }
    }
}
