public import Foundation
public import WidgetJSON

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
    /// The HTTP status the body came with; nil for sources that are not HTTP.
    public var status: Int?
    /// What to ask with next time whether the data changed (see ``FetchValidators``).
    public var validators: FetchValidators
    /// Whether the source answered "not modified" to the validators it was given: there is no body, and
    /// the last parsed value stands.
    public var notModified: Bool
    /// How long the source says its answer stays fresh (HTTP's `Cache-Control: max-age` less `Age`), in
    /// seconds: the next fetch waits at least that long.
    public var maxAge: Double?
    /// The request as `preview --trace` shows it, with every secret masked:
    /// `GET https://api.example.com/v1/items?q=berlin&key=***`; nil when the source does not say.
    public var request: String?
    /// The body cap the source applied (its `maxBytes`), from which the limits on the value parsed from
    /// the payload scale (`ValueLimits`); nil when the source has none, and the default applies.
    public var maxBytes: Int?
    /// For a source that read several pages, one line for each, secrets masked
    /// (`page 2: GET https://…&page=2, 200, 5120 bytes, 30 items`); empty for a single request.
    public var pages: [String] = []
    /// What a fetch that succeeded still has to say, secrets masked (`more pages existed after page 10: …`):
    /// the pipeline adds each to the refresh's warnings.
    public var warnings: [String] = []

    /// The limits a parser keeps to when it reads this payload: scaled from ``maxBytes``.
    public var valueLimits: ValueLimits { ValueLimits(bodyCap: maxBytes) }

    /// Creates a payload from its parts; by default a body with no declared type, charset, status,
    /// validators, `max-age`, request or body cap.
    public init(
        data: Data,
        contentType: String? = nil,
        charset: String? = nil,
        origin: String,
        status: Int? = nil,
        validators: FetchValidators = FetchValidators(),
        notModified: Bool = false,
        maxAge: Double? = nil,
        request: String? = nil,
        maxBytes: Int? = nil
    ) {
        self.data = data
        self.contentType = contentType
        self.charset = charset
        self.origin = origin
        self.status = status
        self.validators = validators
        self.notModified = notModified
        self.maxAge = maxAge
        self.request = request
        self.maxBytes = maxBytes
    }

    /// A source's answer that nothing changed since the validators it was given.
    public static func notModified(origin: String, status: Int? = nil) -> Payload {
        Payload(data: Data(), origin: origin, status: status, notModified: true)
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

    /// Creates an entry from its parts; without relevance or deep link unless given.
    public init(date: Date, content: WidgetValue, relevance: WidgetNumber? = nil, url: String? = nil) {
        self.date = date
        self.content = content
        self.relevance = relevance
        self.url = url
    }
}
