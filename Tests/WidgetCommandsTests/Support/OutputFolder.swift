import Foundation
import Testing
import WidgetCore
import WidgetJSON

/// Reads what `widgetd run` wrote into an output folder.
enum OutputFolder {
    /// Every regular file under `folder`, hidden ones (`.state/…`) included, as paths relative to it, sorted.
    static func files(in folder: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var files: [String] = []
        while let name = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files.append(name)
            }
        }
        return files.sorted()
    }

    /// The `.json` files of `folder` (snapshots and the index) and of its `.state` folder that do not parse
    /// as JSON, each with the reason.
    static func unreadableJSON(in folder: URL) -> [String] {
        files(in: folder).filter { $0.hasSuffix(".json") }.compactMap { name in
            do {
                _ = try JSONReader.read(try Data(contentsOf: folder.appendingPathComponent(name)))
                return nil
            } catch {
                return "\(name): \(error)"
            }
        }
    }

    /// The snapshot `OUT/<id>.json`.
    static func snapshot(_ id: String, in folder: URL) throws -> WidgetValue {
        try JSONReader.read(try Data(contentsOf: folder.appendingPathComponent("\(id).json")))
    }
}
