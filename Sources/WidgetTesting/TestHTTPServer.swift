public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A local HTTP server for tests: the package's `Tests/Fixtures/http_server.py`, run with `python3`.
///
/// It listens on 127.0.0.1 on a free port and serves the routes documented at the top of the script —
/// JSON documents, any status with `Retry-After`, slow and trickling responses, huge and truncated bodies,
/// redirect chains, ETag and Last-Modified validation, an echo, request counts and concurrency statistics,
/// and files from a folder. The server does all the waiting, so tests never sleep. It stops on ``stop()``,
/// when the value is released, or when the test process exits.
///
/// ```swift
/// let server = try TestHTTPServer()
/// let response = try await client.send(HTTPRequest(url: server.url("/slow?delay=0.2")))
/// ```
public final class TestHTTPServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// `http://127.0.0.1:<port>/`.
    public let baseURL: URL

    private let process: Mutex<Process?>
    private let input: FileHandle

    /// The server script inside this package.
    public static var defaultScript: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // WidgetTesting
            .deletingLastPathComponent()  // Sources
            .deletingLastPathComponent()  // the package
            .appendingPathComponent("Tests/Fixtures/http_server.py")
    }

    /// Starts the server and waits until it listens.
    ///
    /// - Parameters:
    ///   - root: The folder served under `/file/<name>`, if any.
    ///   - script: The server script; this package's by default.
    /// - Throws: An error when `python3` cannot be started or the server does not report its port.
    public init(root: URL? = nil, script: URL = TestHTTPServer.defaultScript) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["python3", script.path]
        if let root { arguments += ["--root", root.path] }
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()

        let text = Self.readLine(from: stdout.fileHandleForReading.fileDescriptor)
        guard let first = text.split(separator: "\n").first, first.hasPrefix("PORT "),
            let port = Int(first.dropFirst(5).trimmingCharacters(in: .whitespaces))
        else {
            try? stdin.fileHandleForWriting.close()
            process.terminate()
            process.waitUntilExit()
            throw TestHTTPServerError(
                message: "the test server \(script.lastPathComponent) did not report its port (it printed "
                    + "\(text.debugDescription)); check that python3 is on PATH and the script exists"
            )
        }
        self.port = port
        self.baseURL = URL(string: "http://127.0.0.1:\(port)/")!
        self.input = stdin.fileHandleForWriting
        self.process = Mutex(process)
    }

    deinit {
        stop()
    }

    /// Reads up to the first newline, retrying reads interrupted by signals (FileHandle traps on those).
    private static func readLine(from descriptor: Int32) -> String {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.last != UInt8(ascii: "\n") {
            let count = read(descriptor, &byte, 1)
            if count == 1 {
                line.append(byte)
            } else if count < 0, errno == EINTR {
                continue
            } else {
                break
            }
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// The URL of `pathAndQuery` on this server: `server.url("/json?size=2")`.
    public func url(_ pathAndQuery: String) -> URL {
        let relative = pathAndQuery.hasPrefix("/") ? String(pathAndQuery.dropFirst()) : pathAndQuery
        return URL(string: relative, relativeTo: baseURL)!.absoluteURL
    }

    /// Stops the server and waits for it to exit. Calling it again does nothing.
    public func stop() {
        guard let process = process.withLock({ $0.take() }) else { return }
        try? input.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// The test server could not be started.
public struct TestHTTPServerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in one sentence.
    public var message: String
    public var description: String { message }
}
