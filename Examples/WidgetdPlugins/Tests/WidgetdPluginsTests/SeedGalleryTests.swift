import Foundation
import Testing
import WidgetCore
import WidgetRuntime
import WidgetStages
import WidgetdPlugins

/// The gallery of all six seeds together, as `widgetd-plugins run --once` writes it from the seeds' own
/// folders (definitions, data and `views/`) against the recorded APIs: each card shows what the seed's app
/// shows.
///
/// With `WIDGETD_SCREENSHOTS=FOLDER` in the environment (`Examples/gallery/screenshots.sh` sets it),
/// headless Chromium also photographs the page into FOLDER, light and dark, at desktop and phone widths:
/// the README's pictures.
struct SeedGalleryTests {
    /// Every origin the six seeds reach.
    static let origins =
        SeedWidgetsEndToEndTests.origins + [
            "https://artsy-public.s3.amazonaws.com", "https://d7hftxdivxxvm.cloudfront.net", "https://www.artsy.net",
            "https://firestore.googleapis.com", "https://api.coingecko.com",
        ]

    /// One config folder holding every seed's files but its README and screenshots (their names do not
    /// collide).
    static func allSeeds() throws -> URL {
        let folder = try SeedWidgetsEndToEndTests.temporaryFolder()
        let manager = FileManager.default
        for seed in try manager.contentsOfDirectory(atPath: SeedWidgetsEndToEndTests.seeds.path).sorted() {
            let source = SeedWidgetsEndToEndTests.seeds.appendingPathComponent(seed)
            for item in try manager.contentsOfDirectory(atPath: source.path) where item != "README.md" && item != "screenshots" {
                let from = source.appendingPathComponent(item)
                let to = folder.appendingPathComponent(item)
                var isFolder: ObjCBool = false
                if manager.fileExists(atPath: to.path, isDirectory: &isFolder), isFolder.boolValue {
                    for file in try manager.contentsOfDirectory(atPath: from.path) {
                        try manager.copyItem(at: from.appendingPathComponent(file), to: to.appendingPathComponent(file))
                    }
                } else {
                    try manager.copyItem(at: from, to: to)
                }
            }
        }
        return folder
    }

    /// The card of widget `id` in the gallery page `html`.
    static func card(_ id: String, in html: String) throws -> String {
        let start = try #require(html.range(of: "id=\"w-\(id)\""))
        let end = try #require(html.range(of: "</article>", range: start.upperBound..<html.endIndex))
        return String(html[start.upperBound..<end.lowerBound])
    }

    @Test func theSeedGalleryShowsEachSeedAsItsAppDoes() async throws {
        let fixture = try SeedWidgetsEndToEndTests.Fixture()
        let config = try Self.allSeeds()
        defer { try? FileManager.default.removeItem(at: config) }
        let run = try await fixture.run(config, origins: Self.origins)
        #expect(run.code == 0, "\(run.log)")
        let html = try String(contentsOf: fixture.out.appendingPathComponent("index.html"), encoding: .utf8)
        let ids = [
            "bitdream.home", "bitdream.seedbox", "bitpal-portfolio", "featured-artworks", "joke-of-the-day", "latest-articles",
            "sf50-runways",
        ]
        for id in ids { #expect(html.contains("data-id=\"\(id)\""), "\(id)") }
        #expect(html.components(separatedBy: "<article ").count == ids.count + 1)
        #expect(!html.contains(#"class="view-error""#), "a view failed: \(html)")

        // The artwork full-bleed, its image downloaded: the artist, then the title, then the Artsy mark.
        let art = try Self.card("featured-artworks", in: html)
        #expect(art.contains(#"<div class="full-bleed"><img src="assets/"#), "\(art)")
        #expect(art.contains("<p><b>Hilma af Klint</b></p>\n    <p>The Ten Largest, No. 7, Adulthood</p>"), "\(art)")
        #expect(art.contains(#"<span class="tag">ARTSY</span>"#), "\(art)")
        // News, the newest title and Read More (small); two (medium); four pictures with dates (large).
        let articles = try Self.card("latest-articles", in: html)
        #expect(articles.components(separatedBy: #"<img class="thumb" src="assets/"#).count == 5, "\(articles)")
        #expect(articles.contains("<p class=\"small\"><span>News</span>"), "\(articles)")
        #expect(articles.components(separatedBy: ">Read More</a>").count == 1 + 1 + 2, "\(articles)")
        // The server's counts, ratio and speeds in the app's units; in large (ours) its torrents, the failing
        // one in red.
        let home = try Self.card("bitdream.home", in: html)
        for text in [
            "↓ 5.2 MB/s", "↑ 1 MB/s", "</span> 1.43</span>", "<span class=\"small muted\">Downloading</span>",
            "debian-13.2.0-amd64-netinst.iso",
        ] {
            #expect(home.contains(text), "\(text): \(home)")
        }
        #expect(home.contains(#"<span class="neg small">Tracker gave HTTP response code 404 (Not Found)</span>"#), "\(home)")
        // The card opens the server in the app, as its onOpenURL parses the link.
        #expect(home.contains(#"<a class="entry-link" href="bitdream://server?id=home""#), "\(home)")
        // The runways by name with their wind components from the steady wind (no gusts) and distances.
        let runways = try Self.card("sf50-runways", in: html)
        #expect(runways.contains("<p><b>Centennial</b></p>"), "\(runways)")
        #expect(runways.contains(#"<span class="neg">7,044′</span> / 4,800′"#), "\(runways)")
        #expect(runways.contains(#"<span class="neg" title="tailwind">▲</span>15"#), "\(runways)")
        #expect(!runways.contains("21.8"), "\(runways)")
        // The app's widget has no link.
        #expect(!runways.contains("entry-link"), "\(runways)")
        // The joke's setup and its teller; the punchline closed behind "Reveal".
        let joke = try Self.card("joke-of-the-day", in: html)
        #expect(joke.contains(#"<p class="quote">Why don&#39;t scientists trust atoms?</p>"#), "\(joke)")
        #expect(
            joke.contains(#"<details><summary>Reveal</summary><p class="punchline">Because they make up everything!</p></details>"#),
            "\(joke)")
        #expect(joke.contains("<b>Mr. Sad</b>"), "\(joke)")
        // Each coin's and the total P&L, coloured by sign.
        let portfolio = try Self.card("bitpal-portfolio", in: html)
        #expect(portfolio.contains(#"<p class="big">$67,574.82</p>"#), "\(portfolio)")
        #expect(portfolio.contains(#"<b>+17,538</b> <span class="small">(+35.1%)</span>"#), "\(portfolio)")
        #expect(portfolio.contains(#"<span class="small neg">-$2,351 (-14.7%)</span>"#), "\(portfolio)")
        #expect(portfolio.contains(#"<span class="small pos">+17,375 (+55.6%)</span>"#), "\(portfolio)")
        #expect(portfolio.contains(#"<a class="entry-link" href="bitpal://portfolio""#), "\(portfolio)")

        if let folder = ProcessInfo.processInfo.environment["WIDGETD_SCREENSHOTS"], !folder.isEmpty {
            try Self.photograph(fixture.out.appendingPathComponent("index.html"), into: URL(fileURLWithPath: folder))
        }
    }

    /// Screenshots of `page` at the fixture's clock, light and dark: the whole gallery at each family into
    /// `folder` (`small-light.png`, `small-dark.png`, … `accessoryInline-dark.png`), and each seed's own
    /// card (its first widget's, `?widget=ID`, in a small window) at each family it offers into the seed's
    /// `screenshots/` folder (`Examples/seeds/003-joke-of-the-day/screenshots/small-light.png`, …).
    static func photograph(_ page: URL, into folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let now = Timestamp.string(SeedWidgetsEndToEndTests.start)
        for family in ViewDefinition.Family.allCases {
            let height = galleryHeights[family] ?? 1_600
            for dark in [false, true] {
                let file = folder.appendingPathComponent("\(family.rawValue)-\(dark ? "dark" : "light").png")
                try screenshot(page, query: "family=\(family.rawValue)&now=\(now)", size: "1280,\(height)", dark: dark, into: file)
            }
        }
        for (seed, widget) in try seedWidgets() {
            let screenshots = SeedWidgetsEndToEndTests.seeds.appendingPathComponent(seed).appendingPathComponent("screenshots")
            try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
            for family in widget.families {
                let size = cardWindows[family] ?? "400,400"
                for dark in [false, true] {
                    let file = screenshots.appendingPathComponent("\(family.rawValue)-\(dark ? "dark" : "light").png")
                    let query = "family=\(family.rawValue)&widget=\(widget.id)&now=\(now)"
                    try screenshot(page, query: query, size: size, dark: dark, into: file)
                }
            }
        }
    }

    /// The height of the whole gallery's picture at each family, 1280 pixels wide.
    static let galleryHeights: [ViewDefinition.Family: Int] = [
        .small: 900, .medium: 1_500, .large: 2_200, .extraLarge: 2_600, .accessoryCircular: 700, .accessoryRectangular: 700,
        .accessoryInline: 700,
    ]

    /// The window of one card's picture at each family: the card's width (see the page's style) and room
    /// for its header and footer.
    static let cardWindows: [ViewDefinition.Family: String] = [
        .small: "200,330", .medium: "350,330", .large: "470,640", .extraLarge: "710,560", .accessoryCircular: "250,250",
        .accessoryRectangular: "250,250", .accessoryInline: "250,200",
    ]

    /// Each seed's folder name and its first widget (by id): the id and the families its view offers.
    static func seedWidgets() throws -> [(seed: String, widget: (id: String, families: [ViewDefinition.Family]))] {
        let reader = try definitionReader()
        var found: [(seed: String, widget: (id: String, families: [ViewDefinition.Family]))] = []
        for seed in try FileManager.default.contentsOfDirectory(atPath: SeedWidgetsEndToEndTests.seeds.path).sorted() {
            guard let first = try definitions(seed: seed, reader: reader).min(by: { $0.id < $1.id }) else { continue }
            found.append((seed, (first.id, first.view?.availableFamilies ?? ViewDefinition.Family.homeScreen)))
        }
        return found
    }

    /// A reader of definitions that knows the plugin's stages.
    static func definitionReader() throws -> DefinitionReader {
        var builder = StageRegistry.Builder.builtIn()
        builder.register(TransmissionFetcher.self)
        builder.register(RunwayPerformanceTransform.self)
        return DefinitionReader(registry: try builder.build())
    }

    /// The widgets the definitions in the seed folder `seed` (`004-bitpal-portfolio`) declare.
    static func definitions(seed: String, reader: DefinitionReader) throws -> [WidgetDefinition] {
        let folder = SeedWidgetsEndToEndTests.seeds.appendingPathComponent(seed)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        return try files.flatMap { file in
            let path = folder.appendingPathComponent(file).path
            return reader.read(try Data(contentsOf: URL(fileURLWithPath: path)), file: path).widgets.map(\.definition)
        }
    }

    /// One screenshot of `page` with `query`, in a window of `size` (`W,H`), light or dark, into `file`.
    static func screenshot(_ page: URL, query: String, size: String, dark: Bool, into file: URL) throws {
        var components = URLComponents(url: page, resolvingAgainstBaseURL: false)!
        components.percentEncodedQuery = query
        let address = components.url!.absoluteString
        let profile = try SeedWidgetsEndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: profile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            [
                "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--user-data-dir=\(profile.path)",
                "--window-size=\(size)", "--virtual-time-budget=3000", "--screenshot=\(file.path)",
            ] + (dark ? ["--force-dark-mode"] : []) + [address]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "chromium could not photograph \(address)")
    }
}
