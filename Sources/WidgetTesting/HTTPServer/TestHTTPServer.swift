import Dispatch
public import Foundation
import Synchronization
import WidgetCore
import WidgetJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 server for tests, in the test's own process: it listens on 127.0.0.1 on a port the
/// system picks and answers with the routes it was given.
///
/// `TestHTTPServer()` serves the built-in routes (``TestHTTPRoute/builtIn(root:)``): JSON documents,
/// any status, ETag and Last-Modified validation, an echo, redirect chains, request counts, files from
/// a folder, and servers that misbehave on purpose — slow, trickling, stalled, endless, truncated,
/// gzip bombs, header floods, another protocol. A fake of your own API is a list of routes:
///
/// ```swift
/// let server = try TestHTTPServer(routes: [
///     TestHTTPRoute("GET", "/v1/price") { request in
///         .json(["symbol": .string(request.query("symbol") ?? "?"), "price": 42])
///     }
/// ])
/// let url = server.url("/v1/price?symbol=BTC")
/// …
/// #expect(server.requestCount(path: "/v1/price") == 1)
/// ```
///
/// Every connection has a thread of its own and every socket is non-blocking, so a route that stalls
/// or writes without end holds up no other connection and no other server. The server does all the
/// waiting a route asks for, so tests never sleep. It stops on ``stop()`` or when the value is released.
public final class TestHTTPServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// `http://127.0.0.1:<port>/`.
    public let baseURL: URL

    let core: Core

    /// Starts a server with the built-in routes (see ``TestHTTPRoute/builtIn(root:)``).
    ///
    /// - Parameter root: The folder served under `/file/<name>`, if any.
    /// - Throws: ``TestHTTPServerError`` when no socket could be opened.
    public convenience init(root: URL? = nil) throws {
        try self.init(routes: TestHTTPRoute.builtIn(root: root))
    }

    /// Starts a server that answers with `routes`, the first that matches a request; 404 when none does.
    ///
    /// - Throws: ``TestHTTPServerError`` when no socket could be opened.
    public init(routes: [TestHTTPRoute]) throws {
        let (listener, port) = try Socket.makeListener()
        let wake: (read: Int32, write: Int32)
        do {
            wake = try Socket.wakePipe()
        } catch {
            close(listener)
            throw error
        }
        self.port = port
        baseURL = URL(string: "http://127.0.0.1:\(port)/")!
        core = Core(routes: routes, wakeRead: wake.read, wakeWrite: wake.write)
        core.startAccepting(listener)
    }

    deinit {
        stop()
    }

    /// The URL of `pathAndQuery` on this server: `server.url("/json?size=2")`.
    public func url(_ pathAndQuery: String) -> URL {
        let target = pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery
        guard let url = URL(string: "http://127.0.0.1:\(port)\(target)") else {
            preconditionFailure("\(pathAndQuery.debugDescription) is not a path and query that a URL can hold")
        }
        return url
    }

    /// Stops the server: no new connection is accepted, and every connection ends at its next read,
    /// write or wait. Waits (a few seconds at most) for their threads to finish. Calling it again does
    /// nothing.
    public func stop() {
        core.stop()
    }

    // MARK: - What the server received

    /// The requests received so far by routes that record them, in the order they arrived.
    public var requests: [TestHTTPRequest] {
        core.recording.withLock { $0.requests }
    }

    /// How many recorded requests had the path `path` (`/json`, as sent, without the query).
    public func requestCount(path: String) -> Int {
        core.recording.withLock { $0.paths[path] ?? 0 }
    }

    /// How many recorded requests had the target `target`: the path and query as sent (`/json?size=2`).
    public func requestCount(target: String) -> Int {
        core.recording.withLock { $0.targets[target] ?? 0 }
    }

    /// How many connections the server has accepted since it started: requests sent over a kept-alive
    /// connection share one.
    public var connectionCount: Int {
        core.recording.withLock { $0.connections }
    }

    /// Forgets the requests received so far.
    public func resetRecording() {
        core.recording.withLock { $0.reset() }
    }
}

/// The test server could not be started.
public struct TestHTTPServerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in one sentence.
    public var message: String
    public var description: String { message }

    /// An error saying `message`.
    public init(message: String) {
        self.message = message
    }
}

// MARK: - The server's threads

extension TestHTTPServer {
    /// What the server received: the requests of recorded routes, counted by path and by target, and how
    /// many were being served at once (until their response started).
    struct Recording {
        var requests: [TestHTTPRequest] = []
        var paths: [String: Int] = [:]
        var targets: [String: Int] = [:]
        var current = 0
        var maxConcurrent = 0
        var total = 0
        /// Connections accepted since the server started (not reset).
        var connections = 0

        mutating func reset() {
            requests = []
            paths = [:]
            targets = [:]
            total = 0
            maxConcurrent = current
        }
    }

    /// The state the server's threads share; it outlives the ``TestHTTPServer`` until its last thread ends.
    final class Core: Sendable {
        let routes: [TestHTTPRoute]
        /// The read end of the pipe that wakes every wait when the server stops.
        let wakeRead: Int32
        private let wakeWrite: Int32
        let recording = Mutex(Recording())
        /// Counters routes keep for themselves (how many 200s `/conditional` gave).
        let counters = Mutex<[String: Int]>([:])
        private let stopped = Atomic(false)
        private let threads = DispatchGroup()
        private let running = Atomic(0)

        init(routes: [TestHTTPRoute], wakeRead: Int32, wakeWrite: Int32) {
            self.routes = routes
            self.wakeRead = wakeRead
            self.wakeWrite = wakeWrite
        }

        deinit {
            close(wakeRead)
            close(wakeWrite)
        }

        var isStopped: Bool { stopped.load(ordering: .acquiring) }

        /// How many of the server's threads are running (for tests).
        var liveThreads: Int { running.load(ordering: .acquiring) }

        func stop() {
            guard stopped.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
                return
            }
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
            _ = threads.wait(timeout: .now() + 5)
        }

        /// Waits `seconds` (less when the server stops); `false` when it stopped.
        func pause(_ seconds: Double) -> Bool {
            Socket.pause(seconds, wake: wakeRead)
        }

        func startAccepting(_ listener: Int32) {
            spawn("TestHTTPServer accept") { core in
                defer { close(listener) }
                while !core.isStopped {
                    guard Socket.wait(listener, for: Int16(POLLIN), wake: core.wakeRead) == .ready else { return }
                    accepting: while true {
                        switch Socket.acceptConnection(listener) {
                        case .connection(let descriptor):
                            core.recording.withLock { $0.connections += 1 }
                            core.spawn("TestHTTPServer connection") { core in
                                defer { close(descriptor) }
                                core.serve(TestHTTPConnection(descriptor: descriptor, wake: core.wakeRead))
                            }
                        case .none:
                            break accepting
                        case .failed:
                            // Out of descriptors, say: the connection waits in the backlog until some close.
                            guard core.pause(0.01) else { return }
                            break accepting
                        }
                    }
                }
            }
        }

        private func spawn(_ name: String, _ body: @escaping @Sendable (Core) -> Void) {
            threads.enter()
            running.add(1, ordering: .acquiringAndReleasing)
            let thread = Thread { [self] in
                body(self)
                running.subtract(1, ordering: .acquiringAndReleasing)
                threads.leave()
            }
            thread.name = name
            thread.start()
        }

        /// Answers the requests of one connection until it closes.
        private func serve(_ connection: TestHTTPConnection) {
            while !isStopped {
                let request: TestHTTPRequest
                do {
                    guard let next = try connection.readRequest() else { return }
                    request = next
                } catch let error as TestHTTPConnection.BadRequest {
                    var response = TestHTTPResponse.json(["error": .string(error.message)], status: error.status)
                    response.closesConnection = true
                    let unknown = TestHTTPRequest(method: "GET", target: "/")
                    _ = try? connection.respond(response, to: unknown)
                    return
                } catch {
                    return
                }
                guard (try? respond(to: request, on: connection)) == true else { return }
            }
        }

        /// Answers `request`; whether the connection stays open.
        private func respond(to request: TestHTTPRequest, on connection: TestHTTPConnection) throws -> Bool {
            let route = routes.first { $0.matches(request) }
            let recorded = route?.isRecorded ?? true
            if recorded { begin(request) }
            var ended = !recorded
            // A request stops counting as served once its response starts: a client that sends its next
            // request as soon as it has this one's answer must not find it still counted.
            func end() {
                if !ended { recording.withLock { $0.current -= 1 } }
                ended = true
            }
            defer { end() }
            var response: TestHTTPResponse
            if let route {
                do {
                    response = try route.handler(request, self)
                } catch {
                    response = .json(["error": .string("the route \(route.pattern) failed: \(error)")], status: 500)
                }
            } else {
                response = .json(["error": .string("no route for \(request.path)")], status: 404)
            }
            if response.delay > 0 { try connection.pause(response.delay) }
            end()
            return try connection.respond(response, to: request)
        }

        private func begin(_ request: TestHTTPRequest) {
            recording.withLock { recording in
                recording.requests.append(request)
                recording.paths[request.path, default: 0] += 1
                recording.targets[request.target, default: 0] += 1
                recording.total += 1
                recording.current += 1
                recording.maxConcurrent = max(recording.maxConcurrent, recording.current)
            }
        }
    }
}
