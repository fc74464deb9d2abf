import Foundation
import Synchronization
import WidgetCommands
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages
import WidgetTestSupport
import WidgetTesting

/// The public APIs of the seed widgets, faked: a ``RecordedAPI`` serving the recorded payloads of
/// `Tests/Fixtures/seeds/` as `routes.json` describes them.
///
/// Each API's origin is served under a path naming its host, and ``rewriteArguments`` send the real
/// origins there, so the definitions in `Examples/seeds/NNN-name/` run unchanged.
final class SeedAPIs: Sendable {
    /// The recorded payloads and their routes.
    static let fixtures = Widgetd.packageRoot.appendingPathComponent("Tests/Fixtures/seeds")
    /// One folder per seed widget: its definition and data.
    static let seeds = Widgetd.packageRoot.appendingPathComponent("Examples/seeds")

    /// The hosts the seed definitions that need no plugin reach.
    static let hosts = [
        "artsy-public.s3.amazonaws.com", "d7hftxdivxxvm.cloudfront.net", "www.artsy.net", "firestore.googleapis.com",
        "api.coingecko.com",
    ]

    let api: RecordedAPI
    let server: TestHTTPServer

    init() throws {
        api = try RecordedAPI(folder: Self.fixtures)
        server = try TestHTTPServer(routes: [api.route])
    }

    /// `--rewrite-origin https://HOST=http://127.0.0.1:PORT/HOST` for every host.
    var rewriteArguments: [String] {
        Self.hosts.flatMap { ["--rewrite-origin", "https://\($0)=http://127.0.0.1:\(server.port)/\($0)"] }
    }

    /// The targets (path and query) requested so far, in order.
    func targets() -> [String] {
        server.requests.map(\.target)
    }

    /// From now on every request answers `status` (0 stops that).
    func fail(with status: Int) {
        api.fail(with: status)
    }

    /// From now on the routes of the scenario `name` of `routes.json` answer first ("" stops that).
    func play(_ name: String) throws {
        try api.play(name)
    }

    /// Stops the server.
    func stop() {
        server.stop()
    }

    /// Runs the built `widgetd run --config Examples/seeds/SEED --out OUT --once` against this server.
    func run(_ seed: String, out: TemporaryFolder) async throws -> Widgetd.Output {
        try await Widgetd.run(["run", "--config", "Examples/seeds/\(seed)", "--out", out.path, "--once"] + rewriteArguments)
    }

    /// Runs the built `widgetd run --once` on the definitions of `config` (a copy of a seed, say).
    func run(config: TemporaryFolder, out: TemporaryFolder) async throws -> Widgetd.Output {
        try await Widgetd.run(["run", "--config", config.path, "--out", out.path, "--once"] + rewriteArguments)
    }

    /// Runs the same `run --once` command line in this process with `clock`, for the states that depend on
    /// time (the built executable reads the system clock); returns the exit status and what it printed.
    func run(_ seed: String, out: TemporaryFolder, clock: any WidgetClock) async -> (status: Int32, log: String) {
        let lines = Mutex<[String]>([])
        let environment = CommandEnvironment(
            registry: .builtIn, clock: clock,
            print: { line in lines.withLock { $0.append(line) } },
            printError: { line in lines.withLock { $0.append(line) } }
        )
        let config = Self.seeds.appendingPathComponent(seed).path
        let status = await WidgetCommandLine.main(
            ["run", "--config", config, "--out", out.path, "--once"] + rewriteArguments, environment: environment
        )
        return (status, lines.withLock { $0.joined(separator: "\n") })
    }

    /// A copy of the seed's folder, whose data a test may change as the app would.
    static func copy(_ seed: String) throws -> TemporaryFolder {
        let folder = try TemporaryFolder("seed-\(seed)")
        let source = seeds.appendingPathComponent(seed)
        for name in try FileManager.default.contentsOfDirectory(atPath: source.path) {
            try FileManager.default.copyItem(at: source.appendingPathComponent(name), to: folder.file(name))
        }
        return folder
    }
}

extension TemporaryFolder {
    /// The JSON file `name`, read as a value.
    func json(_ name: String) throws -> WidgetValue {
        try JSONReader.read(Data(contentsOf: file(name)))
    }
}
