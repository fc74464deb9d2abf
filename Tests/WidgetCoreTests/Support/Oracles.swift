import Foundation

/// Files of the package and of the conformance suites kept beside it in `../shared/oracles`.
enum Oracles {
    /// The package's root folder.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A file or folder of `../shared/oracles/`, e.g. `jsonpath-cts/cts.json`.
    static func url(_ relativePath: String) -> URL {
        packageRoot.deletingLastPathComponent().appendingPathComponent("shared/oracles/\(relativePath)")
    }
}
