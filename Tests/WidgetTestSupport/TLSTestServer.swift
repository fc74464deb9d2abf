package import Foundation

/// An HTTPS server on 127.0.0.1, started by a test with the certificates of `Tests/Fixtures/tls/`
/// (`server.py` there, run by `python3`): it answers every GET with `{"ok": true, "path": PATH}`.
///
/// The server prints its port when it listens; the initializer waits for that line, so a test never
/// sleeps. It stops when the value is released.
///
/// ```swift
/// let server = try TLSTestServer(certificate: "server")
/// let url = server.url("/status")   // https://127.0.0.1:PORT/status
/// ```
package final class TLSTestServer {
    /// The folder of the certificates and the server script.
    package static let fixtures = Widgetd.packageRoot.appendingPathComponent("Tests/Fixtures/tls")

    /// The port the server listens on.
    package let port: Int
    private let process: Process
    private let input: FileHandle

    /// Starts a server with `certificate`.pem and its key; with `clientCA`, it asks for a client
    /// certificate signed by `clientCA`.pem and refuses the connection without one.
    ///
    /// - Throws: When `python3` cannot be started or prints no port.
    package init(certificate: String, clientCA: String? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["python3", Self.file("server.py"), Self.file("\(certificate).pem"), Self.file("\(certificate).key")]
        if let clientCA { arguments.append(Self.file("\(clientCA).pem")) }
        process.arguments = arguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first line is the port; reading blocks until the server listens (or exits).
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let piece = output.fileHandleForReading.availableData
            if piece.isEmpty { break }
            line.append(piece)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw ToolError(description: "the TLS test server (python3 \(arguments.dropFirst().joined(separator: " "))) printed no port")
        }
        self.port = port
        self.process = process
        self.input = input.fileHandleForWriting
    }

    deinit {
        // Closing its input ends the server. SIGKILL in case it does not see the end (another child that
        // inherited the pipe's end keeps it open) or was started with SIGTERM blocked (a child inherits the
        // signal mask of the thread that starts it).
        try? input.close()
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// `https://127.0.0.1:PORT` followed by `path`.
    package func url(_ path: String = "/", host: String = "127.0.0.1") -> URL {
        URL(string: "https://\(host):\(port)\(path)")!
    }

    /// The path of a fixture file, e.g. `ca.pem`.
    package static func file(_ name: String) -> String {
        fixtures.appendingPathComponent(name).path
    }
}
