import Foundation

/// A reference implementation written by others that a test compares with, such as a Python package
/// (`croniter`, `feedparser`, `jsonschema`).
///
/// Away from CI, a test whose oracle is missing is skipped, with a printed line saying how to install
/// it. Under continuous integration (`CI=true` in the environment) it runs anyway and fails, so that a
/// failed install can never turn a comparison into a silent skip.
///
/// ```swift
/// @Test(.enabled(if: ExternalOracle.pythonModule("croniter").shouldRun, "needs python3 with croniter"))
/// func agreesWithCroniter() throws { … }
/// ```
package struct ExternalOracle: Sendable {
    /// What the oracle is, for messages: `python3 with croniter`.
    package let name: String
    /// Whether it can be used on this machine.
    package let isAvailable: Bool

    /// An oracle named `name`, found or not by the caller; ``pythonModule(_:)`` makes one for a Python module.
    package init(name: String, isAvailable: Bool) {
        self.name = name
        self.isAvailable = isAvailable
    }

    /// Whether missing oracles fail instead of skipping: `CI` is `true` (or `1`) in the environment.
    package static var isRequired: Bool {
        let value = ProcessInfo.processInfo.environment["CI"]?.lowercased()
        return value == "true" || value == "1"
    }

    /// Whether a test that needs this oracle should run: when it is available, and always under CI (where
    /// it then fails for the missing oracle). Prints why a test is skipped.
    package var shouldRun: Bool {
        if !isAvailable {
            if ExternalOracle.isRequired {
                print("\(name) is not available and CI=true: the tests that compare with it fail")
            } else {
                print("\(name) is not available: the tests that compare with it are skipped")
            }
        }
        return isAvailable || ExternalOracle.isRequired
    }

    /// `python3` (the first on `PATH`) that can import `module`.
    package static func pythonModule(_ module: String) -> ExternalOracle {
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
        return ExternalOracle(name: "python3 with \(module) (python3 -m pip install \(module))", isAvailable: available)
    }
}
