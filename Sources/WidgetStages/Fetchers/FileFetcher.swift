public import Foundation
public import WidgetCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a local file: `"source": {"path": "data/artworks.json"}`.
///
/// A relative path starts at the folder of the widget's definition. The file is read whole, up to
/// `maxBytes`; its content type is guessed from the extension.
public struct FileFetcher: Fetcher {
    public struct Options: Decodable, Sendable {
        /// The file, absolute or relative to the definition's folder.
        public var path: String
        /// The largest file accepted, in bytes (default 10 MiB).
        public var maxBytes: Int?
    }

    public static let typeName = "file"
    public static let summary = "Reads a local file; a relative path starts at the definition's folder."

    public let path: String
    public let maxBytes: Int

    public init(options: Options) throws {
        guard !options.path.isEmpty else { throw StageError("\"path\" is empty; name a file such as \"data/sample.json\"", option: "path") }
        path = options.path
        maxBytes = options.maxBytes ?? 10 * 1_048_576
        guard maxBytes > 0 else { throw StageError("\"maxBytes\" must be above 0", option: "maxBytes") }
    }

    public func fetch(context: StageContext) async throws -> Payload {
        let url: URL
        if path.hasPrefix("/") {
            url = URL(fileURLWithPath: path)
        } else if let base = context.baseDirectory {
            url = base.appendingPathComponent(path)
        } else {
            url = URL(fileURLWithPath: path)
        }
        if let base = context.baseDirectory {
            let allowed = [base] + (context.resources[FileAccessPolicy.self]?.allowedFolders ?? [])
            guard FileAccessPolicy.isInside(url, anyOf: allowed) else {
                throw StageError(
                    "the file \(path) is outside the definition's folder; move it there or allow its folder with --allow-path"
                )
            }
        }
        let data = try Self.readRegularFile(url.path, named: path, maxBytes: maxBytes)
        return Payload(data: data, contentType: Self.contentType(forExtension: url.pathExtension), origin: path)
    }

    /// Reads up to `maxBytes` of the regular file at `filePath`, in chunks, stopping when the refresh is
    /// cancelled. A FIFO, a device, a socket or a folder is refused before reading: opening is
    /// non-blocking, so a FIFO with no writer cannot hold the refresh.
    static func readRegularFile(_ filePath: String, named path: String, maxBytes: Int) throws -> Data {
        let descriptor = open(filePath, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else {
            let reason = errno == ENOENT ? "no such file" : String(cString: strerror(errno)).lowercased()
            throw StageError("the file \(path) cannot be opened: \(reason); check that it exists and is readable")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw StageError("the file \(path) cannot be read: \(String(cString: strerror(errno)).lowercased())")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            let kind: String
            switch status.st_mode & S_IFMT {
            case S_IFDIR: kind = "a folder"
            case S_IFIFO: kind = "a FIFO"
            case S_IFSOCK: kind = "a socket"
            case S_IFCHR, S_IFBLK: kind = "a device"
            default: kind = "not a regular file"
            }
            throw StageError("the file \(path) is \(kind), not a regular file; point \"path\" at a file")
        }
        if Int(status.st_size) > maxBytes {
            throw StageError("the file \(path) is larger than the \(maxBytes)-byte limit; raise \"maxBytes\" if it is expected")
        }
        var data = Data(capacity: Int(status.st_size))
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            if Task.isCancelled { throw CancellationError() }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StageError("the file \(path) cannot be read: \(String(cString: strerror(errno)).lowercased())")
            }
            if count == 0 { break }
            data.append(contentsOf: chunk[0..<count])
            // The file may have grown since it was measured.
            if data.count > maxBytes {
                throw StageError("the file \(path) is larger than the \(maxBytes)-byte limit; raise \"maxBytes\" if it is expected")
            }
        }
        return data
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
    public var allowedFolders: [URL]

    public init(allowedFolders: [URL]) {
        self.allowedFolders = allowedFolders
    }

    /// Whether `file`, with symbolic links and `..` resolved, lies inside one of `folders`.
    public static func isInside(_ file: URL, anyOf folders: [URL]) -> Bool {
        let target = file.standardizedFileURL.resolvingSymlinksInPath().path
        return folders.contains { folder in
            let root = folder.standardizedFileURL.resolvingSymlinksInPath().path
            return target == root || target.hasPrefix(root.hasSuffix("/") ? root : root + "/")
        }
    }
}
