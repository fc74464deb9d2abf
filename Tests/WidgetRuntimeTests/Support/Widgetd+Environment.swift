import Foundation

extension Widgetd {
    /// Runs `widgetd arguments` in `directory` with `environment` added to the test process's own
    /// environment, and waits for it to exit.
    static func run(_ arguments: [String], in directory: URL, environment: [String: String]) async throws -> Output {
        let folder = try TemporaryFolder("widgetd-output")
        let stdoutFile = folder.file("stdout")
        let stderrFile = folder.file("stderr")
        _ = FileManager.default.createFile(atPath: stdoutFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutFile)
        process.standardError = try FileHandle(forWritingTo: stderrFile)
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in continuation.resume(returning: finished.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return Output(status: status, stdout: try folder.read("stdout"), stderr: try folder.read("stderr"))
    }
}
