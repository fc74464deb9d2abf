package import Foundation
import Synchronization
import Testing

/// Runs the built `widgetd` executable, as a user would.
///
/// The executable is looked for in the build products folder that holds the test bundle: after
/// `swift build --build-tests`, `widgetd` sits next to it.
package enum Widgetd {
    /// The package's root folder.
    package static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // WidgetTestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// What a finished run printed and returned.
    package struct Output: Sendable {
        package var status: Int32
        package var stdout: String
        package var stderr: String

        package var stdoutLines: [String] {
            stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLastEmpty()
        }
        package var stderrLines: [String] {
            stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLastEmpty()
        }
    }

    /// The `widgetd` executable of this build, or the one `WIDGETD_EXECUTABLE` names (to take the same
    /// measurements of another build, a release one say).
    ///
    /// - Throws: an error explaining how to build it when it cannot be found.
    package static func executable() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["WIDGETD_EXECUTABLE"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        var starts = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0])]
        starts += Bundle.allBundles.map(\.bundleURL)
        var tried: [String] = []
        for start in starts {
            var folder = start.deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = folder.appendingPathComponent("widgetd")
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                    FileManager.default.isExecutableFile(atPath: candidate.path)
                {
                    return candidate
                }
                tried.append(folder.path)
                folder = folder.deletingLastPathComponent()
            }
        }
        throw ToolError(
            description: "the widgetd executable was not found next to the test bundle (looked in "
                + Array(Set(tried)).sorted().joined(separator: ", ")
                + "); build it first with 'swift build --build-tests', then run 'swift test --skip-build'"
        )
    }

    /// Runs `widgetd arguments` in `directory` (the package root by default) and waits for it to exit.
    package static func run(_ arguments: [String], in directory: URL = packageRoot, variables: [String: String] = [:]) async throws
        -> Output
    {
        try await run(program: try executable(), arguments, in: directory, variables: variables)
    }

    /// Runs `program arguments` in `directory` and waits for it to exit, without holding a thread.
    ///
    /// With a `timeout`, a program still running after that many seconds is killed and ``ToolError``
    /// thrown: a bound for programs that may hang (a browser), never a measure of speed.
    package static func run(
        program: URL, _ arguments: [String], in directory: URL = packageRoot, variables: [String: String] = [:],
        timeout: Double? = nil
    ) async throws -> Output {
        let folder = try TemporaryFolder("widgetd-output")
        let stdoutFile = folder.file("stdout")
        let stderrFile = folder.file("stderr")
        _ = FileManager.default.createFile(atPath: stdoutFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(variables) { $1 }
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutFile)
        process.standardError = try FileHandle(forWritingTo: stderrFile)
        let killed = Mutex(false)
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in continuation.resume(returning: finished.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            if let timeout {
                let pid = process.processIdentifier
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                    guard process.isRunning else { return }
                    killed.withLock { $0 = true }
                    kill(pid, SIGKILL)
                }
            }
        }
        if killed.withLock({ $0 }) {
            throw ToolError(description: "\(program.lastPathComponent) did not exit within \(Int(timeout ?? 0)) s; killed")
        }
        return Output(status: status, stdout: try folder.read("stdout"), stderr: try folder.read("stderr"))
    }
}

/// A program the tests run is missing or failed (the `widgetd` executable, python3).
package struct ToolError: Error, CustomStringConvertible {
    package var description: String

    /// An error that says `description`.
    package init(description: String) {
        self.description = description
    }
}

extension Array where Element == String {
    /// Drops the empty string after a final newline.
    fileprivate func dropLastEmpty() -> [String] {
        last == "" ? Array(dropLast()) : self
    }
}
