import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages
import WidgetTestSupport
import WidgetTesting

/// The seed widgets of `Examples/seeds/` that need no plugin, end to end: the built `widgetd run --once`
/// runs each seed's folder unchanged against payloads recorded in the real APIs' wire format
/// (`--rewrite-origin` points the real APIs at a local fake of them), and the snapshots are read back.
/// Every state the seeds name has its test; those that depend on time run the same command line in
/// process with a manual clock.
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

    /// Each seed has one folder a newcomer can find: a definition, a README, and a row in `Examples/README.md`.
    @Test func everySeedHasAFolderWithItsDefinitionAReadmeAndARowInTheExamplesReadme() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: SeedAPIs.seeds.path).sorted()
        #expect(Set(names.map { String($0.prefix(3)) }) == ["000", "001", "002", "003", "004"], "\(names)")
        let index = try String(contentsOf: Widgetd.packageRoot.appendingPathComponent("Examples/README.md"), encoding: .utf8)
        for name in names {
            let files = try FileManager.default.contentsOfDirectory(atPath: SeedAPIs.seeds.appendingPathComponent(name).path)
            #expect(files.contains("README.md"), "\(name) has no README.md")
            #expect(files.contains { $0.hasSuffix(".json") }, "\(name) has no definition")
            #expect(index.contains("| `seeds/\(name)/` |"), "Examples/README.md has no row for seeds/\(name)/")
        }
    }

    // MARK: - Seed 000: Featured Artworks

    /// The image tokens the app would take: the default image's, or the lowest position's without one.
    static let artworkTokens = ["aBc1dEf2GhI3jKl4MnO5pQ", "pQ7wE3rT5yU7iO9pA1sD3f", "mN4vB6nM8qW0eR2tY4uI6o", "uV6xQ8wE0rT2yU4iO6pA8s"]

    /// The zone the app's widget follows: the device's (`Calendar.current` in artsy/eigen
    /// `ios/ArtsyWidget/Shared/Schedule.swift:8-18`, a `DateFormatter` with no zone in
    /// `Models/ArtworkStore.swift:27-28`), here the machine's, as the Artsy definitions name no `timeZone`.
    static let device = TimeZone.current

    /// What the app works out from the recorded day file, by hand: the four artworks in file order, each at
    /// 08:00, 12:00, 16:00 and 20:00 of the device's day (`Schedule.swift:10`), the next refresh 20 hours
    /// after the morning one (`Schedule.swift:31`: 08:00 + 20 h = 04:00 the next day), each opening
    /// `https://www.artsy.net/artwork/<id>` + `?utm_medium=ios_widget` (`Models/Artwork.swift:24-26`,
    /// `WidgetUrl.swift:4`), its picture the default image's token or the lowest position's
    /// (`Models/Artwork.swift:16-21`).
    @Test func featuredArtworksFollowTheDevicesDayAndOpenTheArtworkAsTheAppDoes() async throws {
        let apis = try SeedAPIs()
        defer { apis.stop() }
        let out = try TemporaryFolder("seed-artworks")
        let before = Self.day(Date(), in: Self.device)
        let result = try await apis.run("000-featured-artworks", out: out)
        let today: Set = [before, Self.day(Date(), in: Self.device)]
        #expect(result.status == 0, "\(result.stderr)")

        let snapshot = try out.json("featured-artworks.json")
        #expect(snapshot["status"] == "fresh")
        SnapshotLog.show("000 featured artworks, fresh", snapshot)
        let targets = apis.targets()
        let feeds = targets.filter { $0.hasPrefix("/artsy-public.s3.amazonaws.com/") }
        #expect(feeds.count == 1)
        #expect(today.map { "/artsy-public.s3.amazonaws.com/artworks-of-the-day/\($0).json" }.contains(feeds.first ?? ""), "\(feeds)")

        let entries = try #require(snapshot["entries"]?.array)
        let ids = [
            "hilma-af-klint-the-ten-largest-no-7-adulthood", "yayoi-kusama-pumpkin-2", "jean-michel-basquiat-untitled-skull",
            "georgia-okeeffe-black-iris",
        ]
        #expect(entries.map { $0["content"]?["id"]?.string } == ids)
        #expect(
            entries.map { $0["content"]?["artist"]?.string } == [
                "Hilma af Klint", "Yayoi Kusama", "Jean-Michel Basquiat", "Georgia O'Keeffe",
            ])
        let links = ids.map { "https://www.artsy.net/artwork/\($0)?utm_medium=ios_widget" }
        #expect(entries.map { $0["url"]?.string } == links)
        #expect(entries.map { $0["content"]?["url"]?.string } == links)
        // is_default, then the lowest position (Kusama's file has no default image); gemini_token, snake_case as written.
        #expect(entries.map { $0["content"]?["token"]?.string } == Self.artworkTokens)

        // 08:00, 12:00, 16:00 and 20:00 today on the device's clock.
        let dates = entries.compactMap { Self.date($0["date"]) }
        #expect(dates.map { Self.time($0, in: Self.device) } == ["08:00", "12:00", "16:00", "20:00"])
        #expect(Set(dates.map { Self.day($0, in: Self.device) }).isSubset(of: today))
        #expect(Set(dates.map { Self.day($0, in: Self.device) }).count == 1)

        // The next refresh is 20 hours after the morning entry: 04:00 on the device's clock.
        let next = try #require(Self.date(snapshot["nextRefreshAt"]))
        let generated = try #require(Self.date(snapshot["generatedAt"]))
        #expect(Self.time(next, in: Self.device) == "04:00")
        #expect(next > generated && next.timeIntervalSince(generated) <= 86_400)
        if Self.time(generated, in: Self.device) >= "04:00", let morning = dates.first,
            Self.device.secondsFromGMT(for: morning) == Self.device.secondsFromGMT(for: next)
        {
            #expect(next.timeIntervalSince(morning) == 20 * 3600)
        }

        // The CDN URL as the app builds it: four downloads, one per artwork.
        let downloads = targets.filter { $0.hasPrefix("/d7hftxdivxxvm.cloudfront.net/") }
        let expected = Self.artworkTokens.map {
            "/d7hftxdivxxvm.cloudfront.net/?convert_to=webp&height=1146&quality=50&resize_to=width&token=\($0)&width=1092"
        }
        #expect(downloads.sorted() == expected.sorted())

        // Each image is in OUT/assets, named by its content, and the snapshot points at it: four files.
        for (index, entry) in entries.enumerated() {
            let bytes = try Self.image(index + 1)
            let path = try #require(entry["content"]?["image"]?.string)
            #expect(path == "assets/\(SHA256.hexDigest(of: bytes)).png")
            #expect(try Data(contentsOf: out.file(path)) == bytes)
        }
        #expect(out.names(in: "assets").count == 4)
    }

    /// Before any artwork, the app's placeholder is its bundled sample (artsy/eigen
    /// `ios/ArtsyWidget/Fixtures.swift:83-92`, Alex Katz's *Brisk Day III*, via `FullBleed+Entry.swift:9`):
    /// here with the picture shipped beside the definition, copied into `OUT/assets/` by its content.
    @Test func beforeAnyArtworkThePlaceholderIsTheSampleArtworkWithItsPictureInTheAssets() async throws {
        let apis = try SeedAPIs()
        defer { apis.stop() }
        apis.fail(with: 503)
        let out = try TemporaryFolder("seed-artworks-placeholder")
        #expect(try await apis.run("000-featured-artworks", out: out).status == 1)

        let snapshot = try out.json("featured-artworks.json")
        #expect(snapshot["status"] == "placeholder")
        SnapshotLog.show("000 featured artworks, S3 down before the first day: the sample", snapshot)
        let content = try #require(snapshot["entries"]?[0]?["content"])
        #expect(content["sample"] == true)
        #expect(content["artist"] == "Alex Katz")
        #expect(content["title"] == "Brisk Day III")
        #expect(content["url"] == "https://www.artsy.net/artwork/alex-katz-brisk-day-iii-5?utm_medium=ios_widget")
        let sample = try Data(
            contentsOf: SeedAPIs.seeds.appendingPathComponent("000-featured-artworks/data/featured-artwork-sample.png"))
        #expect(content["image"]?.string == "assets/\(SHA256.hexDigest(of: sample)).png")
        #expect(try Data(contentsOf: out.file("assets/\(SHA256.hexDigest(of: sample)).png")) == sample)
    }

    // MARK: - Seed 000: Latest Articles

    /// `MMM d` on the device's clock, as the app prints an article's date (artsy/eigen
    /// `ios/ArtsyWidget/Models/Article.swift:11-13`).
    static func printed(_ iso: String) throws -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = device
        formatter.dateFormat = "MMM d"
        return formatter.string(from: try #require(Timestamp.date(iso)))
    }

    /// The app reads the first four items of the feed (`Models/ArticleParser.swift:41`), prints each
    /// `pubDate` as `MMM d` (`Models/Article.swift:13`: Sat, 21 Nov 2026 17:30:00 GMT is "Nov 21" in UTC)
    /// and opens `link` + `?utm_medium=ios_widget` (`Models/Article.swift:69`); medium and large open
    /// artsy.net the same way where no article is tapped (`LatestArticles+MediumView.swift:23`).
    @Test func latestArticlesShowTheFourNewestArticlesWithTheAppsDatesAndLinks() async throws {
        let apis = try SeedAPIs()
        defer { apis.stop() }
        let out = try TemporaryFolder("seed-articles")
        let result = try await apis.run("000-latest-articles", out: out)
        #expect(result.status == 0, "\(result.stderr)")

        let snapshot = try out.json("latest-articles.json")
        #expect(snapshot["status"] == "fresh")
        SnapshotLog.show("000 latest articles, fresh", snapshot)
        let entries = try #require(snapshot["entries"]?.array)
        #expect(entries.count == 1)
        #expect(entries.first?["url"] == "https://www.artsy.net?utm_medium=ios_widget")
        let articles = try #require(entries.first?["content"]?.array)
        #expect(articles.count == 4)
        #expect(articles.first?["title"] == "The 10 Best Booths at Art Basel Miami Beach")
        #expect(articles.first?["link"] == "https://www.artsy.net/article/artsy-editorial-10-best-booths-art-basel-miami-beach-2026")
        #expect(
            articles.first?["url"]
                == "https://www.artsy.net/article/artsy-editorial-10-best-booths-art-basel-miami-beach-2026?utm_medium=ios_widget")
        let published = ["2026-11-21T17:30:00Z", "2026-11-21T14:05:00Z", "2026-11-20T16:00:00Z", "2026-11-19T12:45:00Z"]
        #expect(articles.map { $0["date"]?.string } == published)
        // In UTC: "Nov 21", "Nov 21", "Nov 20", "Nov 19".
        #expect(try articles.map { $0["pubDate"]?.string } == published.map(Self.printed))
        if Self.device.secondsFromGMT() == 0 {
            #expect(articles.map { $0["pubDate"]?.string } == ["Nov 21", "Nov 21", "Nov 20", "Nov 19"])
        }
        #expect(articles.map { $0["author"]?.string } == ["Casey Lesser", "Arun Kakar", "Artsy Editorial", "Maxwell Rabb"])
        for (index, article) in articles.enumerated() {
            let path = try #require(article["image"]?.string)
            #expect(try Data(contentsOf: out.file(path)) == Self.image(index + 1))
        }
        // The enclosure's Gemini URL, its &amp; read as &: one download per article.
        let downloads = apis.targets().filter { $0.hasPrefix("/d7hftxdivxxvm.cloudfront.net?") }
        #expect(downloads.count == 4)
        #expect(
            downloads.contains(
                "/d7hftxdivxxvm.cloudfront.net?height=630&quality=80&resize_to=fill&src=https%3A%2F%2Fartsy-media-uploads.s3.amazonaws.com%2FkJ2dQ8Tb4mXr6Zp1Lw9vYg%2Fbooths-abmb-2026.jpg&width=1200"
            ), "\(downloads)")
    }

    /// Before any feed, the app's sample articles (artsy/eigen `ios/ArtsyWidget/Fixtures.swift:35-81`).
    @Test func beforeAnyFeedThePlaceholderIsTheAppsFourSampleArticles() async throws {
        let apis = try SeedAPIs()
        defer { apis.stop() }
        apis.fail(with: 503)
        let out = try TemporaryFolder("seed-articles-placeholder")
        #expect(try await apis.run("000-latest-articles", out: out).status == 1)
        let snapshot = try out.json("latest-articles.json")
        #expect(snapshot["status"] == "placeholder")
        let articles = try #require(snapshot["entries"]?[0]?["content"]?.array)
        #expect(articles.map { $0["pubDate"]?.string } == ["Sep 8", "Apr 3", "Nov 15", "Oct 24"])
        #expect(articles.allSatisfy { $0["sample"] == true })
        #expect(articles.first?["title"] == "5 Things to Know about Collecting Figurative Paintings")
    }

    // MARK: - Seed 003: Joke of the Day

    /// The recorded joke as the app's widget holds it: the setup and punchline split on the first "? "
    /// (mr-funny-jokes-ios-app `JokeOfTheDayWidget/WidgetDataFetcher.swift:125-136`), `mr_sad` told by
    /// "Mr. Sad" (`JokeOfTheDayWidgetViews.swift:355-356`), the type `dad_joke` shown as "Dad Jokes"
    /// (`MrFunnyJokes/Models/FirestoreModels.swift:232-233`, `Models/JokeCategory.swift:4`); the avatar
    /// is our stand-in for the app's picture of Mr. Sad.
    static let joke: WidgetValue = [
        "id": "Qx7mT2pLk9",
        "text": "Why don't scientists trust atoms? Because they make up everything!",
        "character": "mr_sad",
        "name": "Mr. Sad",
        "category": "Dad Jokes",
        "avatar": "😢",
        "setup": "Why don't scientists trust atoms?",
        "punchline": "Because they make up everything!",
    ]

    @Test func jokeOfTheDayLooksUpTodaysJokeInTwoStepsAndSplitsIt() async throws {
        let apis = try SeedAPIs()
        defer { apis.stop() }
        let out = try TemporaryFolder("seed-joke")
        let before = Self.day(Date(), in: Self.newYork)
        let result = try await apis.run("003-joke-of-the-day", out: out)
        let today: Set = [before, Self.day(Date(), in: Self.newYork)]
        #expect(result.status == 0, "\(result.stderr)")

        let snapshot = try out.json("joke-of-the-day.json")
        #expect(snapshot["status"] == "fresh")
        #expect(snapshot["entries"]?[0]?["content"] == Self.joke)
        // Every family opens the app's joke of the day (`JokeOfTheDayWidgetViews.swift:84`).
        #expect(snapshot["entries"]?[0]?["url"] == "mrfunnyjokes://jotd")
        SnapshotLog.show("003 joke of the day, fresh", snapshot)
        let documents = "/firestore.googleapis.com/v1/projects/mr-funny-jokes/databases/(default)/documents/"
        let lookups = apis.targets().filter { $0.hasPrefix("/firestore.googleapis.com/") }.map { $0.removingPercentEncoding ?? $0 }
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

        apis.fail(with: 503)
        _ = try await apis.run("003-joke-of-the-day", out: out)
        var snapshot = try out.json("joke-of-the-day.json")
        #expect(snapshot["status"] == "placeholder")
        #expect(snapshot["entries"]?[0]?["content"]?["setup"] == "Open Mr. Funny Jokes to get started!")
        #expect(snapshot["error"]?.string?.contains("503") == true, "\(snapshot)")
        SnapshotLog.show("003 joke of the day, Firestore down before the first joke: placeholder", snapshot)

        apis.fail(with: 0)
        _ = try await apis.run("003-joke-of-the-day", out: out)
        #expect(try out.json("joke-of-the-day.json")["status"] == "fresh")

        apis.fail(with: 503)
        _ = try await apis.run("003-joke-of-the-day", out: out)
        snapshot = try out.json("joke-of-the-day.json")
        #expect(snapshot["status"] == "cached")
        #expect(snapshot["entries"]?[0]?["content"]?["punchline"] == "Because they make up everything!")
        #expect(snapshot["error"]?.string?.contains("503") == true, "\(snapshot)")
        SnapshotLog.show("003 joke of the day, Firestore down after a joke: cached", snapshot)
    }

    /// How the failed daily lookup ends: the status, then what Firestore said about it.
    static let dailyJokeNotFound =
        #" answered 404 Not Found: { "error": { "code": 404, "message": "Document \"projects/mr-funny-jokes/databases/(default)/documents/daily_jokes/2026-11-22\" not found.", "status": "NOT_FOUND" } }"#

    @Test func aDayWithoutADailyJokeShowsAKeptJokeOrThePlaceholderOnAFreshInstall() async throws {
        let apis = try SeedAPIs()
        defer { apis.stop() }
        // Firestore answers 404 with its error document when today's daily_jokes entry does not exist.
        try apis.play("no-daily-joke")
        let fresh = try TemporaryFolder("seed-joke-404-fresh-install")
        #expect(try await apis.run("003-joke-of-the-day", out: fresh).status == 1)
        var snapshot = try fresh.json("joke-of-the-day.json")
        #expect(snapshot["status"] == "placeholder")
        #expect(
            snapshot["entries"]?[0]?["content"] == [
                "setup": "Open Mr. Funny Jokes to get started!", "punchline": "", "text": "Open Mr. Funny Jokes to get started!",
            ])
        #expect(snapshot["error"]?.string?.hasPrefix("inputs.daily: ") == true, "\(snapshot)")
        #expect(snapshot["error"]?.string?.hasSuffix(Self.dailyJokeNotFound) == true, "\(snapshot)")
        SnapshotLog.show("003 joke of the day, no daily joke (404) on a fresh install: placeholder", snapshot)

        // With a joke kept from an earlier day, that joke is served instead.
        try apis.play("")
        let out = try TemporaryFolder("seed-joke-404")
        #expect(try await apis.run("003-joke-of-the-day", out: out).status == 0)
        try apis.play("no-daily-joke")
        #expect(try await apis.run("003-joke-of-the-day", out: out).status == 1)
        snapshot = try out.json("joke-of-the-day.json")
        #expect(snapshot["status"] == "cached")
        #expect(snapshot["entries"]?[0]?["content"] == Self.joke)
        #expect(snapshot["error"]?.string?.hasPrefix("inputs.daily: ") == true, "\(snapshot)")
        #expect(snapshot["error"]?.string?.hasSuffix(Self.dailyJokeNotFound) == true, "\(snapshot)")
        SnapshotLog.show("003 joke of the day, no daily joke (404) after a kept joke: cached", snapshot)
        // Only the daily lookup was tried: there was no joke id to fetch.
        let jokes = apis.targets().filter { $0.contains("/documents/jokes/") }
        #expect(jokes.count == 1)
    }

    // MARK: - Seed 004: Bitpal portfolio

    /// The numbers worked out by hand from data/holdings.json and the recorded CoinGecko answer
    /// (Tests/Fixtures/seeds/004-bitpal-portfolio/simple-price.json), as Bitpal's PortfolioRecalculator
    /// (Bitpal-v2/Bitpal/Shared/Services/PortfolioRecalculator.swift:25-93, branch
    /// 008-api-rate-limit-optimization) computes them:
    /// - each holding (lines 73-83): BTC 0.5 × 97,250.5 = 48,625.25 against 0.5 × 62,500 = 31,250: +17,375.25,
    ///   +55.6008 %; ETH 4 × 3,412.25 = 13,649 against 16,000: −2,351, −14.69375 %; SOL 25.5 × 182.4 =
    ///   4,651.2 against 3,825: +826.2, +21.6 %; ARB 1,250 × 0.3127 = 390.875 against 0 (an airdrop): 0 %;
    ///   PEPE 25,000,000 × 0.00001034 = 258.5 against 212.5: +46, +21.647… %; the delisted token has no
    ///   price and is left out (lines 32-39);
    /// - sorted by value, the top five kept (lines 42-44);
    /// - totals over all holdings (lines 47-49): value 67,574.825; unrealized 16,287.325; realized
    ///   1,250.75 from the holdings file; total P&L 16,287.325 + 1,250.75 = 17,538.075;
    /// - the percentage as the views write it (SmallWidgetView.swift:138-149): 17,538.075 ÷ (67,574.825 −
    ///   17,538.075 = 50,036.75) × 100 = 35.0504 %.
    @Test func portfolioPricesEveryHoldingWithOneBatchedRequestInExactDecimals() async throws {
        let apis = try SeedAPIs()
        defer { apis.stop() }
        let out = try TemporaryFolder("seed-portfolio")
        let result = try await apis.run("004-bitpal-portfolio", out: out)
        #expect(result.status == 0, "\(result.stderr)")

        let prices = apis.targets().filter { $0.hasPrefix("/api.coingecko.com/") }
        #expect(
            prices == [
                "/api.coingecko.com/api/v3/simple/price?ids=bitcoin%2Cethereum%2Csolana%2Carbitrum%2Cpepe%2Cmy-delisted-token&vs_currencies=usd"
            ])

        let snapshot = try out.json("bitpal-portfolio.json")
        #expect(snapshot["status"] == "fresh")
        let content = try #require(snapshot["entries"]?[0]?["content"])
        let holdings = try #require(content["holdings"]?.array)
        // The token CoinGecko has no price for is left out, as the app's compactMap does; by value.
        #expect(holdings.map { $0["symbol"]?.string } == ["BTC", "ETH", "SOL", "ARB", "PEPE"])
        // PEPE's price is 1.034e-05 as CoinGecko writes it; the products stay exact.
        #expect(
            holdings.map { $0["currentValue"]?.number?.decimal }
                == [48625.25, 13649, 4651.2, 390.875, 258.5].map { Decimal(string: "\($0)") })
        #expect(
            holdings.map { $0["pnlAmount"]?.number?.decimal } == [17375.25, -2351, 826.2, 390.875, 46].map { Decimal(string: "\($0)") })
        // The airdrop (ARB, average cost 0) has no cost basis: 0 %, the app's costBasis > 0 ? … : 0.
        // A quotient that does not end (46 × 100 ÷ 212.5) is carried to a double's 17 digits.
        let percentages = holdings.map { $0["pnlPercentage"]?.number?.description ?? "" }
        #expect(percentages.prefix(4) == ["55.6008", "-14.69375", "21.6", "0"])
        #expect(percentages[4] == "21.647058823529413", "\(percentages)")
        #expect(content["totalValue"]?.number?.decimal == Decimal(string: "67574.825"))
        #expect(content["totalCost"]?.number?.decimal == Decimal(string: "51287.5"))
        #expect(content["unrealizedPnL"]?.number?.decimal == Decimal(string: "16287.325"))
        #expect(content["realizedPnL"]?.number?.description == "1250.75")
        // Realized P&L included, as PortfolioRecalculator.swift:49 adds it.
        #expect(content["totalPnL"]?.number?.decimal == Decimal(string: "17538.075"))
        #expect(content["totalPnLPercentage"]?.number?.description == "35.05038796484584", "\(content)")
        SnapshotLog.show("004 portfolio, fresh, with a zero cost basis (ARB) and a delisted coin", snapshot)

        let generated = try #require(Self.date(snapshot["generatedAt"]))
        #expect(Self.date(snapshot["nextRefreshAt"]) == generated.addingTimeInterval(15 * 60))
    }

    @Test func holdingsAreListedByValueAndALossRealizedCountsInTheTotal() async throws {
        let apis = try SeedAPIs()
        defer { apis.stop() }
        let config = try SeedAPIs.copy("004-bitpal-portfolio")
        // The same coins in the same order (the same request), other quantities, and a realized loss.
        try config.write(
            "data/holdings.json",
            #"""
            {"holdings": [
              {"coinId": "bitcoin", "symbol": "btc", "name": "Bitcoin", "quantity": 0.001, "avgCost": 62500},
              {"coinId": "ethereum", "symbol": "eth", "name": "Ethereum", "quantity": 1, "avgCost": 4000},
              {"coinId": "solana", "symbol": "sol", "name": "Solana", "quantity": 100, "avgCost": 150},
              {"coinId": "arbitrum", "symbol": "arb", "name": "Arbitrum", "quantity": 1250, "avgCost": 0},
              {"coinId": "pepe", "symbol": "pepe", "name": "Pepe", "quantity": 25000000, "avgCost": 0.0000085},
              {"coinId": "my-delisted-token", "symbol": "mdt", "name": "Delisted Token", "quantity": 1000, "avgCost": 0.02}],
             "realizedPnL": -500}
            """#)
        let out = try TemporaryFolder("seed-portfolio-order")
        #expect(try await apis.run(config: config, out: out).status == 0)
        let content = try #require(try out.json("bitpal-portfolio.json")["entries"]?[0]?["content"])
        // SOL 100 × 182.4 = 18,240; ETH 3,412.25; ARB 390.875; PEPE 258.5; BTC 0.001 × 97,250.5 = 97.2505
        // (PortfolioRecalculator.swift:42-44 sorts by value, descending).
        #expect(content["holdings"]?.array?.map { $0["symbol"]?.string } == ["SOL", "ETH", "ARB", "PEPE", "BTC"])
        // Unrealized: 3,240 − 587.75 + 390.875 + 46 + 34.7505 = 3,123.8755; total: 3,123.8755 − 500 = 2,623.8755.
        #expect(content["totalValue"]?.number?.decimal == Decimal(string: "22398.8755"))
        #expect(content["unrealizedPnL"]?.number?.decimal == Decimal(string: "3123.8755"))
        #expect(content["totalPnL"]?.number?.decimal == Decimal(string: "2623.8755"))
    }

    @Test func anEmptyPortfolioIsFreshWithZeroTotalsAndAsksCoinGeckoNothing() async throws {
        let apis = try SeedAPIs()
        defer { apis.stop() }
        let config = try SeedAPIs.copy("004-bitpal-portfolio")
        try config.write("data/holdings.json", #"{"holdings": [], "realizedPnL": 0}"#)
        let out = try TemporaryFolder("seed-portfolio-empty")
        let result = try await apis.run(config: config, out: out)
        #expect(result.status == 0, "\(result.stderr)")

        let snapshot = try out.json("bitpal-portfolio.json")
        #expect(snapshot["status"] == "fresh")
        #expect(
            snapshot["entries"]?[0]?["content"] == [
                "holdings": [], "totalValue": 0, "totalCost": 0, "unrealizedPnL": 0, "realizedPnL": 0, "totalPnL": 0,
                "totalPnLPercentage": 0, "currency": "usd",
            ])
        SnapshotLog.show("004 portfolio, empty", snapshot)
        #expect(apis.targets().filter { $0.hasPrefix("/api.coingecko.com/") } == [])
    }

    @Test func withoutTheAppsHoldingsFileThePortfolioHoldsTheAppsSample() async throws {
        let apis = try SeedAPIs()
        defer { apis.stop() }
        let config = try SeedAPIs.copy("004-bitpal-portfolio")
        try FileManager.default.removeItem(at: config.file("data/holdings.json"))
        let out = try TemporaryFolder("seed-portfolio-missing")
        #expect(try await apis.run(config: config, out: out).status == 1)

        let snapshot = try out.json("bitpal-portfolio.json")
        #expect(snapshot["status"] == "placeholder")
        // The placeholder is the app's sample portfolio (WidgetPortfolioData+Sample.swift:16-23), marked as
        // a sample; with the error beside it the views show the app's empty state, as the app does without
        // its refresh data (PortfolioTimelineProvider.swift:61-67).
        let content = try #require(snapshot["entries"]?[0]?["content"])
        #expect(content["sample"] == true)
        #expect(content["totalValue"]?.number?.decimal == Decimal(string: "125000.5"))
        #expect(content["holdings"]?.array?.map { $0["symbol"]?.string } == ["BTC", "ETH", "SOL", "ADA", "DOT"])
        // The page shows the app's empty states, not the sample's numbers.
        let page = try out.read("bitpal-portfolio.html")
        for text in ["Add holdings</p>", "Add holdings to see<br>your portfolio here", "No Portfolio Data"] {
            #expect(page.contains(text), "\(text): \(page)")
        }
        #expect(!page.contains("$125K"), "\(page)")
        #expect(snapshot["error"]?.string?.hasPrefix("inputs.holdings: ") == true, "\(snapshot)")
        SnapshotLog.show("004 portfolio, no holdings file: the sample", snapshot)
    }

    @Test func portfolioServesTheLastGoodValuesAsCachedWhenCoinGeckoFails() async throws {
        let apis = try SeedAPIs()
        defer { apis.stop() }
        let out = try TemporaryFolder("seed-portfolio-cached")
        _ = try await apis.run("004-bitpal-portfolio", out: out)
        let good = try out.json("bitpal-portfolio.json")
        #expect(good["status"] == "fresh")

        apis.fail(with: 503)
        let result = try await apis.run("004-bitpal-portfolio", out: out)
        #expect(result.status == 1)
        let cached = try out.json("bitpal-portfolio.json")
        #expect(cached["status"] == "cached")
        #expect(cached["entries"] == good["entries"])
        #expect(cached["lastSuccessAt"] == good["lastSuccessAt"])
        #expect(cached["error"]?.string?.contains("503") == true, "\(cached)")
        SnapshotLog.show("004 portfolio, CoinGecko down: cached", cached)
    }

    @Test func portfolioPricesOlderThanAnHourAreMarkedStale() async throws {
        let apis = try SeedAPIs()
        defer { apis.stop() }
        let out = try TemporaryFolder("seed-portfolio-stale")
        let start = try #require(Timestamp.date("2026-11-22T15:00:00Z"))
        let clock = ManualClock(now: start)
        #expect(await apis.run("004-bitpal-portfolio", out: out, clock: clock).status == 0)
        let good = try out.json("bitpal-portfolio.json")
        #expect(good["status"] == "fresh")

        // The app's staleness indicator comes at 60 minutes: cached before, stale after.
        apis.fail(with: 503)
        clock.advance(by: 60 * 60)
        #expect(await apis.run("004-bitpal-portfolio", out: out, clock: clock).status == 1)
        #expect(try out.json("bitpal-portfolio.json")["status"] == "cached")
        clock.advance(by: 60)
        let later = await apis.run("004-bitpal-portfolio", out: out, clock: clock)
        #expect(later.status == 1)
        let stale = try out.json("bitpal-portfolio.json")
        #expect(stale["status"] == "stale", "run --once said: \(later.log)")
        #expect(stale["entries"] == good["entries"])
        #expect(stale["lastSuccessAt"] == "2026-11-22T15:00:00Z")
        #expect(stale["generatedAt"] == "2026-11-22T16:01:00Z")
        #expect(stale["error"]?.string?.contains("503") == true, "\(stale)")
        // The app's orange mark beside "Portfolio" (SmallWidgetView.swift:39-43), in every size.
        let page = try out.read("bitpal-portfolio.html")
        #expect(page.components(separatedBy: #"<span class="warn" title="Prices over an hour old">⚠</span>"#).count == 4, "\(page)")
        SnapshotLog.show("004 portfolio, prices over an hour old: stale", stale)
    }
}
