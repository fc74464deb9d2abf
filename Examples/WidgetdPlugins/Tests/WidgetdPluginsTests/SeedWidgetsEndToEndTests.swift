import Foundation
import Synchronization
import Testing
import WidgetCommands
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages
import WidgetTesting

@testable import WidgetdPlugins

/// Seeds 001 (BitDream) and 002 (SF50 Runways) end to end: the standard `run --once` command line with the
/// plugin stages, over the unchanged folders `Examples/seeds/001-bitdream/` and `002-sf50-runways/`, against
/// payloads recorded in the real APIs' wire format (`Tests/Fixtures/seeds/`), served by a `RecordedAPI`
/// with ``FakeTransmission`` for the Transmission routes, and reached through `--rewrite-origin`. Every state the two
/// seeds name has its test; the clock is a manual one, so staleness is reached without waiting.
struct SeedWidgetsEndToEndTests {
    /// The root of the widgetd package, two folders above this package.
    static let widgetdRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // WidgetdPluginsTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // WidgetdPlugins
        .deletingLastPathComponent()  // Examples
        .deletingLastPathComponent()

    static let fixtures = widgetdRoot.appendingPathComponent("Tests/Fixtures/seeds")
    static let seeds = widgetdRoot.appendingPathComponent("Examples/seeds")

    /// The origins the two seeds reach, each served under a path naming it.
    static let origins = ["http://nas.local:9091", "http://seedbox.example.net:9091", "https://aviationweather.gov"]

    /// The credentials the fake Transmission servers accept (`Tests/Fixtures/seeds/routes.json`).
    static let credentials = [
        "BITDREAM_HOME_USER": "alice", "BITDREAM_HOME_PASSWORD": "s3cret-pa55",
        "BITDREAM_SEEDBOX_USER": "bob", "BITDREAM_SEEDBOX_PASSWORD": "an0ther-pa55",
    ]

    /// Text that must never reach an output: the passwords and the basic-authentication tokens.
    static let secretTexts = [
        "s3cret-pa55", "an0ther-pa55",
        Data("alice:s3cret-pa55".utf8).base64EncodedString(), Data("bob:an0ther-pa55".utf8).base64EncodedString(),
    ]

    /// 2026-11-22 16:05 UTC, five minutes after the recorded METAR.
    static let start = Date(timeIntervalSince1970: 1_795_363_500)

    /// The fake APIs, and the folder runs write to.
    final class Fixture: Sendable {
        let api: RecordedAPI
        let server: TestHTTPServer
        let out: URL
        let clock = ManualClock(now: SeedWidgetsEndToEndTests.start)

        init() throws {
            api = try RecordedAPI(folder: fixtures, handlers: ["transmission": FakeTransmission.recordedHandler])
            server = try TestHTTPServer(routes: [api.route])
            out = try SeedWidgetsEndToEndTests.temporaryFolder()
        }

        deinit {
            server.stop()
            try? FileManager.default.removeItem(at: out)
        }

        /// Runs `widgetd-plugins run --config FOLDER --out OUT --once --rewrite-origin …` in process.
        func run(
            _ folder: URL, secrets: [String: String] = credentials, origins: [String] = SeedWidgetsEndToEndTests.origins
        ) async throws -> (code: Int32, log: String) {
            var builder = StageRegistry.Builder.builtIn()
            builder.register(TransmissionFetcher.self)
            builder.register(RunwayPerformanceTransform.self)
            let lines = Mutex<[String]>([])
            let environment = CommandEnvironment(
                registry: try builder.build(),
                clock: clock,
                secrets: SecretStore(environment: secrets),
                print: { line in lines.withLock { $0.append(line) } },
                printError: { line in lines.withLock { $0.append(line) } }
            )
            let host = "http://127.0.0.1:\(server.port)/"
            let rewrites = origins.flatMap { origin in
                ["--rewrite-origin", "\(origin)=\(host)\(origin.split(separator: "/").last ?? "")"]
            }
            let code = await WidgetCommandLine.main(
                ["run", "--config", folder.path, "--out", out.path, "--once"] + rewrites, environment: environment
            )
            return (code, lines.withLock { $0.joined(separator: "\n") })
        }

        /// Runs the seed `name` of `Examples/seeds/`.
        func run(seed name: String, secrets: [String: String] = credentials) async throws -> (code: Int32, log: String) {
            try await run(seeds.appendingPathComponent(name), secrets: secrets)
        }

        func json(_ name: String) throws -> WidgetValue {
            try JSONReader.read(Data(contentsOf: out.appendingPathComponent(name)))
        }

        /// The requests the fake server received.
        func requests() -> [TestHTTPRequest] {
            server.requests
        }

        /// From now on every request answers `status` (0 stops that).
        func fail(with status: Int) {
            api.fail(with: status)
        }
    }

    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("widgetd-plugins-seeds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A copy of a seed's folder, whose data a test changes as the app would.
    static func copy(seed name: String) throws -> URL {
        let folder = try temporaryFolder()
        let source = seeds.appendingPathComponent(name)
        for item in try FileManager.default.contentsOfDirectory(atPath: source.path) {
            try FileManager.default.copyItem(at: source.appendingPathComponent(item), to: folder.appendingPathComponent(item))
        }
        return folder
    }

    /// Every file under `folder`, hidden state included.
    static func allFiles(under folder: URL) -> [URL] {
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        return (enumerator?.allObjects as? [URL] ?? []).filter {
            (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
        }
    }

    // MARK: - Seed 001: BitDream

    /// The numbers worked out by hand from the recordings (Tests/Fixtures/seeds/001-bitdream/), as the app's
    /// snapshot writer takes them (BitDream/Widgets/DataWriter.swift:20-51):
    /// - home: session-stats' 4 active, 2 paused, 8 in all, ↓ 5,242,880 B/s, ↑ 1,048,576 B/s; of the eight
    ///   torrents two are downloading (debian, arch: status 4, metadata complete, not stalled) and one
    ///   complete (linuxmint: stopped at 100 %); ratio = current-stats' 10,485,760,000 uploaded ÷
    ///   7,340,032,000 downloaded = 1.428571… (line 36), written with two decimals, 1.43, as the widget's
    ///   ratio chip prints it (BitDreamWidgets/SessionOverviewView.swift:29);
    /// - seedbox: nothing downloaded this session, so the ratio is 0 (DataWriter.swift:36), ↑ 3,145,728 B/s.
    @Test func bitDreamWritesWhatTheAppsWidgetShowsForEachServerWithoutEverShowingTheCredentials() async throws {
        let fixture = try Fixture()
        let run = try await fixture.run(seed: "001-bitdream")
        #expect(run.code == 0, "\(run.log)")

        let home = try fixture.json("bitdream.home.json")
        #expect(home["status"] == "fresh")
        #expect(home["title"] == "BitDream · Home")
        let entry = try #require(home["entries"]?[0])
        // The link the app's onOpenURL parses (BitDream/BitDreamApp.swift:65-70), built as its DeepLinkBuilder
        // builds it (BitDream/Widgets/WidgetKitBridge.swift:12-19).
        #expect(entry["url"] == "bitdream://server?id=home")
        #expect(entry["relevance"]?.number?.description == "1.0")
        let content = try #require(entry["content"])
        #expect(content["serverName"] == "Home")
        #expect(content["server"] == "nas.local")
        // The counts and speeds of session-stats, as the app's snapshot writer takes them.
        #expect(content["active"] == 4)
        #expect(content["paused"] == 2)
        #expect(content["total"] == 8)
        #expect(content["downloadSpeed"] == 5_242_880)
        #expect(content["uploadSpeed"] == 1_048_576)
        // Counted over the torrents by the app's status: two downloading, one complete (stopped at 100 %).
        #expect(content["totalCount"] == 8)
        #expect(content["downloadingCount"] == 2)
        #expect(content["completedCount"] == 1)
        #expect(content["errorCount"] == 1)
        // The session's ratio: uploaded ÷ downloaded of current-stats.
        #expect(content["ratio"]?.number?.description == "1.43")
        // Every torrent by name with its status as BitDream names it, its progress, ratio and error.
        let torrents = try #require(content["torrents"]?.array)
        #expect(
            torrents.map { [$0["name"]?.string, $0["state"]?.string] } == [
                ["debian-13.2.0-amd64-netinst.iso", "Downloading"],
                ["archlinux-2026.11.01-x86_64.iso", "Downloading"],
                ["ubuntu-24.04.3-desktop-amd64.iso", "Seeding"],
                ["Fedora-Workstation-Live-x86_64-43.iso", "Paused"],
                ["linuxmint-22.2-cinnamon-64bit.iso", "Complete"],
                ["openSUSE-Tumbleweed-DVD-x86_64-Current.iso", "Retrieving metadata"],
                ["kali-linux-2026.3-installer-amd64.iso", "Stalled"],
                ["NixOS-25.11-plasma6-x86_64.iso", "Queued"],
            ])
        // Transmission's number forms kept: 1.0 stays 1.0, the -1.0 of "no ratio" too.
        #expect(
            torrents.map { $0["percentDone"]?.number?.description } == ["0.6125", "0.25", "1.0", "0.42", "1.0", "0.0", "0.0815", "0.0"])
        #expect(
            torrents.map { $0["uploadRatio"]?.number?.description } == ["0.1204", "0.0", "2.4817", "0.05", "1.0", "-1.0", "0.0", "0.0"])
        #expect(torrents[6]["errorString"] == "Tracker gave HTTP response code 404 (Not Found)")
        #expect(torrents[6]["error"] == 2)
        #expect(torrents[0]["errorString"] == "")
        SnapshotLog.show("001 BitDream, a server fresh", home)

        let seedbox = try fixture.json("bitdream.seedbox.json")
        #expect(seedbox["status"] == "fresh")
        let seedboxEntry = try #require(seedbox["entries"]?[0])
        #expect(seedboxEntry["url"] == "bitdream://server?id=seedbox")
        #expect(seedboxEntry["relevance"]?.number?.description == "0.5")
        #expect(seedboxEntry["content"]?["downloadingCount"] == 0)
        #expect(seedboxEntry["content"]?["uploadSpeed"] == 3_145_728)
        // Nothing downloaded this session: the app's ratio is 0, not a division by zero.
        #expect(seedboxEntry["content"]?["ratio"] == 0)
        #expect(seedboxEntry["content"]?["torrents"]?.array?.map { $0["state"] } == ["Seeding"])

        // Listed in the index, like the app's servers.json.
        let index = try fixture.json("index.json")
        let listed = index["widgets"]?.array?.map { [$0["id"]?.string, $0["file"]?.string] }
        #expect(listed?.contains(["bitdream.home", "bitdream.home.json"]) == true, "\(index)")
        #expect(listed?.contains(["bitdream.seedbox", "bitdream.seedbox.json"]) == true, "\(index)")

        // Each server got the 409 session handshake once, with its own basic authentication, and was asked
        // for the fields the widget reads.
        let requests = fixture.requests()
        let homeCalls = requests.filter { $0.target.hasPrefix("/nas.local:9091/") }
        #expect(
            homeCalls.map { $0.headers["X-Transmission-Session-Id"] } == [
                nil, "GQm2sVbI8x0rSm1hBRp0a5LzW2yYtQ8Xc4kD7n6Jf3PeuAHo", "GQm2sVbI8x0rSm1hBRp0a5LzW2yYtQ8Xc4kD7n6Jf3PeuAHo",
            ])
        #expect(homeCalls.allSatisfy { $0.headers["Authorization"] == "Basic " + Self.secretTexts[2] })
        let seedboxCalls = requests.filter { $0.target.hasPrefix("/seedbox.example.net:9091/") }
        #expect(seedboxCalls.count == 3)
        #expect(seedboxCalls.allSatisfy { $0.headers["Authorization"] == "Basic " + Self.secretTexts[3] })

        // No credential in any file under OUT (state included) or in the log.
        let files = Self.allFiles(under: fixture.out)
        #expect(files.count >= 4)
        for file in files {
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            for secret in Self.secretTexts { #expect(!text.contains(secret), "\(file.lastPathComponent) holds a credential") }
        }
        for secret in Self.secretTexts { #expect(!run.log.contains(secret)) }
    }

    @Test func aServerWithoutASnapshotHoldsTheSampleAndItsErrorWhileTheOtherIsFresh() async throws {
        let fixture = try Fixture()
        var secrets = Self.credentials
        secrets["BITDREAM_SEEDBOX_PASSWORD"] = "not-the-password"
        let run = try await fixture.run(seed: "001-bitdream", secrets: secrets)
        #expect(run.code == 1)

        #expect(try fixture.json("bitdream.home.json")["status"] == "fresh")
        let seedbox = try fixture.json("bitdream.seedbox.json")
        #expect(seedbox["status"] == "placeholder")
        // The app's gallery preview (BitDreamWidgets/SessionOverviewWidget.swift:29-44), marked as a sample;
        // with the error beside it the views show the app's configuration prompt.
        let definition = try JSONReader.read(Data(contentsOf: Self.seeds.appendingPathComponent("001-bitdream/bitdream.json")))
        #expect(seedbox["entries"]?[0]?["content"] == definition["placeholder"])
        #expect(seedbox["entries"]?[0]?["content"]?["sample"] == true)
        #expect(seedbox["entries"]?[0]?["content"]?["serverName"] == "Home Server")
        // The page shows the app's configuration prompt (SessionOverviewView.swift:213-235), not the sample.
        let page = try String(contentsOf: fixture.out.appendingPathComponent("bitdream.seedbox.html"), encoding: .utf8)
        #expect(page.contains("<b>Select Server</b>") && page.contains("Edit this widget to select a server."), "\(page)")
        #expect(!page.contains("Home Server"), "\(page)")
        let error = try #require(seedbox["error"]?.string)
        #expect(
            error.hasPrefix("source: 127.0.0.1:")
                && error.hasSuffix("answered 401 Unauthorized to session-stats; check the Transmission username and password"), "\(error)")
        #expect(!error.contains("not-the-password"))
        SnapshotLog.show("001 BitDream, a server without a snapshot: the sample and the error", seedbox)
    }

    @Test func aServerSnapshotOlderThanTenMinutesIsMarkedStale() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(seed: "001-bitdream").code == 0)
        let good = try fixture.json("bitdream.home.json")
        #expect(good["status"] == "fresh")

        // The definition counts a snapshot older than 10 minutes (two missed 5-minute refreshes) as stale.
        fixture.fail(with: 503)
        fixture.clock.advance(by: 10 * 60)
        #expect(try await fixture.run(seed: "001-bitdream").code == 1)
        #expect(try fixture.json("bitdream.home.json")["status"] == "cached")
        fixture.clock.advance(by: 60)
        #expect(try await fixture.run(seed: "001-bitdream").code == 1)
        for name in ["bitdream.home.json", "bitdream.seedbox.json"] {
            let stale = try fixture.json(name)
            #expect(stale["status"] == "stale", "\(name)")
            #expect(stale["lastSuccessAt"] == "2026-11-22T16:05:00Z", "\(name)")
            #expect(stale["error"]?.string?.contains("503 Service Unavailable") == true, "\(stale)")
            SnapshotLog.show("001 BitDream, \(name) over ten minutes old: stale", stale)
        }
        #expect(try fixture.json("bitdream.home.json")["entries"] == good["entries"])
    }

    // MARK: - Seed 002: SF50 Runways

    /// The numbers worked out by hand from the recorded METAR (Tests/Fixtures/seeds/002-sf50-runways/
    /// metar.json: 350° at 15 kt gusting 22, 8.3 °C, 1018.3 hPa) and the airport file (elevation 5,885 ft),
    /// with the components from the steady wind only, as SF50 Runways/RunwaySnapshot.swift:32-47 computes
    /// them (V·cos θ and V·sin θ, θ = wind direction − true heading; gusts never enter), the runways in the
    /// order of its NameComparator (RunwaySnapshot.swift:52-62):
    /// - 10 (108°): θ = 242°: 15·cos 242° = −7.04 (a tailwind of 7.0), 15·sin 242° = −13.24 (13.2 from the left);
    /// - 17L, 17R (178°): θ = 172°: −14.85 (tail 14.9), +2.09 (2.1 from the right);
    /// - 28 (288°): θ = 62°: +7.04 (head 7.0), +13.24 (13.2 from the right);
    /// - 35L, 35R (358°): θ = −8°: +14.85 (head 14.9), −2.09 (2.1 from the left).
    /// Takeoff (the transform's model): PA = 5,885 + 30 × (1,013.25 − 1,018.3) = 5,733.5 ft; ISA = 15 − 0.002 ×
    /// 5,733.5 = 3.533 °C; DA = 5,733.5 + 120 × (8.3 − 3.533) = 6,305.54 ft; 3,200 × 1.630554 = 5,217.7728 ft,
    /// then × 1.35 (7.0 kt tail) = 7,043.99 → 7,044; × 0.93 (7.0 kt head) = 4,852.53 → 4,853; × 0.851 (14.9 kt
    /// head) = 4,440.32 → 4,441; 14.9 kt of tailwind is over the 10 kt limit: N/A.
    @Test func sf50RunwaysComputesWindAndTakeoffDistanceForEveryRunwayFromTheMETAR() async throws {
        let fixture = try Fixture()
        let run = try await fixture.run(seed: "002-sf50-runways")
        #expect(run.code == 0, "\(run.log)")

        let targets = fixture.requests().map(\.target)
        #expect(targets.filter { $0.hasPrefix("/aviationweather.gov/") } == ["/aviationweather.gov/api/data/metar?ids=KAPA&format=json"])

        let snapshot = try fixture.json("sf50-runways.json")
        #expect(snapshot["status"] == "fresh")
        let content = try #require(snapshot["entries"]?[0]?["content"])
        #expect(content["airport"] == ["id": "KAPA", "name": "Centennial"])
        #expect(content["message"] == .null)
        let weather = try #require(content["weather"])
        #expect(weather["station"] == "KAPA")
        #expect(weather["observed"] == "2026-11-22T16:00:00.000Z")
        #expect(weather["windDirection"] == 350)
        #expect(weather["windSpeed"] == 15)
        #expect(weather["windGust"] == 22)
        #expect(weather["temperature"]?.number?.description == "8.3")
        #expect(weather["densityAltitude"] == 6306)
        let runways = try #require(content["runways"]?.array)
        #expect(runways.map { $0["name"]?.string } == ["10", "17L", "17R", "28", "35L", "35R"])
        func column(_ key: String) -> [String?] {
            runways.map { $0[key]?.number?.description ?? $0[key]?.string ?? $0[key].map { "\($0)" } }
        }
        // The wind components of every runway from the steady wind, a tailwind (negative headwind) included.
        #expect(column("headwind") == ["-7", "-14.9", "-14.9", "7", "14.9", "14.9"])
        #expect(column("crosswind") == ["13.2", "2.1", "2.1", "13.2", "2.1", "2.1"])
        #expect(column("crosswindFrom") == ["left", "right", "right", "right", "left", "left"])
        // What the app's medium widget writes beside its arrows (RunwayListItem.swift:76-120).
        #expect(
            runways.map { $0["wholeKnots"] } == [
                ["headwind": nil, "tailwind": 7, "crosswind": 13], ["headwind": nil, "tailwind": 15, "crosswind": 2],
                ["headwind": nil, "tailwind": 15, "crosswind": 2], ["headwind": 7, "tailwind": nil, "crosswind": 13],
                ["headwind": 15, "tailwind": nil, "crosswind": 2], ["headwind": 15, "tailwind": nil, "crosswind": 2],
            ])
        // The takeoff distance only where it can be computed: "N/A" beyond the tailwind limit.
        #expect(column("takeoffDistance") == ["7044", "N/A", "N/A", "4853", "4441", "4441"])
        #expect(column("margin") == ["-2244", "N/A", "N/A", "-53", "2560", "5560"])
        #expect(runways.map { $0["fits"] } == [false, "N/A", "N/A", false, true, true])
        #expect(runways[1]["note"] == "the tailwind of 14.9 kt exceeds the 10 kt limit")
        #expect(runways[0]["note"] == nil)
        #expect(snapshot["nextRefreshAt"] == "2026-11-22T16:20:00Z")
        SnapshotLog.show("002 SF50 runways, fresh; N/A where a tailwind is over the limit", snapshot)
    }

    @Test func aStationWithoutAReportShowsTheAirportAndRunwaysWithoutPerformance() async throws {
        let config = try Self.copy(seed: "002-sf50-runways")
        defer { try? FileManager.default.removeItem(at: config) }
        // Berlin Tegel no longer reports: aviationweather.gov answers 204 with an empty body.
        try Data(
            #"""
            {"id": "EDDT", "name": "Berlin Tegel", "elevation": 122,
             "runways": [{"name": "08L", "heading": 82, "length": 9918, "surface": "asphalt"},
                         {"name": "26R", "heading": 262, "length": 9918, "surface": "asphalt"}]}
            """#.utf8
        ).write(to: config.appendingPathComponent("data/airport.json"))
        let fixture = try Fixture()
        let run = try await fixture.run(config)
        #expect(run.code == 0, "\(run.log)")
        #expect(fixture.requests().map(\.target) == ["/aviationweather.gov/api/data/metar?ids=EDDT&format=json"])

        let snapshot = try fixture.json("sf50-runways.json")
        #expect(snapshot["status"] == "fresh")
        #expect(snapshot["error"] == .null)
        #expect(
            snapshot["entries"]?[0]?["content"] == [
                "airport": ["id": "EDDT", "name": "Berlin Tegel"],
                "weather": nil,
                "runways": [
                    [
                        "name": "08L", "heading": 82, "length": 9918, "surface": "asphalt", "headwind": nil, "crosswind": nil,
                        "crosswindFrom": nil, "wholeKnots": nil, "takeoffDistance": nil, "margin": nil, "fits": nil,
                    ],
                    [
                        "name": "26R", "heading": 262, "length": 9918, "surface": "asphalt", "headwind": nil, "crosswind": nil,
                        "crosswindFrom": nil, "wholeKnots": nil, "takeoffDistance": nil, "margin": nil, "fits": nil,
                    ],
                ],
                "message": "Weather is unavailable for EDDT; runways are shown without performance.",
            ])
        SnapshotLog.show("002 SF50 runways, weather unavailable (204)", snapshot)
    }

    @Test(arguments: ["", "null\n"])
    func withoutASelectedAirportTheWidgetAsksForOneAndFetchesNoWeather(_ airport: String) async throws {
        let config = try Self.copy(seed: "002-sf50-runways")
        defer { try? FileManager.default.removeItem(at: config) }
        try Data(airport.utf8).write(to: config.appendingPathComponent("data/airport.json"))
        let fixture = try Fixture()
        let run = try await fixture.run(config)
        #expect(run.code == 0, "\(run.log)")
        #expect(fixture.requests() == [])

        let snapshot = try fixture.json("sf50-runways.json")
        #expect(snapshot["status"] == "fresh")
        // The same content as the placeholder a front-end shows before any refresh: one prompt.
        let definition = try JSONReader.read(Data(contentsOf: Self.seeds.appendingPathComponent("002-sf50-runways/sf50-runways.json")))
        #expect(snapshot["entries"]?[0]?["content"] == definition["placeholder"])
        #expect(snapshot["entries"]?[0]?["content"]?["message"] == "Select an airport from the SF50 TOLD app first.")
        SnapshotLog.show("002 SF50 runways, no airport (\(airport.isEmpty ? "empty file" : "null"))", snapshot)
    }
}
