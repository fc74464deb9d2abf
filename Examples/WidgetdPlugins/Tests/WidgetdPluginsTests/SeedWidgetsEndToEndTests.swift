import Foundation
import Synchronization
import Testing
import WidgetCore
import WidgetRuntime
import WidgetStages
import WidgetTesting
@testable import WidgetdPlugins

/// Seeds 001 (BitDream) and 002 (SF50 Runways) end to end: the standard `run --once` command line with the
/// plugin stages, over the unchanged definitions in `Examples/definitions/`, against recorded payloads
/// served by widgetd's fake of the seed APIs (`Tests/Fixtures/seeds/seed_server.py`), reached through
/// `--rewrite-origin`.
struct SeedWidgetsEndToEndTests {
    /// The root of the widgetd package, two folders above this package.
    static let widgetdRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // WidgetdPluginsTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // WidgetdPlugins
        .deletingLastPathComponent()  // Examples
        .deletingLastPathComponent()

    static let fixtures = widgetdRoot.appendingPathComponent("Tests/Fixtures/seeds")
    static let definitions = widgetdRoot.appendingPathComponent("Examples/definitions")

    /// The origins the example definitions reach, each served under a path naming it.
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

    struct Run {
        var code: Int32
        var log: String
        var out: URL
        var server: TestHTTPServer

        func json(_ name: String) throws -> WidgetValue {
            try JSONReader.read(Data(contentsOf: out.appendingPathComponent(name)))
        }

        /// The requests the fake server received: `method`, `target`, `authorization`, `sessionId`.
        func requests() throws -> [WidgetValue] {
            try JSONReader.read(Data(contentsOf: server.url("/_requests"))).array ?? []
        }
    }

    /// Runs `widgetd-plugins run --config Examples/definitions --out OUT --once --rewrite-origin …` in process.
    static func runExamples(out: URL) async throws -> Run {
        let server = try TestHTTPServer(root: fixtures, script: fixtures.appendingPathComponent("seed_server.py"))
        var builder = StageRegistry.Builder.builtIn()
        builder.register(TransmissionFetcher.self)
        builder.register(RunwayPerformanceTransform.self)
        let lines = Mutex<[String]>([])
        let environment = CommandEnvironment(
            registry: try builder.build(),
            secrets: SecretStore(environment: credentials),
            print: { line in lines.withLock { $0.append(line) } },
            printError: { line in lines.withLock { $0.append(line) } }
        )
        let host = "http://127.0.0.1:\(server.port)/"
        let rewrites = origins.flatMap { origin in
            ["--rewrite-origin", "\(origin)=\(host)\(origin.split(separator: "/").last ?? "")"]
        }
        let code = await WidgetCommandLine.main(
            ["run", "--config", definitions.path, "--out", out.path, "--once"] + rewrites, environment: environment
        )
        return Run(code: code, log: lines.withLock { $0.joined(separator: "\n") }, out: out, server: server)
    }

    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("widgetd-plugins-seeds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Every file under `folder`, hidden state included.
    static func allFiles(under folder: URL) -> [URL] {
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        return (enumerator?.allObjects as? [URL] ?? []).filter {
            (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
        }
    }

    // MARK: - Seed 001: BitDream

    @Test func bitDreamWritesOneSnapshotPerServerWithoutEverShowingTheCredentials() async throws {
        let out = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try await Self.runExamples(out: out)
        defer { run.server.stop() }
        #expect(run.code == 0, "\(run.log)")

        let home = try run.json("bitdream.home.json")
        #expect(home["status"] == "fresh")
        #expect(home["title"] == "BitDream · Home")
        let entry = try #require(home["entries"]?[0])
        #expect(entry["url"] == "bitdream://server/nas.local")
        #expect(entry["relevance"]?.number?.description == "1.0")
        let content = try #require(entry["content"])
        #expect(content["server"] == "nas.local")
        #expect(content["downloadSpeed"] == 5242880)
        #expect(content["uploadSpeed"] == 1048576)
        #expect(content["activeTorrents"] == 2)
        #expect(content["pausedTorrents"] == 1)
        #expect(content["torrentCount"] == 4)
        #expect(content["downloading"] == 2)
        #expect(content["torrents"]?.array?.map { $0["name"]?.string } == ["debian-13.2.0-amd64-netinst.iso", "archlinux-2026.11.01-x86_64.iso"])
        #expect(content["torrents"]?[0]?["percentDone"]?.number?.description == "0.6125")

        let seedbox = try run.json("bitdream.seedbox.json")
        #expect(seedbox["status"] == "fresh")
        #expect(seedbox["entries"]?[0]?["url"] == "bitdream://server/seedbox.example.net")
        #expect(seedbox["entries"]?[0]?["content"]?["downloading"] == 0)
        #expect(seedbox["entries"]?[0]?["content"]?["uploadSpeed"] == 3145728)
        #expect(seedbox["entries"]?[0]?["relevance"]?.number?.description == "0.5")

        // Listed in the index, like the app's servers.json.
        let index = try run.json("index.json")
        let listed = index["widgets"]?.array?.map { [$0["id"]?.string, $0["file"]?.string] }
        #expect(listed?.contains(["bitdream.home", "bitdream.home.json"]) == true, "\(index)")
        #expect(listed?.contains(["bitdream.seedbox", "bitdream.seedbox.json"]) == true, "\(index)")

        // Each server got the 409 session handshake once, with its own basic authentication.
        let requests = try run.requests()
        let homeCalls = requests.filter { $0["target"]?.string?.hasPrefix("/nas.local:9091/") == true }
        #expect(homeCalls.map { $0["sessionId"]?.string } == [nil, "GQm2sVbI8x0rSm1hBRp0a5LzW2yYtQ8Xc4kD7n6Jf3PeuAHo", "GQm2sVbI8x0rSm1hBRp0a5LzW2yYtQ8Xc4kD7n6Jf3PeuAHo"])
        #expect(homeCalls.allSatisfy { $0["authorization"]?.string == "Basic " + Self.secretTexts[2] })
        let seedboxCalls = requests.filter { $0["target"]?.string?.hasPrefix("/seedbox.example.net:9091/") == true }
        #expect(seedboxCalls.count == 3)
        #expect(seedboxCalls.allSatisfy { $0["authorization"]?.string == "Basic " + Self.secretTexts[3] })

        // No credential in any file under OUT (state included) or in the log.
        let files = Self.allFiles(under: out)
        #expect(files.count >= 4)
        for file in files {
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            for secret in Self.secretTexts { #expect(!text.contains(secret), "\(file.lastPathComponent) holds a credential") }
        }
        for secret in Self.secretTexts { #expect(!run.log.contains(secret)) }
    }

    // MARK: - Seed 002: SF50 Runways

    @Test func sf50RunwaysComputesWindAndTakeoffDistanceForEveryRunwayFromTheMETAR() async throws {
        let out = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try await Self.runExamples(out: out)
        defer { run.server.stop() }
        #expect(run.code == 0, "\(run.log)")

        let targets = try run.requests().compactMap { $0["target"]?.string }
        #expect(targets.filter { $0.hasPrefix("/aviationweather.gov/") } == ["/aviationweather.gov/api/data/metar?ids=KAPA&format=json"])

        let snapshot = try run.json("sf50-runways.json")
        #expect(snapshot["status"] == "fresh")
        let content = try #require(snapshot["entries"]?[0]?["content"])
        #expect(content["airport"]?["icao"] == "KAPA")
        #expect(content["message"] == .null)
        let weather = try #require(content["weather"])
        #expect(weather["windDirection"] == 350)
        #expect(weather["windSpeed"] == 15)
        #expect(weather["windGust"] == 22)
        #expect(weather["temperature"]?.number?.description == "8.3")
        #expect(weather["densityAltitude"] == 6306)
        let runways = try #require(content["runways"]?.array)
        #expect(runways.map { $0["name"]?.string } == ["17L", "35R", "17R", "35L", "10", "28"])
        // Into the wind: headwind, crosswind and a takeoff distance.
        #expect(runways.map { $0["headwind"]?.number?.description ?? $0["headwind"]?.string } == ["N/A", "14.9", "N/A", "14.9", "N/A", "7"])
        #expect(runways.map { $0["crosswind"]?.number?.description ?? $0["crosswind"]?.string } == ["N/A", "3.1", "N/A", "3.1", "N/A", "19.4"])
        #expect(runways.map { $0["takeoffDistance"]?.number?.description ?? $0["takeoffDistance"]?.string } == ["N/A", "4441", "N/A", "4441", "N/A", "4853"])
        #expect(runways.map { $0["fits"] } == ["N/A", true, "N/A", true, "N/A", false])
        // A runway whose calculation fails (a tailwind over the limit) shows "N/A" and says why.
        #expect(runways[0]["note"] == "the tailwind of 21.8 kt exceeds the 10 kt limit")
        #expect(runways[4]["note"] == "the tailwind of 10.3 kt exceeds the 10 kt limit")
        #expect(snapshot["nextRefreshAt"].flatMap { $0.string.flatMap(Timestamp.date) }
            == snapshot["generatedAt"].flatMap { $0.string.flatMap(Timestamp.date) }.map { $0.addingTimeInterval(15 * 60) })
    }
}
