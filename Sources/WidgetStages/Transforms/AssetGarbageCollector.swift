public import Foundation
import WidgetCore
public import WidgetJSON

/// Deletes downloaded assets that no snapshot refers to any more.
///
/// ``AssetsTransform`` stores images as `OUT/assets/<sha256>.<ext>` and shares them between widgets, so an
/// image can only be removed once no snapshot mentions it. The runtime calls ``collect(in:referencedBy:)``
/// after each refresh cycle with every snapshot it serves.
///
/// ```swift
/// let removed = AssetGarbageCollector.collect(in: out.appendingPathComponent("assets"), referencedBy: snapshots)
/// ```
public enum AssetGarbageCollector {
    /// Deletes the files in `assetsDirectory` that no string `assets/<name>` inside `snapshotValues`
    /// names, and returns the deleted names (sorted). Temporary files younger than a minute (a download
    /// being stored) are kept. A missing folder deletes nothing.
    @discardableResult
    public static func collect(in assetsDirectory: URL, referencedBy snapshotValues: [WidgetValue]) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: assetsDirectory.path) else { return [] }
        var referenced = Set<String>()
        for value in snapshotValues { gather(value, into: &referenced) }
        var deleted: [String] = []
        for name in names.sorted() where !referenced.contains(name) {
            let file = assetsDirectory.appendingPathComponent(name)
            if name.hasPrefix("."), name.hasSuffix(".tmp") {
                let modified = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.modificationDate] as? Date
                if let modified, Date().timeIntervalSince(modified) < 60 { continue }
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            if (try? FileManager.default.removeItem(at: file)) != nil { deleted.append(name) }
        }
        return deleted
    }

    /// Adds the file name of every `assets/<name>` string in `value`.
    private static func gather(_ value: WidgetValue, into names: inout Set<String>) {
        switch value {
        case .string(let text):
            if let range = text.range(of: "assets/") {
                let name = text[range.upperBound...].prefix { $0 != "/" && $0 != "\"" && $0 != "?" && $0 != "#" }
                if !name.isEmpty { names.insert(String(name)) }
            }
        case .array(let items):
            for item in items { gather(item, into: &names) }
        case .object(let object):
            for (_, member) in object { gather(member, into: &names) }
        default:
            break
        }
    }
}
