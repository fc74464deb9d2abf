import Foundation
import WidgetTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `TestHTTPServer`'s built-in routes, served by a child process — this executable, run with
/// ``flag`` — so that the server's threads count neither in the CPU time nor in the memory the suites
/// measure of this process.
///
/// ```swift
/// let server = try BenchmarkServer()
/// defer { server.stop() }
/// let url = server.url("/json?size=2")
/// ```
final class BenchmarkServer {
    /// The argument that makes this executable a server: it prints `PORT <n>`, then serves until its
    /// standard input closes.
    static let flag = "--serve-test-http"

    /// The port the child listens on.
    let port: Int
    private let process: Process
    private let input: FileHandle

    /// Starts the child and waits until it listens.
    ///
    /// - Throws: ``TestHTTPServerError`` when the child cannot be started or does not report its port.
    init() throws {
        let process = Process()
        process.executableURL = Bundle.main.executableURL
        process.arguments = [Self.flag]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        let line = Self.readLine(from: stdout.fileHandleForReading.fileDescriptor)
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            try? stdin.fileHandleForWriting.close()
            process.waitUntilExit()
            throw TestHTTPServerError(message: "the benchmark's test server did not report its port (it printed \(line.debugDescription))")
        }
        self.port = port
        self.process = process
        input = stdin.fileHandleForWriting
    }

    /// The URL of `pathAndQuery` on the server.
    func url(_ pathAndQuery: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(pathAndQuery.hasPrefix("/") ? "" : "/")\(pathAndQuery)")!
    }

    /// Closes the child's standard input and waits for it to exit.
    func stop() {
        try? input.close()
        process.waitUntilExit()
    }

    /// The child's side: serves until standard input closes, then exits.
    static func serve() -> Never {
        do {
            let server = try TestHTTPServer()
            let line = Array("PORT \(server.port)\n".utf8)
            _ = write(1, line, line.count)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(0, &buffer, buffer.count)
                if count > 0 || (count < 0 && errno == EINTR) { continue }
                break
            }
            server.stop()
            exit(0)
        } catch {
            print("Error: \(error)")
            exit(1)
        }
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
}
