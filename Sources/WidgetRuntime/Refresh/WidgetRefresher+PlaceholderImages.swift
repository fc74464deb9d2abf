import Foundation
import WidgetCore
import WidgetJSON
import WidgetStages

// MARK: - Placeholder images

extension WidgetRefresher {
    /// The image file extensions a placeholder may name beside its definition.
    static let placeholderImageExtensions: Set<String> = ["png", "jpg", "jpeg", "gif", "webp", "avif"]

    /// `placeholder` with its local images brought into `OUT/assets/`, as the `assets` transform brings
    /// downloaded ones: every string that is a relative path (no scheme, no `..`) to an image file
    /// (`png`, `jpg`, `jpeg`, `gif`, `webp`, `avif`) inside the definition's folder is copied to
    /// `assets/<sha256 of the bytes>.<ext>` and replaced by that path, so a placeholder can show a picture
    /// shipped beside its definition (`"image": "data/sample.png"`) with no network. The file is read as
    /// the `file` source reads one: its links resolved and checked to stay inside the definition's folder,
    /// then opened without following any link, and at most the `assets` transform's
    /// `AssetsTransform.defaultMaxBytes`. Without an assets folder (a preview), or when the file cannot be
    /// read or stored, the string stays as written.
    func placeholderWithLocalImages(_ placeholder: WidgetValue, definition: WidgetDefinition) -> WidgetValue {
        guard let directory = assetsDirectory, !definition.file.isEmpty else { return placeholder }
        let base = WidgetRefresher.folder(of: definition.file)
        var replacements: [(path: ValuePath, value: WidgetValue)] = []
        for (location, found) in Self.strings(in: placeholder, at: .root) {
            guard let file = Self.localImage(found, in: base),
                let name = Self.storeLocalImage(
                    file, into: directory,
                    log: { message in
                        log(LogRecord(.warning, "stage", "\(definition.id): \(message)", widget: definition.id))
                    })
            else { continue }
            replacements.append((location, .string("assets/" + name)))
        }
        return replacements.isEmpty ? placeholder : placeholder.replacing(replacements)
    }

    /// Every string in `value`, with where it is.
    static func strings(in value: WidgetValue, at path: ValuePath) -> [(path: ValuePath, text: String)] {
        switch value {
        case .string(let text): [(path, text)]
        case .array(let items): items.enumerated().flatMap { strings(in: $1, at: path.appending(index: $0)) }
        case .object(let object): object.flatMap { strings(in: $0.value, at: path.appending($0.key)) }
        default: []
        }
    }

    /// The file `text` names inside `base`, when it is a relative path to an image there: its real path,
    /// with links resolved, inside `base` (a link that leads out of the folder is not followed).
    static func localImage(_ text: String, in base: URL) -> String? {
        guard !text.isEmpty, !text.hasPrefix("/"), !text.contains(":"), !text.contains("\\"),
            !text.split(separator: "/").contains(".."),
            let dot = text.lastIndex(of: "."),
            placeholderImageExtensions.contains(text[text.index(after: dot)...].lowercased()),
            let real = RegularFile.canonicalPath(base.appendingPathComponent(text).path),
            FileAccessPolicy.isInside(URL(fileURLWithPath: real), anyOf: [base])
        else { return nil }
        return real
    }

    /// Copies the file at the real path `path` into `directory` as `<sha256>.<ext>` (once); its name
    /// there, or `nil` (logged).
    static func storeLocalImage(_ path: String, into directory: URL, log: (String) -> Void) -> String? {
        let file = URL(fileURLWithPath: path)
        let bytes: Data
        do {
            bytes = try RegularFile.readWithoutLinks(path, maxBytes: AssetsTransform.defaultMaxBytes)
        } catch {
            log("placeholder: \(file.lastPathComponent) could not be read (\(error)); it keeps its path")
            return nil
        }
        let ext = file.pathExtension.lowercased() == "jpeg" ? "jpg" : file.pathExtension.lowercased()
        let name = SHA256.hexDigest(of: bytes) + "." + ext
        let destination = directory.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: destination.path) { return name }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try AtomicFile.write(bytes, to: destination)
        } catch {
            log("placeholder: \(file.lastPathComponent) could not be stored as \(name): \(error); it keeps its path")
            return nil
        }
        return name
    }
}
