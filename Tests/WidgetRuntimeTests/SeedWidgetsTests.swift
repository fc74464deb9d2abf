import Foundation
import Testing
import WidgetCore
import WidgetRuntime
import WidgetStages

/// The seed widgets of `Examples/seeds/`, end to end: the built `widgetd run --once` runs the definitions
/// unchanged against recorded payloads (`--rewrite-origin` points the real APIs at a local fake of them),
/// and the snapshots are read back.
struct SeedWidgetsTests {
    static let newYork = TimeZone(identifier: "America/New_York")!

    /// `2026-11-22` for `date` in `zone`.
    static func day(_ date: Date, in zone: TimeZone) -> String {
        let parts = calendar(zone).dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// `08:00` for `date` in `zone`.
    static func time(_ date: Date, in zone: TimeZone) -> String {
        let parts = calendar(zone).dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    static func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    static func date(_ value: WidgetValue?) -> Date? {
        value?.string.flatMap(Timestamp.date)
    }

    /// The recorded bytes of artwork image `number`.
    static func image(_ number: Int) throws -> Data {
        try Data(contentsOf: SeedAPIs.fixtures.appendingPathComponent("000-featured-artworks/images/\(number).png"))
    }

    // MARK: - Seed 000: Featured Artworks

    @Test func featuredArtworksShowTodaysFourArtworksAtFourTimesOfDayWithTheirImagesDownloaded() async throws {
        let apis = try SeedAPIs()
        defer { apis.stop() }
        let out = try TemporaryFolder("seed-artworks")
        let days = Set([Date()].map { Self.day($0, in: Self.newYork) })
        let result = try await apis.runSeeds(out: out)
        let today = days.union([Self.day(Date(), in: Self.newYork)])
        #expect(result.status == 0, "\(result.stderr)")

        let snapshot = try out.json("featured-artworks.json")
        #expect(snapshot["status"] == "fresh")
        let targets = try apis.targets()
        let feeds = targets.filter { $0.hasPrefix("/artsy-public.s3.amazonaws.com/") }
        #expect(feeds.count == 1)
        #expect(today.map { "/artsy-public.s3.amazonaws.com/artworks-of-the-day/\($0).json" }.contains(feeds.first ?? ""), "\(feeds)")

        let entries = try #require(snapshot["entries"]?.array)
        let ids = [
            "hilma-af-klint-the-ten-largest-no-7-adulthood", "yayoi-kusama-pumpkin-2", "jean-michel-basquiat-untitled-skull",
            "georgia-okeeffe-black-iris",
        ]
        #expect(entries.map { $0["content"]?["id"]?.string } == ids)
        #expect(entries.map { $0["content"]?["artist"]?.string } == ["Hilma af Klint", "Yayoi Kusama", "Jean-Michel Basquiat", "Georgia O'Keeffe"])
        #expect(entries.map { $0["url"]?.string } == ids.map { "https://www.artsy.net/artwork/\($0)" })
        // The default image's token; without a default image, the lowest position's.
        let tokens = ["aBc1_dEf2-artwork-1-main", "pQ7w-artwork-2-front", "mN4v_artwork-3-main", "uV6x_artwork-4-main"]
        #expect(entries.map { $0["content"]?["token"]?.string } == tokens)

        // 08:00, 12:00, 16:00 and 20:00 today in the widget's zone.
        let dates = entries.compactMap { Self.date($0["date"]) }
        #expect(dates.map { Self.time($0, in: Self.newYork) } == ["08:00", "12:00", "16:00", "20:00"])
        #expect(Set(dates.map { Self.day($0, in: Self.newYork) }).isSubset(of: today))
        #expect(Set(dates.map { Self.day($0, in: Self.newYork) }).count == 1)

        // The next refresh is 20 hours after the morning entry: 04:00 in the widget's zone.
        let next = try #require(Self.date(snapshot["nextRefreshAt"]))
        let generated = try #require(Self.date(snapshot["generatedAt"]))
        #expect(Self.time(next, in: Self.newYork) == "04:00")
        #expect(next > generated && next.timeIntervalSince(generated) <= 86_400)
        if Self.time(generated, in: Self.newYork) >= "04:00", let morning = dates.first,
            Self.newYork.secondsFromGMT(for: morning) == Self.newYork.secondsFromGMT(for: next)
        {
            #expect(next.timeIntervalSince(morning) == 20 * 3600)
        }

        // The CDN URL as the app builds it, one download per artwork.
        let downloads = targets.filter { $0.hasPrefix("/d7hftxdivxxvm.cloudfront.net/") }
        let expected = tokens.map {
            "/d7hftxdivxxvm.cloudfront.net/?convert_to=webp&height=1146&quality=50&resize_to=width&token=\($0)&width=1092"
        }
        #expect(downloads.sorted() == expected.sorted())

        // Each image is in OUT/assets, named by its content, and the snapshot points at it.
        for (index, entry) in entries.enumerated() {
            let bytes = try Self.image(index + 1)
            let path = try #require(entry["content"]?["image"]?.string)
            #expect(path == "assets/\(SHA256.hexDigest(of: bytes)).png")
            #expect(try Data(contentsOf: out.file(path)) == bytes)
        }
        #expect(out.names(in: "assets").count == 4)
    }

    // MARK: - Seed 000: Latest Articles

    @Test func latestArticlesShowTheFourNewestArticlesOfTheFeedInOneEntry() async throws {
        let apis = try SeedAPIs()
        defer { apis.stop() }
        let out = try TemporaryFolder("seed-articles")
        let result = try await apis.runSeeds(out: out)
        #expect(result.status == 0, "\(result.stderr)")

        let snapshot = try out.json("latest-articles.json")
        #expect(snapshot["status"] == "fresh")
        let entries = try #require(snapshot["entries"]?.array)
        #expect(entries.count == 1)
        #expect(entries.first?["url"] == "https://www.artsy.net/news")
        let articles = try #require(entries.first?["content"]?.array)
        #expect(articles.count == 4)
        #expect(articles.first?["title"] == "The 10 Best Booths at Art Basel Miami Beach")
        #expect(articles.first?["link"] == "https://www.artsy.net/article/artsy-editorial-10-best-booths-art-basel-miami-beach-2026")
        #expect(articles.first?["author"] == "Casey Lesser")
        #expect(articles.map { $0["date"]?.string } == [
            "2026-11-21T17:30:00Z", "2026-11-21T14:05:00Z", "2026-11-20T16:00:00Z", "2026-11-19T12:45:00Z",
        ])
        #expect(articles.map { $0["author"]?.string } == ["Casey Lesser", "Arun Kakar", "Artsy Editorial", "Maxwell Rabb"])
        for (index, article) in articles.enumerated() {
            let path = try #require(article["image"]?.string)
            #expect(try Data(contentsOf: out.file(path)) == Self.image(index + 1))
        }
        #expect(try apis.targets().filter { $0.hasPrefix("/files.artsy.net/") }.count == 4)
    }

    // MARK: - Seed 003: Joke of the Day

    @Test func jokeOfTheDayLooksUpTodaysJokeInTwoStepsAndSplitsIt() async throws {
        let apis = try SeedAPIs()
        defer { apis.stop() }
        let out = try TemporaryFolder("seed-joke")
        let before = Self.day(Date(), in: Self.newYork)
        let result = try await apis.runSeeds(out: out)
        let today: Set = [before, Self.day(Date(), in: Self.newYork)]
        #expect(result.status == 0, "\(result.stderr)")

        let snapshot = try out.json("joke-of-the-day.json")
        #expect(snapshot["status"] == "fresh")
        #expect(snapshot["entries"]?[0]?["content"] == [
            "id": "Qx7mT2pLk9",
            "text": "Why don't scientists trust atoms? Because they make up everything!",
            "character": "Professor Giggles",
            "category": "science",
            "setup": "Why don't scientists trust atoms?",
            "punchline": "Because they make up everything!",
        ])
        let documents = "/firestore.googleapis.com/v1/projects/mr-funny-jokes/databases/(default)/documents/"
        let lookups = try apis.targets().filter { $0.hasPrefix("/firestore.googleapis.com/") }.map { $0.removingPercentEncoding ?? $0 }
        #expect(lookups.count == 2)
        #expect(today.map { documents + "daily_jokes/" + $0 }.contains(lookups.first ?? ""), "\(lookups)")
        #expect(lookups.last == documents + "jokes/Qx7mT2pLk9")
        // Refreshed at midnight, New York time.
        let next = try #require(Self.date(snapshot["nextRefreshAt"]))
        #expect(Self.time(next, in: Self.newYork) == "00:00")
        #expect(try next.timeIntervalSince(#require(Self.date(snapshot["generatedAt"]))) <= 86_400)
    }

    @Test func jokeOfTheDayShowsThePlaceholderUntilTheFirstJokeThenAKeptJokeWhenFirestoreFails() async throws {
        let apis = try SeedAPIs()
        defer { apis.stop() }
        let out = try TemporaryFolder("seed-joke-fallback")

        try apis.fail(with: 503)
        _ = try await apis.runSeeds(out: out)
        var snapshot = try out.json("joke-of-the-day.json")
        #expect(snapshot["status"] == "placeholder")
        #expect(snapshot["entries"]?[0]?["content"]?["setup"] == "Open Mr. Funny Jokes to get started!")
        #expect(snapshot["error"]?.string?.contains("503") == true, "\(snapshot)")

        try apis.fail(with: 0)
        _ = try await apis.runSeeds(out: out)
        #expect(try out.json("joke-of-the-day.json")["status"] == "fresh")

        try apis.fail(with: 503)
        _ = try await apis.runSeeds(out: out)
        snapshot = try out.json("joke-of-the-day.json")
        #expect(snapshot["status"] == "cached")
        #expect(snapshot["entries"]?[0]?["content"]?["punchline"] == "Because they make up everything!")
        #expect(snapshot["error"]?.string?.contains("503") == true, "\(snapshot)")
    }

    // MARK: - Seed 004: Bitpal portfolio

    @Test func portfolioPricesEveryHoldingWithOneBatchedRequestInExactDecimals() async throws {
        let apis = try SeedAPIs()
        defer { apis.stop() }
        let out = try TemporaryFolder("seed-portfolio")
        let result = try await apis.runSeeds(out: out)
        #expect(result.status == 0, "\(result.stderr)")

        let prices = try apis.targets().filter { $0.hasPrefix("/api.coingecko.com/") }
        #expect(prices == ["/api.coingecko.com/api/v3/simple/price?ids=bitcoin%2Cethereum%2Csolana%2Cmy-delisted-token&vs_currencies=usd"])

        let snapshot = try out.json("bitpal-portfolio.json")
        #expect(snapshot["status"] == "fresh")
        let content = try #require(snapshot["entries"]?[0]?["content"])
        let holdings = try #require(content["holdings"]?.array)
        // The token CoinGecko has no price for is left out.
        #expect(holdings.map { $0["symbol"]?.string } == ["BTC", "ETH", "SOL"])
        #expect(holdings.map { $0["currentValue"]?.number?.description } == ["48625.25", "13649.0", "4651.2"])
        #expect(holdings.map { $0["pnlAmount"]?.number?.description } == ["17375.25", "-2351.0", "826.2"])
        #expect(holdings.map { $0["pnlPercentage"]?.number?.description } == ["55.6", "-14.69", "21.6"])
        #expect(content["totalValue"]?.number?.description == "66925.45")
        #expect(content["totalCost"]?.number?.description == "51075.0")
        #expect(content["totalPnL"]?.number?.description == "15850.45")
        #expect(content["totalPnLPercentage"]?.number?.description == "31.03")
        #expect(content["realizedPnL"]?.number?.description == "1250.75")

        let generated = try #require(Self.date(snapshot["generatedAt"]))
        #expect(Self.date(snapshot["nextRefreshAt"]) == generated.addingTimeInterval(15 * 60))
    }

    @Test func portfolioServesTheLastGoodValuesAsCachedWhenCoinGeckoFails() async throws {
        let apis = try SeedAPIs()
        defer { apis.stop() }
        let out = try TemporaryFolder("seed-portfolio-cached")
        _ = try await apis.runSeeds(out: out)
        let good = try out.json("bitpal-portfolio.json")
        #expect(good["status"] == "fresh")

        try apis.fail(with: 503)
        let result = try await apis.runSeeds(out: out)
        #expect(result.status == 1)
        let cached = try out.json("bitpal-portfolio.json")
        #expect(cached["status"] == "cached")
        #expect(cached["entries"] == good["entries"])
        #expect(cached["lastSuccessAt"] == good["lastSuccessAt"])
        #expect(cached["error"]?.string?.contains("503") == true, "\(cached)")
    }
}
