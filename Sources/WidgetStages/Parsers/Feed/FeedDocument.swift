import WidgetCore
public import WidgetJSON

/// A feed read by ``FeedParser``, in the one shape every format is normalised to.
///
/// As a `WidgetValue` (``value``):
///
/// ```json
/// {"format": "rss2.0", "title": "…", "link": "https://…", "description": "…", "updated": "2026-11-22T05:00:00Z",
///  "items": [{"id": "…", "title": "…", "link": "https://…", "published": "2026-11-22T05:00:00Z",
///             "updated": null, "author": "…", "summary": "plain text", "content": "<p>HTML</p>",
///             "image": "https://…/a.jpg", "categories": ["Art"],
///             "enclosures": [{"url": "https://…/a.mp3", "type": "audio/mpeg", "length": 1234}]}]}
/// ```
///
/// Every key is present; a missing string is `null`, a missing list is empty.
public struct FeedDocument: Sendable, Hashable {
    /// `rss0.9x`, `rss1.0`, `rss2.0`, `atom0.3`, `atom1.0` or `jsonfeed1.x`.
    public var format: String = ""
    /// The feed's title, entities decoded; markup removed when the feed gives HTML.
    public var title: String?
    /// The feed's web page, absolute.
    public var link: String?
    public var description: String?
    /// When the feed last changed, as an ISO 8601 instant: `lastBuildDate`, Atom `updated` or
    /// `dcterms:modified`, else the channel's `pubDate` or `dc:date`.
    public var updated: String?
    /// The items, in the feed's order.
    public var items: [FeedItem] = []

    /// An empty document: no format, no fields, no items.
    public init() {}

    /// The feed as a value (see the type's discussion for the shape).
    public var value: WidgetValue {
        var object = WidgetObject()
        object.appendUnchecked(key: "format", value: .string(format))
        object.appendUnchecked(key: "title", value: title.map(WidgetValue.string) ?? .null)
        object.appendUnchecked(key: "link", value: link.map(WidgetValue.string) ?? .null)
        object.appendUnchecked(key: "description", value: description.map(WidgetValue.string) ?? .null)
        object.appendUnchecked(key: "updated", value: updated.map(WidgetValue.string) ?? .null)
        object.appendUnchecked(key: "items", value: .array(items.map(\.value)))
        return .object(object)
    }
}

/// One item (RSS) or entry (Atom, JSON Feed) of a ``FeedDocument``.
public struct FeedItem: Sendable, Hashable {
    /// The RSS guid, Atom id, RSS 1.0 `rdf:about` or JSON Feed id; `nil` when the feed gives none.
    public var id: String?
    /// The item's title, entities decoded; markup removed when the feed gives HTML.
    public var title: String?
    /// The item's web page, absolute.
    public var link: String?
    /// An ISO 8601 instant.
    public var published: String?
    /// An ISO 8601 instant.
    public var updated: String?
    /// The Atom author's name (else e-mail), or RSS `author`, `dc:creator` or `itunes:author`.
    public var author: String?
    /// Plain text: markup removed, entities decoded.
    public var summary: String?
    /// The full content, HTML as the feed gave it.
    public var content: String?
    /// The URL of the item's picture: a thumbnail, an image enclosure or the first `<img>` of the content.
    public var image: String?
    /// The category names or terms (JSON Feed `tags`), in order.
    public var categories: [String] = []
    /// The attached files: RSS enclosures, Atom `rel="enclosure"` links, `media:content` and JSON Feed
    /// attachments.
    public var enclosures: [FeedEnclosure] = []

    /// An empty item: every field `nil` or empty.
    public init() {}

    /// The values the item makes in ``value``: the object, its 11 members, each category, and each
    /// enclosure's object and 3 members. The feed parser counts them against `ValueLimits`.
    public var valueCount: Int { 12 + categories.count + 4 * enclosures.count }

    /// The item as an object with every key present; a missing string is `null`.
    public var value: WidgetValue {
        func string(_ text: String?) -> WidgetValue { text.map(WidgetValue.string) ?? .null }
        var object = WidgetObject()
        object.appendUnchecked(key: "id", value: string(id))
        object.appendUnchecked(key: "title", value: string(title))
        object.appendUnchecked(key: "link", value: string(link))
        object.appendUnchecked(key: "published", value: string(published))
        object.appendUnchecked(key: "updated", value: string(updated))
        object.appendUnchecked(key: "author", value: string(author))
        object.appendUnchecked(key: "summary", value: string(summary))
        object.appendUnchecked(key: "content", value: string(content))
        object.appendUnchecked(key: "image", value: string(image))
        object.appendUnchecked(key: "categories", value: .array(categories.map(WidgetValue.string)))
        object.appendUnchecked(key: "enclosures", value: .array(enclosures.map(\.value)))
        return .object(object)
    }
}

/// A file attached to a feed item: a podcast episode, a picture.
public struct FeedEnclosure: Sendable, Hashable {
    /// The file's URL, absolute.
    public var url: String
    /// The media type, such as `audio/mpeg`, when the feed says.
    public var type: String?
    /// The size in bytes, when the feed says.
    public var length: Int?

    /// An enclosure at `url`, with its type and size when known.
    public init(url: String, type: String? = nil, length: Int? = nil) {
        self.url = url
        self.type = type
        self.length = length
    }

    /// The enclosure as `{url, type, length}`, with `null` for what the feed does not say.
    public var value: WidgetValue {
        var object = WidgetObject()
        object.appendUnchecked(key: "url", value: .string(url))
        object.appendUnchecked(key: "type", value: type.map(WidgetValue.string) ?? .null)
        object.appendUnchecked(key: "length", value: length.map { .number(WidgetNumber($0)) } ?? .null)
        return .object(object)
    }
}
