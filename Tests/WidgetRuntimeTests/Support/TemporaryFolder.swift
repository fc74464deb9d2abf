import Foundation

/// A fresh folder under the system's temporary folder, deleted when the value is released.
final class TemporaryFolder: Sendable {
    let url: URL

    init(_ prefix: String = "widgetd-tests") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    var path: String { url.path }

    /// The URL of `name` inside the folder.
    func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    /// Creates `name` (and its folders) with `text`, replacing it if it exists.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> URL {
        let target = file(name)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: target)
        return target
    }

    /// The text of `name`.
    func read(_ name: String) throws -> String {
        try String(contentsOf: file(name), encoding: .utf8)
    }

    /// The names directly inside the folder (or inside `subfolder`), sorted.
    func names(in subfolder: String? = nil) -> [String] {
        let folder = subfolder.map { file($0) } ?? url
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }
}
