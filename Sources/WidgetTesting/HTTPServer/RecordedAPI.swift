public import Foundation
import Synchronization
import WidgetCore
public import WidgetJSON
import WidgetStages

/// A fake of remote APIs that answers with recorded payloads, as a route of a ``TestHTTPServer``: a
/// table of routes (`routes.json`) and the files it names, in one folder.
///
/// Serve each API's origin under a first path segment naming its host, so that one server stands in
/// for all of them, and send the real origins there with `--rewrite-origin` (or `OriginRewrites`):
/// `https://api.coingecko.com/api/v3/simple/price?ids=bitcoin` then arrives as
/// `/api.coingecko.com/api/v3/simple/price?ids=bitcoin`. The definitions under test run unchanged.
///
/// ```swift
/// let api = try RecordedAPI(folder: fixtures)
/// let server = try TestHTTPServer(routes: [api.route])
/// let rewrite = "https://api.coingecko.com=http://127.0.0.1:\(server.port)/api.coingecko.com"
/// ```
///
/// The table is `{"routes": [ROUTE, …], "scenarios": {NAME: [ROUTE, …], …}}`. The first route that
/// matches a request answers it, the routes of the scenario being played (``play(_:)``) before the
/// others. A ROUTE has:
/// - `method`: `GET` by default;
/// - `path`: a pattern for the percent-decoded path (`*` any run of characters, `?` one character);
/// - `query`: optional `{name: value}`: these query parameters must have exactly these values;
/// - then either the answer — `status` (200 by default), `file` (the body, read from the folder; none
///   gives an empty body), `type` (its `Content-Type`) and `headers` (`{name: value}`) — or one member
///   naming a handler given to ``init(folder:table:handlers:)``, whose value the handler receives with
///   the request: for a protocol a file cannot answer, such as a session handshake.
///
/// A request that no route matches is answered 404. Requests are recorded by the server
/// (``TestHTTPServer/requests``).
public final class RecordedAPI: Sendable {
    /// Answers a request to a route that names this handler: `spec` is the route's member that named it.
    public typealias Handler = @Sendable (_ spec: WidgetValue, _ request: TestHTTPRequest, _ api: RecordedAPI) throws -> TestHTTPResponse

    /// One route of the table.
    struct Route: Sendable {
        var method: String
        var pattern: String
        var query: [(name: String, value: String)]
        var status: Int
        var file: String?
        var type: String?
        var headers: [(name: String, value: String)]
        /// The handler named by the route, and the value it is given.
        var handler: (name: String, spec: WidgetValue)?

        func matches(_ request: TestHTTPRequest) -> Bool {
            method == request.method
                && TestHTTPRoute.matches(Array(request.decodedPath.unicodeScalars), pattern: Array(pattern.unicodeScalars))
                && query.allSatisfy { request.query($0.name) == $0.value }
        }
    }

    /// The folder of the table and the recorded files.
    public let folder: URL
    private let routes: [Route]
    private let scenarios: [String: [Route]]
    private let handlers: [String: Handler]
    private let state = Mutex<(failing: Int, scenario: String)>((0, ""))

    /// Reads the table `table` of `folder`.
    ///
    /// - Parameters:
    ///   - folder: The folder of the table and the payload files its routes name.
    ///   - table: The table's file name in `folder`.
    ///   - handlers: The handlers routes may name, by the name of the member that names them.
    /// - Throws: ``TestHTTPServerError`` naming the route and what is wrong with it: a table that is not
    ///   JSON, a route without `path`, a `file` that does not exist.
    public init(folder: URL, table: String = "routes.json", handlers: [String: Handler] = [:]) throws {
        self.folder = folder
        self.handlers = handlers
        let value: WidgetValue
        do {
            value = try JSONReader.read(Data(contentsOf: folder.appendingPathComponent(table)))
        } catch {
            throw TestHTTPServerError(message: "\(folder.lastPathComponent)/\(table) could not be read: \(error)")
        }
        func read(_ list: WidgetValue?, _ where: String) throws -> [Route] {
            try (list?.array ?? []).enumerated().map { index, route in
                try Self.route(route, at: "\(table): \(`where`)[\(index)]", folder: folder)
            }
        }
        routes = try read(value["routes"], "routes")
        var scenarios: [String: [Route]] = [:]
        for (name, list) in value["scenarios"]?.object ?? [:] {
            scenarios[name] = try read(list, "scenarios.\(name)")
        }
        self.scenarios = scenarios
    }

    private static func route(_ value: WidgetValue, at place: String, folder: URL) throws -> Route {
        guard case .object(let members) = value, let pattern = members["path"]?.string else {
            throw TestHTTPServerError(message: "\(place) has no \"path\"")
        }
        var route = Route(
            method: members["method"]?.string?.uppercased() ?? "GET", pattern: pattern,
            query: (members["query"]?.object ?? [:]).map { ($0.key, $0.value.string ?? JSONWriter.string($0.value)) },
            status: members["status"]?.number.flatMap { Int($0.description) } ?? 200,
            file: members["file"]?.string, type: members["type"]?.string,
            headers: (members["headers"]?.object ?? [:]).map { ($0.key, $0.value.string ?? JSONWriter.string($0.value)) }
        )
        if let file = route.file, !FileManager.default.fileExists(atPath: folder.appendingPathComponent(file).path) {
            throw TestHTTPServerError(message: "\(place): the file \(file) does not exist in \(folder.lastPathComponent)")
        }
        let known: Set = ["method", "path", "query", "status", "file", "type", "headers"]
        if let other = members.first(where: { !known.contains($0.key) }) {
            route.handler = (other.key, other.value)
        }
        return route
    }

    /// The route to give a ``TestHTTPServer``: it answers every request.
    public var route: TestHTTPRoute {
        TestHTTPRoute(nil, "*") { [self] request in try respond(to: request) }
    }

    /// From now on every request is answered `status` with `{"error": …}`; 0 stops that.
    public func fail(with status: Int) {
        state.withLock { $0.failing = status }
    }

    /// From now on the routes of the scenario `name` answer first; `""` stops that.
    ///
    /// - Throws: ``TestHTTPServerError`` for a scenario the table does not have.
    public func play(_ name: String) throws {
        guard name.isEmpty || scenarios[name] != nil else {
            throw TestHTTPServerError(message: "no scenario named '\(name)'; known: \(scenarios.keys.sorted().joined(separator: ", "))")
        }
        state.withLock { $0.scenario = name }
    }

    /// The recorded file `name` of the folder.
    ///
    /// - Throws: The error of reading it.
    public func file(_ name: String) throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent(name))
    }

    func respond(to request: TestHTTPRequest) throws -> TestHTTPResponse {
        let (failing, scenario) = state.withLock { ($0.failing, $0.scenario) }
        if failing != 0 {
            return .json(["error": "the fake server was told to fail"], status: failing)
        }
        guard let route = ((scenarios[scenario] ?? []) + routes).first(where: { $0.matches(request) }) else {
            return .json(["error": .string("no recorded payload for \(request.method) \(request.target)")], status: 404)
        }
        if let (name, spec) = route.handler {
            guard let handler = handlers[name] else {
                return .json(
                    ["error": .string("the route \(route.pattern) names \"\(name)\", but no handler of that name was given")], status: 501)
            }
            return try handler(spec, request, self)
        }
        var response = TestHTTPResponse.data(try route.file.map(file) ?? Data(), status: route.status, contentType: route.type)
        for header in route.headers { response.headers.add(name: header.name, value: header.value) }
        return response
    }
}
