package import Foundation

/// Files of the package, and the conformance suites written by others that it keeps in
/// `Tests/Fixtures/oracles/` (each folder with its upstream LICENSE and the commit in VERSION).
package enum Oracles {
    /// The package's root folder.
    package static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A file or folder of `Tests/Fixtures/oracles/`, e.g. `jsonpath-cts/cts.json`.
    package static func url(_ relativePath: String) -> URL {
        packageRoot.appendingPathComponent("Tests/Fixtures/oracles/\(relativePath)")
    }
}
