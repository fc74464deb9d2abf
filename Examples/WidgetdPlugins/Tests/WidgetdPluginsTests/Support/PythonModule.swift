import Foundation

/// A Python module some tests compare with (`jsonschema`): they run when `python3` can import it, and
/// always under continuous integration (`CI=true`), where a missing module then fails them rather than
/// skipping them.
enum PythonModule {
    /// Whether a test that needs `module` should run; prints why one is skipped.
    static func shouldRun(_ module: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import \(module)"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        var available = false
        do {
            try process.run()
            process.waitUntilExit()
            available = process.terminationStatus == 0
        } catch {}
        let ci = ProcessInfo.processInfo.environment["CI"]?.lowercased()
        let required = ci == "true" || ci == "1"
        if !available {
            print("python3 with \(module) is not available: the tests that compare with it \(required ? "fail (CI=true)" : "are skipped")")
        }
        return available || required
    }
}
