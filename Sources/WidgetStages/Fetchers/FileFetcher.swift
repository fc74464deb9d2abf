public import Foundation
public import WidgetCore
import WidgetJSON

/// Reads a local file: `"source": {"path": "data/artworks.json"}`.
///
/// A relative path starts at the folder of the widget's definition. The file is read whole, up to
/// `maxBytes`; its content type is guessed from the extension.
public struct FileFetcher: Fetcher {
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// The file, absolute or relative to the definition's folder.
        public var path: String
        /// The largest file accepted, in bytes.
        public var maxBytes: Int

        public enum CodingKeys: String, DescribedKey {
            case path, maxBytes

            public var keyDescription: KeyDescription {
                switch self {
                case .path:
                    KeyDescription("The file, absolute or relative to the definition's folder.", .string(pattern: "."), required: true)
                case .maxBytes:
                    KeyDescription(
                        "The largest file accepted, in bytes.", .integer(minimum: 1),
                        default: .number(WidgetNumber(FileFetcher.defaultMaxBytes)))
                }
            }
        }
    }

    /// The default ``maxBytes``: 10 MiB.
    public static let defaultMaxBytes = 10 * 1_048_576

    public static let typeName = "file"
    public static let summary = "Reads a local file; a relative path starts at the definition's folder."

    /// The file to read, as written in the definition: absolute, or relative to the definition's folder.
    public let path: String
    /// The largest file accepted, in bytes; a larger file fails the fetch.
    public let maxBytes: Int

    public init(options: Options) throws {
        guard !options.path.isEmpty else {
            throw StageError("\"path\" is empty; name a file such as \"data/sample.json\"", option: Options.CodingKeys.path)
        }
        path = options.path
        maxBytes = options.maxBytes
    }

    public func fetch(context: StageContext) async throws -> Payload {
        // The path is resolved once, checked, and then opened component by component without following
        // any link, so a file or folder swapped for a link after the check is refused, not read.
        guard let (url, real) = FileAccessPolicy.confine(path, context: context) else {
            throw StageError(
                "the file \(path) is outside the definition's folder; move it there or allow its folder with --allow-path"
            )
        }
        let data = try Self.readRegularFile(real ?? url.path, named: path, maxBytes: maxBytes)
        return Payload(data: data, contentType: Self.contentType(forExtension: url.pathExtension), origin: path, maxBytes: maxBytes)
    }

    /// Reads up to `maxBytes` of the regular file at `filePath` following no symbolic link (see
    /// ``RegularFile/readWithoutLinks(_:maxBytes:)``), with errors that name the definition's `path` and
    /// the option to change.
    static func readRegularFile(_ filePath: String, named path: String, maxBytes: Int) throws -> Data {
        do {
            let absolute = filePath.hasPrefix("/") ? filePath : FileManager.default.currentDirectoryPath + "/" + filePath
            return try RegularFile.readWithoutLinks(absolute, maxBytes: maxBytes)
        } catch let failure as RegularFile.Failure {
            switch failure {
            case .cannotOpen(let reason):
                throw StageError("the file \(path) cannot be opened: \(reason); check that it exists and is readable")
            case .cannotRead(let reason):
                throw StageError("the file \(path) cannot be read: \(reason)")
            case .notRegular(let kind):
                throw StageError("the file \(path) is \(kind), not a regular file; point \"path\" at a file")
            case .symbolicLink(let link):
                throw StageError(
                    "the file \(path) changed while it was read: \(link) became a symbolic link; path sources follow no link once checked, so keep the file in place"
                )
            case .tooLarge(let limit):
                throw StageError("the file \(path) is larger than the \(limit)-byte limit; raise \"maxBytes\" if it is expected")
            }
        }
    }

    /// The media type for a file extension, or `nil`.
    public static func contentType(forExtension ext: String) -> String? {
        switch ext.lowercased() {
        case "json": "application/json"
        case "xml": "application/xml"
        case "rss": "application/rss+xml"
        case "atom": "application/atom+xml"
        case "txt", "text": "text/plain"
        case "html", "htm": "text/html"
        default: nil
        }
    }
}

/// Folders that `path` sources may read besides their definition's folder (`widgetd run --allow-path`).
public struct FileAccessPolicy: Sendable, Hashable {
    /// The extra folders a relative or absolute `path` may point into; their subfolders are included.
    public var allowedFolders: [URL]

    /// A policy that also allows files inside `allowedFolders`.
    public init(allowedFolders: [URL]) {
        self.allowedFolders = allowedFolders
    }

    /// Where a stage's local `path` is: relative to the definition's folder unless absolute, with its
    /// links and `..` resolved (`real`, `nil` when it does not exist). `nil` when it lies outside that folder
    /// and every folder of the context's policy (`--allow-path`); without a definition's folder nothing is
    /// confined.
    static func confine(_ path: String, context: StageContext) -> (url: URL, real: String?)? {
        let url: URL
        if path.hasPrefix("/") {
            url = URL(fileURLWithPath: path)
        } else if let base = context.baseDirectory {
            url = base.appendingPathComponent(path)
        } else {
            url = URL(fileURLWithPath: path)
        }
        let real = RegularFile.canonicalPath(url.path)
        if let base = context.baseDirectory {
            let allowed = [base] + (context.resources[FileAccessPolicy.self]?.allowedFolders ?? [])
            guard isInside(real.map { URL(fileURLWithPath: $0) } ?? url, anyOf: allowed) else { return nil }
        }
        return (url, real)
    }

    /// Whether `file`, with symbolic links and `..` resolved, lies inside one of `folders`.
    ///
    /// Paths are resolved with `realpath(3)` where they exist (so `/tmp` and `/private/tmp` on macOS
    /// compare as the system sees them), and only made standard where they do not.
    public static func isInside(_ file: URL, anyOf folders: [URL]) -> Bool {
        func resolved(_ url: URL) -> String {
            RegularFile.canonicalPath(url.path) ?? url.standardizedFileURL.resolvingSymlinksInPath().path
        }
        let target = resolved(file)
        return folders.contains { folder in
            let root = resolved(folder)
            return target == root || target.hasPrefix(root.hasSuffix("/") ? root : root + "/")
        }
    }
}
