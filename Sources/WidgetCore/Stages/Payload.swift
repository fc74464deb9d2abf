public import Foundation

/// The raw result of a fetch: bytes and what the source said about them.
public struct Payload: Sendable, Hashable {
    /// The body.
    public var data: Data
    /// The media type the source declared (`application/json`), without parameters, lowercased.
    public var contentType: String?
    /// The character set the source declared, when any (`utf-8`).
    public var charset: String?
    /// Where the bytes came from, safe to show: a URL without secrets, or a file path.
    public var origin: String
    /// Validators and facts for caching: `etag`, `last-modified`, `status`, `max-age`, `retry-after`.
    public var metadata: [String: String]

    public init(
        data: Data,
        contentType: String? = nil,
        charset: String? = nil,
        origin: String,
        metadata: [String: String] = [:]
    ) {
        self.data = data
        self.contentType = contentType
        self.charset = charset
        self.origin = origin
        self.metadata = metadata
    }

    /// The body as text, decoded with the declared charset (UTF-8 by default, invalid bytes replaced).
    public var text: String {
        switch charset?.lowercased() {
        case "iso-8859-1", "latin1", "latin-1", "windows-1252", "cp1252":
            return String(data: data, encoding: .isoLatin1) ?? String(decoding: data, as: UTF8.self)
        default:
            return String(decoding: data, as: UTF8.self)
        }
    }
}

/// One dated entry of a widget's timeline.
public struct TimelineEntry: Sendable, Hashable {
    /// When a front-end starts showing this entry.
    public var date: Date
    /// What it shows.
    public var content: WidgetValue
    /// How relevant the entry is, for front-ends that rank widgets (WidgetKit's `TimelineEntryRelevance`).
    public var relevance: WidgetNumber?
    /// A deep link opened when the entry is tapped.
    public var url: String?

    public init(date: Date, content: WidgetValue, relevance: WidgetNumber? = nil, url: String? = nil) {
        self.date = date
        self.content = content
        self.relevance = relevance
        self.url = url
    }
}
