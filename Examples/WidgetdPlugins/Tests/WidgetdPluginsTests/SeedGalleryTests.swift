import Foundation
import Testing
import WidgetCore
import WidgetRuntime

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

    /// One config folder holding every seed's files (their names do not collide).
    static func allSeeds() throws -> URL {
        let folder = try SeedWidgetsEndToEndTests.temporaryFolder()
        let manager = FileManager.default
        for seed in try manager.contentsOfDirectory(atPath: SeedWidgetsEndToEndTests.seeds.path).sorted() {
            let source = SeedWidgetsEndToEndTests.seeds.appendingPathComponent(seed)
            for item in try manager.contentsOfDirectory(atPath: source.path) where item != "README.md" {
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
        // The server's speeds, counts and torrents, the failing one in red.
        let home = try Self.card("bitdream.home", in: html)
        for text in ["MB/s</b><span>download</span>", "<span>torrents</span>", "debian-13.2.0-amd64-netinst.iso"] {
            #expect(home.contains(text), "\(text): \(home)")
        }
        #expect(home.contains(#"<span class="neg small">Tracker gave HTTP response code 404 (Not Found)</span>"#), "\(home)")
        // The runways with their wind components.
        let runways = try Self.card("sf50-runways", in: html)
        #expect(runways.contains("<h3>KAPA · Centennial</h3>"), "\(runways)")
        #expect(runways.components(separatedBy: "<tr>").count == 8, "a header and six runways: \(runways)")
        // The joke's setup and its teller; the punchline closed behind "Reveal".
        let joke = try Self.card("joke-of-the-day", in: html)
        #expect(joke.contains(#"<p class="quote">Why don&#39;t scientists trust atoms?</p>"#), "\(joke)")
        #expect(
            joke.contains(#"<details><summary>Reveal</summary><p class="punchline">Because they make up everything!</p></details>"#),
            "\(joke)")
        #expect(joke.contains("<b>Mr. Sad</b>"), "\(joke)")
        // Each coin's and the total P&L, coloured by sign.
        let portfolio = try Self.card("bitpal-portfolio", in: html)
        #expect(portfolio.contains(#"<p class="huge">$67574.83</p>"#), "\(portfolio)")
        #expect(portfolio.contains(#"<p class="num pos">+$16287.33 (31.76%)</p>"#), "\(portfolio)")
        #expect(portfolio.contains(#"<td class="num neg">−$2351.00 (-14.69%)</td>"#), "\(portfolio)")
        #expect(portfolio.contains(#"<td class="num pos">+$17375.25 (55.6%)</td>"#), "\(portfolio)")

        if let folder = ProcessInfo.processInfo.environment["WIDGETD_SCREENSHOTS"], !folder.isEmpty {
            try Self.photograph(fixture.out.appendingPathComponent("index.html"), into: URL(fileURLWithPath: folder))
        }
    }

    /// Screenshots of `page` into `folder`: `gallery-light.png`, `gallery-dark.png` (desktop) and
    /// `gallery-phone-light.png`, `gallery-phone-dark.png`, at the fixture's clock.
    static func photograph(_ page: URL, into folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let now = Timestamp.string(SeedWidgetsEndToEndTests.start)
        let address = page.absoluteString + "?now=\(now)"
        for (name, size) in [("gallery", "1280,1760"), ("gallery-phone", "390,1800")] {
            for dark in [false, true] {
                let file = folder.appendingPathComponent("\(name)-\(dark ? "dark" : "light").png")
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
    }
}
