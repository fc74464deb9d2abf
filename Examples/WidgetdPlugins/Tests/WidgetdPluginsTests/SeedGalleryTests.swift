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

        // The artwork full-bleed, its image downloaded, with its title linked and its artist.
        let art = try Self.card("featured-artworks", in: html)
        #expect(art.contains(#"<div class="full-bleed"><img src="assets/"#), "\(art)")
        #expect(art.contains(#"<a href="https://www.artsy.net/artwork/hilma-af-klint-the-ten-largest-no-7-adulthood">"#), "\(art)")
        #expect(art.contains("<p>Hilma af Klint</p>"), "\(art)")
        // Four articles, each with its thumbnail.
        let articles = try Self.card("latest-articles", in: html)
        #expect(articles.components(separatedBy: #"<img class="thumb" src="assets/"#).count == 5, "\(articles)")
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
        // The joke's setup, then its punchline.
        let joke = try Self.card("joke-of-the-day", in: html)
        #expect(joke.contains(#"<p class="quote">Why don&#39;t scientists trust atoms?</p>"#), "\(joke)")
        #expect(joke.contains(#"<p class="punchline">Because they make up everything!</p>"#), "\(joke)")
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
