public import Foundation
public import WidgetCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs an external program on the value: JSON on its standard input, JSON on its standard output.
///
/// ```json
/// {"type": "command", "run": ["python3", "split_joke.py"], "timeout": "5s"}
/// ```
///
/// `run` is the program and its arguments (no shell); a program path with a `/` is relative to the
/// definition's folder, a bare name is looked up in `PATH`. The program runs in the definition's folder
/// with the value as compact JSON on standard input and must print one JSON document on standard output
/// and exit 0 within `timeout` (default 10 s); its output may be at most `maxBytes` (default 1 MiB).
/// Otherwise the transform fails, naming the exit status or the first line of standard error. The
/// program's environment is widgetd's: do not run programs you do not trust. A program that exits without
/// reading its input is fine: the write to it fails without a SIGPIPE.
public struct CommandTransform: Transformer {
    public struct Options: Decodable, Sendable {
        /// The program and its arguments.
        public var run: [String]
        /// The longest the program may run; default `10s`.
        public var timeout: WidgetDuration?
        /// The most bytes it may print; default 1 MiB.
        public var maxBytes: Int?
    }

    public static let typeName = "command"
    public static let summary = "Runs a program with the value as JSON on stdin and takes JSON from its stdout."

    public let arguments: [String]
    public let timeout: TimeInterval
    public let maxBytes: Int

    public init(options: Options) throws {
        guard let program = options.run.first, !program.isEmpty else {
            throw StageError("\"run\" needs the program and its arguments, e.g. [\"python3\", \"script.py\"]", option: "run")
        }
        arguments = options.run
        timeout = options.timeout.map { Double($0.seconds) } ?? 10
        maxBytes = options.maxBytes ?? 1_048_576
        guard timeout > 0 else { throw StageError("\"timeout\" must be above 0s", option: "timeout") }
        guard maxBytes > 0 else { throw StageError("\"maxBytes\" must be above 0", option: "maxBytes") }
    }

    public func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue {
        let input = JSONWriter.data(value)
        let arguments = self.arguments
        let folder = context.baseDirectory
        let timeout = self.timeout
        let maxBytes = self.maxBytes
        let name = (arguments[0] as NSString).lastPathComponent
        let result = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
            // Blocking work runs on its own thread, never on the cooperative pool.
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    try CommandTransform.runProgram(arguments, input: input, folder: folder, timeout: timeout, maxBytes: maxBytes)
                })
            }
        }
        do {
            return try JSONReader.read(result)
        } catch {
            throw StageError("the output of \(name) is not JSON: \(error)")
        }
    }

    static func runProgram(_ arguments: [String], input: Data, folder: URL?, timeout: TimeInterval, maxBytes: Int) throws -> Data {
        let process = Process()
        let program = arguments[0]
        let name = (program as NSString).lastPathComponent
        if program.contains("/") {
            process.executableURL = program.hasPrefix("/") || folder == nil
                ? URL(fileURLWithPath: program) : folder!.appendingPathComponent(program)
            process.arguments = Array(arguments.dropFirst())
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
        }
        if let folder { process.currentDirectoryURL = folder }
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        do {
            try process.run()
        } catch {
            throw StageError("\(name) cannot be started: \(error.localizedDescription)")
        }
        let writer = Thread {
            // A program that exits without reading its input must not kill us with SIGPIPE: blocked in this
            // thread, the signal stays pending here (and dies with the thread) and the write fails with EPIPE.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            try? stdin.fileHandleForWriting.write(contentsOf: input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let deadline = DispatchTime.now() + timeout
        // Standard output and error are read on their own threads; this thread waits for both to end, or for
        // the deadline (a program's children may keep the pipes open after it is killed).
        final class Collected: @unchecked Sendable {
            var output = Data()
            var errors = Data()
            var tooLarge = false
        }
        let collected = Collected()
        let finished = DispatchSemaphore(value: 0)
        let outputEnded = DispatchSemaphore(value: 0)
        let stdoutReader = Thread {
            let reader = stdout.fileHandleForReading
            while let chunk = try? reader.read(upToCount: 65_536), !chunk.isEmpty {
                collected.output.append(chunk)
                if collected.output.count > maxBytes {
                    collected.tooLarge = true
                    kill(process.processIdentifier, SIGKILL)
                    break
                }
            }
            outputEnded.signal()
        }
        let stderrReader = Thread {
            collected.errors = (try? stderr.fileHandleForReading.read(upToCount: 65_536)) ?? Data()
            finished.signal()
        }
        stdoutReader.start()
        stderrReader.start()
        let outputInTime = outputEnded.wait(timeout: deadline) == .success
        if outputInTime, collected.tooLarge { throw StageError("\(name) printed more than the \(maxBytes)-byte limit") }
        guard outputInTime, finished.wait(timeout: deadline) == .success else {
            kill(process.processIdentifier, SIGKILL)
            throw StageError("\(name) did not finish within \(Int(timeout)) s")
        }
        process.waitUntilExit()
        let tooLarge = collected.tooLarge
        let output = collected.output
        let errors: Data? = collected.errors
        if tooLarge { throw StageError("\(name) printed more than the \(maxBytes)-byte limit") }
        guard process.terminationStatus == 0 else {
            let firstLine = errors.flatMap { String(decoding: $0, as: UTF8.self).split(separator: "\n").first }
                .map { ": \($0)" } ?? ""
            throw StageError("\(name) exited with status \(process.terminationStatus)\(firstLine)")
        }
        return output
    }
}
