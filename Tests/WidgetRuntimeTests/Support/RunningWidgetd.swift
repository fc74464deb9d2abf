import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `widgetd` process left running (the daemon), whose standard error a test reads line by line.
///
/// Waiting is done by reading: ``line(containing:)`` returns when the daemon logs a matching line, so no
/// test polls files or sleeps.
final class RunningWidgetd: Sendable {
    private let process: Mutex<Process>
    private let lines: AsyncStream<String>
    private let seen = Mutex<[String]>([])
    private let exit: AsyncStream<Int32>

    /// Starts `widgetd arguments` in `directory`.
    init(_ arguments: [String], in directory: URL = Widgetd.packageRoot) throws {
        let process = Process()
        process.executableURL = try Widgetd.executable()
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let pipe = Pipe()
        process.standardError = pipe
        let (exitStream, exitContinuation) = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { finished in
            exitContinuation.yield(finished.terminationStatus)
            exitContinuation.finish()
        }
        let (lineStream, lineContinuation) = AsyncStream.makeStream(of: String.self)
        try process.run()
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        // A thread of its own does the blocking reads, so no task of the test pool waits on the pipe.
        let reader = Thread {
            var buffer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(descriptor, &chunk, chunk.count)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                buffer += chunk[0..<count]
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    lineContinuation.yield(String(decoding: buffer[..<newline], as: UTF8.self))
                    buffer.removeSubrange(...newline)
                }
            }
            if !buffer.isEmpty { lineContinuation.yield(String(decoding: buffer, as: UTF8.self)) }
            lineContinuation.finish()
        }
        reader.start()
        self.process = Mutex(process)
        self.lines = lineStream
        self.exit = exitStream
    }

    var pid: Int32 { process.withLock { $0.processIdentifier } }

    /// Every line read so far.
    var log: [String] { seen.withLock { $0 } }

    /// Reads standard error until a line contains `text`; `nil` when the process ended first.
    func line(containing text: String) async -> String? {
        // One caller at a time: the stream's iterators share one buffer.
        var iterator = lines.makeAsyncIterator()
        while let line = await iterator.next() {
            seen.withLock { $0.append(line) }
            if line.contains(text) { return line }
        }
        return nil
    }

    /// Sends `signal` to the process.
    func send(_ signal: Int32) {
        _ = kill(pid, signal)
    }

    /// Waits for the process to exit and returns its status.
    func waitForExit() async -> Int32? {
        var iterator = exit.makeAsyncIterator()
        return await iterator.next()
    }

    deinit {
        process.withLock { process in
            if process.isRunning { process.terminate() }
        }
    }
}
