import Foundation
public import WidgetCore
public import WidgetJSON

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Parses RSS 0.9x, RSS 1.0 (RDF), RSS 2.0, Atom 0.3/1.0 and JSON Feed 1.0/1.1 into one shape:
/// `"parser": "feed"`.
///
/// The format is detected from the content. The result is a feed object
/// `{format, title, link, description, updated, items}` whose items are
/// `{id, title, link, published, updated, author, summary, content, image, categories, enclosures}`
/// (see ``FeedDocument``):
/// - Dates are ISO 8601 instants in UTC, read by `InternetDate` (RFC 822 in its variants, RFC 3339).
/// - `title` and `author` have their HTML entities decoded (also inside CDATA); `summary` is plain text,
///   markup removed; `content` is the item's HTML as given (`content:encoded`, Atom `content`,
///   `content_html`).
/// - Links are absolute: resolved against `xml:base`, the document's URL or the feed's link.
/// - `author` is the Atom author's name, or RSS `author`, `dc:creator` or `itunes:author`.
/// - `image` is `media:thumbnail`, an image `media:content`, `itunes:image`, an image enclosure, or the
///   first `<img>` of the content; `enclosures` lists RSS enclosures, Atom `rel="enclosure"` links,
///   `media:content` and JSON Feed attachments.
/// - `id` is the RSS guid, Atom id, RSS 1.0 `rdf:about` or JSON Feed id; `null` when the feed gives none
///   (use `link` then).
/// - `published` is `pubDate`, Atom `published` (0.3: `issued`), `dc:date` or `dcterms:issued`; `updated`
///   is Atom `updated` (0.3: `modified`) or `dcterms:modified`. A date without a zone is read as UTC.
///
/// XML is read in one streaming pass (memory grows with the items kept, not the document). Broken feeds
/// are read as far as possible: undeclared HTML entities and bare `&` are repaired, Windows-1252 bytes in
/// a document declared as UTF-8 are read as such, and a truncated document yields the items before the
/// break.
///
/// ```json
/// {"source": {"url": "https://www.artsy.net/rss/news"}, "parser": "feed",
///  "transforms": [{"type": "select", "path": "$.items[:5]"}]}
/// ```
public struct FeedParser: Parser {
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// None: the parser takes no options.
        public enum CodingKeys: DescribedKey {
            public var keyDescription: KeyDescription { switch self {} }
        }
    }

    public static let typeName = "feed"
    public static let summary = "Parses RSS, Atom and JSON Feed into one item shape."

    public init(options: Options) {}

    /// A feed parser; it has no options.
    public init() {}

    public func parse(_ payload: Payload, context: StageContext) throws -> WidgetValue {
        try read(payload).value
    }

    /// Reads `payload` into a ``FeedDocument``.
    ///
    /// - Throws: A `StageError` when the payload is no feed at all (an HTML page, JSON that is not a JSON
    ///   Feed, XML whose root is not `rss`, `rdf:RDF` or `feed`).
    public func read(_ payload: Payload) throws -> FeedDocument {
        var data = payload.data
        guard
            let first = data.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF }
            )
        else {
            throw StageError("the feed from \(payload.origin) is empty")
        }
        let limits = payload.valueLimits
        if first == UInt8(ascii: "{") {
            return try JSONFeedReader.read(data, origin: payload.origin, limits: limits)
        }
        guard first == UInt8(ascii: "<") else {
            throw StageError(
                "the payload from \(payload.origin) is not a feed: it starts with neither \"<\" (RSS, Atom) nor \"{\" (JSON Feed)")
        }
        let documentURL = payload.origin.hasPrefix("http") ? URL(string: payload.origin) : nil
        // A document that is not UTF-8 is converted first (XMLParser traps on some invalid sequences). A
        // clean document is then read once; a broken one again after repairs.
        if let transcoded = FeedInputRepair.transcodeToUTF8(data) {
            data = transcoded
        }
        if let entity = XMLInputGuard.declaredEntity(in: data) { throw XMLInputGuard.entityError(entity, origin: payload.origin) }
        var outcome = try Self.readXML(data, documentURL: documentURL, limits: limits, origin: payload.origin)
        if outcome.error != nil, let repaired = FeedInputRepair.repairMarkup(data) {
            outcome = try Self.readXML(repaired, documentURL: documentURL, limits: limits, origin: payload.origin)
        }
        var reader = outcome.reader.state
        guard reader.sawFeedRoot else {
            if payload.contentType == "text/html" || data.prefix(512).range(of: Data("<html".utf8)) != nil
                || data.prefix(512).range(of: Data("<!DOCTYPE html".utf8)) != nil
            {
                throw StageError(
                    "\(payload.origin) sent an HTML page (\(payload.contentType ?? "no content type")) where a feed was expected")
            }
            let reason = outcome.error.map { ": \($0)" } ?? ""
            throw StageError("the payload from \(payload.origin) is not an RSS, Atom or JSON feed\(reason)")
        }
        if let error = outcome.error, reader.document.items.isEmpty, reader.document.title == nil {
            throw StageError("the feed from \(payload.origin) is not well-formed XML: \(error)")
        }
        reader.finishTruncated()
        return reader.document
    }

    /// - Throws: A `StageError` when the document passes one of `limits`.
    private static func readXML(
        _ data: Data, documentURL: URL?, limits: ValueLimits, origin: String
    ) throws -> (reader: FeedXMLReader, error: String?) {
        let reader = FeedXMLReader(documentURL: documentURL, limits: limits)
        let parser = XMLParser(data: XMLInputGuard.sanitized(data))
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        let parsed = parser.parse()
        if let limit = reader.exceededLimit {
            throw StageError(
                limits.message(
                    for: limit, what: "the feed from \(origin)",
                    at: SourceLocation(line: parser.lineNumber, column: parser.columnNumber)))
        }
        if parsed { return (reader, nil) }
        let message = parser.parserError.map { "\($0.localizedDescription)" } ?? "unknown error"
        return (reader, "line \(parser.lineNumber), column \(parser.columnNumber): \(message)")
    }
}
