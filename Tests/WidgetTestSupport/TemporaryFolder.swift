package import Foundation

/// A fresh folder under the system's temporary folder, deleted when the value is released.
package final class TemporaryFolder: Sendable {
    package let url: URL

    package init(_ prefix: String = "widgetd-tests") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    package var path: String { url.path }

    /// The URL of `name` inside the folder.
    package func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    /// Creates `name` (and its folders) with `text`, replacing it if it exists.
    @discardableResult
    package func write(_ name: String, _ text: String) throws -> URL {
        let target = file(name)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: target)
        return target
    }

    /// The text of `name`.
    package func read(_ name: String) throws -> String {
        try String(contentsOf: file(name), encoding: .utf8)
    }

    /// The names directly inside the folder (or inside `subfolder`), sorted.
    package func names(in subfolder: String? = nil) -> [String] {
        let folder = subfolder.map { file($0) } ?? url
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }
}
