public import Foundation

/// The metadata of each kind of object the daemon writes: its `Content-Type`, how long a CDN or a
/// browser may keep it (`Cache-Control`), and what a crash may cost.
///
/// | object | Content-Type | Cache-Control |
/// |---|---|---|
/// | `<id>.json`, `<id>.html` | `application/json`, `text/html; charset=utf-8` | `public, max-age=N`, N from ``snapshotMaxAge(of:)`` |
/// | `index.json`, `index.html` | the same | `public, max-age=5` (``listingMaxAge``) |
/// | `widgetd.prom` | `text/plain; version=0.0.4` | `public, max-age=5` |
/// | `assets/<sha256>.<ext>` | by extension (``assetContentType(of:)``) | `public, max-age=31536000, immutable` |
/// | `.state/…` | `application/json` | `no-store` |
extension OutputObject {
    /// `application/json`.
    public static let jsonType = "application/json"
    /// `text/html; charset=utf-8`.
    public static let htmlType = "text/html; charset=utf-8"
    /// `text/plain; version=0.0.4`, the Prometheus text format.
    public static let metricsType = "text/plain; version=0.0.4"

    /// How long the index, the gallery and the metrics may be kept, in seconds: they change with every
    /// widget's refresh, so only briefly.
    public static let listingMaxAge = 5
    /// How long a snapshot or a page may be kept when nothing says when it next changes (no next refresh
    /// and no entry to come), in seconds.
    public static let defaultSnapshotMaxAge = 60
    /// How long an asset may be kept: a year (its name is the hash of its bytes, so it never changes).
    public static let assetMaxAge = 31_536_000

    /// The seconds from `snapshot`'s generation until it can next change: the earlier of its next
    /// refresh and the date of its first entry after the generation (a front-end switches to that entry,
    /// and the gallery's page with it), rounded down, never below 0. A `refreshing` snapshot stands only
    /// until its refresh ends: 0. Neither known: ``defaultSnapshotMaxAge``.
    public static func snapshotMaxAge(of snapshot: Snapshot) -> Int {
        if snapshot.status == .refreshing { return 0 }
        let generated = snapshot.generatedAt
        let nextEntry = snapshot.entries.lazy.map(\.date).filter { $0 > generated }.min()
        let changes = [snapshot.nextRefreshAt, nextEntry].compactMap { $0 }.min()
        guard let changes else { return defaultSnapshotMaxAge }
        let seconds = changes.timeIntervalSince(generated).rounded(.down)
        return seconds.isFinite ? Int(max(0, min(seconds, Double(assetMaxAge)))) : defaultSnapshotMaxAge
    }

    /// A widget's snapshot, `<id>.json`: durable, cached until it can next change.
    public static func snapshot(_ snapshot: Snapshot) -> OutputObject {
        OutputObject(contentType: jsonType, cacheControl: "public, max-age=\(snapshotMaxAge(of: snapshot))")
    }

    /// A widget's page, `<id>.html`: made again from the snapshot (rebuildable, flushed with the
    /// wave), cached as long as the snapshot.
    public static func page(of snapshot: Snapshot) -> OutputObject {
        OutputObject(
            contentType: htmlType, cacheControl: "public, max-age=\(snapshotMaxAge(of: snapshot))", durability: .rebuildable,
            flush: .later)
    }

    /// `index.json`, `index.html` or `widgetd.prom`: cached for ``listingMaxAge`` seconds.
    public static func listing(contentType: String) -> OutputObject {
        OutputObject(contentType: contentType, cacheControl: "public, max-age=\(listingMaxAge)")
    }

    /// What is under `.state/`: never cached.
    public static let state = OutputObject(contentType: jsonType, cacheControl: "no-store")

    /// A content-addressed asset, `assets/<sha256>.<ext>`: cached for a year and never revalidated.
    public static func asset(named name: String) -> OutputObject {
        OutputObject(contentType: assetContentType(of: name), cacheControl: "public, max-age=\(assetMaxAge), immutable")
    }

    /// The content type of an asset by its extension (`png` → `image/png`); `application/octet-stream`
    /// for one not known.
    public static func assetContentType(of name: String) -> String {
        let ext = name.split(separator: ".").count > 1 ? name.split(separator: ".").last.map { $0.lowercased() } ?? "" : ""
        switch ext {
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "avif": return "image/avif"
        case "svg": return "image/svg+xml"
        case "heic": return "image/heic"
        case "bmp": return "image/bmp"
        case "ico": return "image/x-icon"
        case "tiff", "tif": return "image/tiff"
        case "json": return jsonType
        default: return "application/octet-stream"
        }
    }
}
