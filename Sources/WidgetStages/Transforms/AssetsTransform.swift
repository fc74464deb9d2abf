import Foundation
public import WidgetCore
public import WidgetJSON

/// Downloads the images a value points to into `OUT/assets/` and rewrites the URLs to the local files:
/// `{"type": "assets", "path": "$.items[*].image"}`.
///
/// Front-ends never touch the network; this transform brings images home. For every string the JSONPath
/// `path` finds that is an `http(s)` URL:
/// - the image is downloaded with the runtime's shared HTTP client, at most `concurrency` at once
///   (default 4), and at most `maxBytes` each (default 5 MiB);
/// - the answer must be a success with an `image/*` content type;
/// - it is stored once, by content, as `assets/<sha256 of the bytes>.<ext>` (written to a temporary file,
///   then renamed, so a front-end never sees half an image), and the value becomes `assets/<file>`, a
///   path relative to the output folder. The same image used twice, or by two widgets, is stored once.
///
/// An image that fails (not found, too big, not an image, unreachable) keeps its remote URL, the failure
/// is logged, and the transform still succeeds. ``OriginRewrites`` among the resources (`--rewrite-origin`)
/// apply to the downloads too; the value keeps the URL as written when a download fails. In a preview (no output folder) nothing is downloaded.
/// Assets no snapshot references any more are removed by ``AssetGarbageCollector``.
public struct AssetsTransform: Transformer {
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// A JSONPath to the image URLs, e.g. `$.items[*].image` or `$[*].thumbnail`.
        public var path: JSONPath
        /// The largest image accepted, in bytes.
        public var maxBytes: Int
        /// How many images are downloaded at once.
        public var concurrency: Int

        public enum CodingKeys: String, DescribedKey {
            case path, maxBytes, concurrency

            public var keyDescription: KeyDescription {
                switch self {
                case .path: KeyDescription("A JSONPath to the image URLs, e.g. $.items[*].image.", .jsonPath, required: true)
                case .maxBytes:
                    KeyDescription(
                        "The largest image accepted, in bytes.", .integer(minimum: 1),
                        default: .number(WidgetNumber(AssetsTransform.defaultMaxBytes)))
                case .concurrency:
                    KeyDescription(
                        "How many images are downloaded at once.",
                        .integer(minimum: 1, maximum: AssetsTransform.maximumConcurrency),
                        default: .number(WidgetNumber(AssetsTransform.defaultConcurrency))
                    )
                }
            }
        }
    }

    public static let typeName = "assets"
    public static let summary = "Downloads images into OUT/assets and rewrites their URLs to local paths."

    /// The default ``maxBytes``: 5 MiB.
    public static let defaultMaxBytes = 5 * 1024 * 1024
    /// The default ``concurrency``.
    public static let defaultConcurrency = 4
    /// The largest ``concurrency``.
    public static let maximumConcurrency = 32

    /// The JSONPath to the image URLs; strings it finds that are not `http(s)` URLs are left alone.
    public let path: JSONPath
    /// The largest image accepted, in bytes; a larger one keeps its remote URL.
    public let maxBytes: Int
    /// How many images are downloaded at once, from 1 to ``maximumConcurrency``.
    public let concurrency: Int

    /// Takes the options as the decoder checked them.
    public init(options: Options) throws {
        path = options.path
        maxBytes = options.maxBytes
        concurrency = options.concurrency
    }

    public func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue {
        guard let directory = context.assetsDirectory else { return value }
        var targets: [(path: ValuePath, url: URL)] = []
        for (location, found) in path.locate(value) {
            guard case .string(let text) = found, text.hasPrefix("http://") || text.hasPrefix("https://"),
                let url = URL(string: text)
            else { continue }
            targets.append((location, url))
        }
        guard !targets.isEmpty else { return value }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            context.log(
                "assets: cannot create the folder \(directory.lastPathComponent): \(error.localizedDescription); images keep their URLs")
            return value
        }
        let http = context.http
        let unique = Array(Set(targets.map(\.url)))
        var stored: [URL: String] = [:]
        let maxBytes = self.maxBytes
        let log = context.log
        await withTaskGroup(of: (URL, String?).self) { group in
            var next = 0
            func addNext() {
                guard next < unique.count else { return }
                let url = unique[next]
                next += 1
                let source = http.destination(of: url)
                group.addTask {
                    (url, await Self.download(source, into: directory, client: http.client, maxBytes: maxBytes, log: log))
                }
            }
            for _ in 0..<min(concurrency, unique.count) { addNext() }
            while let (url, file) = await group.next() {
                if let file { stored[url] = file }
                addNext()
            }
        }
        return value.replacing(
            targets.compactMap { target in
                stored[target.url].map { (target.path, .string("assets/" + $0)) }
            })
    }

    /// Downloads one image and stores it; the stored file's name, or `nil` (logged) when it failed.
    static func download(
        _ url: URL, into directory: URL, client: HTTPClient, maxBytes: Int, log: @Sendable (String) -> Void
    ) async -> String? {
        let shown = url.host.map { "\($0)\(url.path)" } ?? url.absoluteString
        let response: HTTPResponse
        do {
            response = try await client.send(HTTPRequest(url: url, headers: ["Accept": "image/*"], maxBytes: maxBytes))
        } catch {
            log("assets: \(shown) was not downloaded: \(error.message); it keeps its URL")
            return nil
        }
        guard response.isSuccess else {
            log("assets: \(shown) answered \(response.status); it keeps its URL")
            return nil
        }
        guard let type = response.contentType, type.hasPrefix("image/") else {
            log("assets: \(shown) is not an image (\(response.contentType ?? "no content type")); it keeps its URL")
            return nil
        }
        let name = SHA256.hexDigest(of: response.body) + "." + fileExtension(for: type)
        let destination = directory.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: destination.path) { return name }
        do {
            try writeAtomically(response.body, to: destination)
        } catch {
            log("assets: \(shown) could not be stored as \(name): \(error.localizedDescription); it keeps its URL")
            return nil
        }
        return name
    }

    /// The file extension for an image media type (`image/jpeg` → `jpg`).
    public static func fileExtension(for contentType: String) -> String {
        switch contentType.lowercased() {
        case "image/jpeg", "image/jpg", "image/pjpeg": return "jpg"
        case "image/png": return "png"
        case "image/gif": return "gif"
        case "image/webp": return "webp"
        case "image/svg+xml": return "svg"
        case "image/avif": return "avif"
        case "image/heic": return "heic"
        case "image/bmp": return "bmp"
        case "image/x-icon", "image/vnd.microsoft.icon": return "ico"
        case "image/tiff": return "tiff"
        default:
            let subtype = contentType.split(separator: "/").last.map(String.init) ?? "img"
            let safe = subtype.filter { $0.isLetter || $0.isNumber }
            return safe.isEmpty ? "img" : String(safe.prefix(8)).lowercased()
        }
    }

    /// Writes `data` to a temporary file beside `destination`, then renames it into place.
    static func writeAtomically(_ data: Data, to destination: URL) throws {
        let temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).tmp")
        try data.write(to: temporary)
        do {
            if rename(temporary.path, destination.path) != 0 {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path])
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }
}
