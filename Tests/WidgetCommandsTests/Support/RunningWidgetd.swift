import Foundation
import Synchronization
import WidgetTestSupport

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

    /// Starts `widgetd arguments` in `directory`, with `variables` added to its environment.
    ///
    /// - Parameter closedOutput: whether both output streams are pipes nobody reads, closed at once (as
    ///   after `widgetd run 2>&1 | head -1`): every line the process writes meets a broken pipe.
    init(_ arguments: [String], in directory: URL = Widgetd.packageRoot, variables: [String: String] = [:], closedOutput: Bool = false)
        throws
    {
        let process = Process()
        process.executableURL = try Widgetd.executable()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(variables) { $1 }
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        process.standardOutput = closedOutput ? output : FileHandle.nullDevice
        let pipe = Pipe()
        process.standardError = pipe
        let (exitStream, exitContinuation) = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { finished in
            exitContinuation.yield(finished.terminationStatus)
            exitContinuation.finish()
        }
        let (lineStream, lineContinuation) = AsyncStream.makeStream(of: String.self)
        try process.run()
        self.process = Mutex(process)
        self.lines = lineStream
        self.exit = exitStream
        if closedOutput {
            try output.fileHandleForReading.close()
            try pipe.fileHandleForReading.close()
            lineContinuation.finish()
            return
        }
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
    }

    var pid: Int32 { process.withLock { $0.processIdentifier } }

    /// Whether the process still runs.
    var isRunning: Bool { process.withLock { $0.isRunning } }

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

    /// Sends `signal` (SIGTERM by default) and waits for the exit status.
    func stop(_ signal: Int32 = SIGTERM) async -> Int32? {
        send(signal)
        return await waitForExit()
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
