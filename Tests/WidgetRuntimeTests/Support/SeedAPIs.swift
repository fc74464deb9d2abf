import Foundation
import WidgetCore
import WidgetTesting

/// The public APIs of the seed widgets, faked: `Tests/Fixtures/seeds/seed_server.py` serving the recorded
/// payloads of `Tests/Fixtures/seeds/`.
///
/// Each API's origin is served under a path naming its host, and ``rewriteArguments`` send the real
/// origins there, so the definitions in `Examples/seeds/` run unchanged.
final class SeedAPIs: Sendable {
    /// The recorded payloads and the server script.
    static let fixtures = Widgetd.packageRoot.appendingPathComponent("Tests/Fixtures/seeds")

    /// The hosts the definitions in `Examples/seeds/` reach.
    static let hosts = [
        "artsy-public.s3.amazonaws.com", "d7hftxdivxxvm.cloudfront.net", "www.artsy.net", "files.artsy.net",
        "firestore.googleapis.com", "api.coingecko.com",
    ]

    let server: TestHTTPServer

    init() throws {
        server = try TestHTTPServer(root: Self.fixtures, script: Self.fixtures.appendingPathComponent("seed_server.py"))
    }

    /// `--rewrite-origin https://HOST=http://127.0.0.1:PORT/HOST` for every host.
    var rewriteArguments: [String] {
        Self.hosts.flatMap { ["--rewrite-origin", "https://\($0)=http://127.0.0.1:\(server.port)/\($0)"] }
    }

    /// The requests received so far: `method`, `target` (path and query), `authorization`, `sessionId`.
    func requests() throws -> [WidgetValue] {
        try JSONReader.read(Data(contentsOf: server.url("/_requests"))).array ?? []
    }

    /// The targets requested so far, in order.
    func targets() throws -> [String] {
        try requests().compactMap { $0["target"]?.string }
    }

    /// From now on every request answers `status` (0 stops that).
    func fail(with status: Int) throws {
        _ = try Data(contentsOf: server.url("/_fail?status=\(status)"))
    }

    /// Stops the server.
    func stop() {
        server.stop()
    }

    /// Runs the built `widgetd run --config Examples/seeds --out OUT --once` against this server.
    func runSeeds(out: TemporaryFolder) async throws -> Widgetd.Output {
        try await Widgetd.run(["run", "--config", "Examples/seeds", "--out", out.path, "--once"] + rewriteArguments)
    }
}

extension TemporaryFolder {
    /// The JSON file `name`, read as a value.
    func json(_ name: String) throws -> WidgetValue {
        try JSONReader.read(Data(contentsOf: file(name)))
    }
}
