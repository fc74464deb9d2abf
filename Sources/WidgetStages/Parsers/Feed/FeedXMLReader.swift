import Foundation
import WidgetCore
import WidgetJSON
import WidgetLiquid

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads RSS 0.9x, RSS 1.0 (RDF), RSS 2.0 and Atom 0.3/1.0 with one pass of `XMLParser` (SAX).
///
/// The delegate only forwards each event to ``FeedXMLState``. The state is one struct, accessed without
/// a dynamic exclusivity check: only the parser's callbacks touch it, one at a time on the thread that
/// runs `parse()`, and a check cost more than most events' own work.
final class FeedXMLReader: NSObject, XMLParserDelegate {
    @exclusivity(unchecked) var state: FeedXMLState
    /// The limits the feed is read within (``ValueLimits``).
    let limits: ValueLimits
    /// The limit the document passed, if any: reading stopped there.
    private(set) var exceededLimit: JSONSyntaxError.Limit?

    init(documentURL: URL?, limits: ValueLimits = ValueLimits()) {
        state = FeedXMLState(documentURL: documentURL)
        self.limits = limits
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        guard exceededLimit == nil else { return }
        state.start(name, namespaceURI: namespaceURI, attributes: attributes)
        if state.depth > ValueLimits.maximumDepth { stop(parser, .depth) }
    }

    /// Stops reading at a limit.
    private func stop(_ parser: XMLParser, _ limit: JSONSyntaxError.Limit) {
        exceededLimit = limit
        parser.abortParsing()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        state.characters(string)
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        state.characters(block)
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        guard exceededLimit == nil else { return }
        state.end(name, namespaceURI: namespaceURI)
        if state.valueCount > limits.maximumValues { stop(parser, .values) }
    }
}

/// The state of a feed being read, element by element.
///
/// Memory is bounded by the item being built: finished items are appended to the result and the text
/// buffer is reset at every element. Elements are told apart by namespace URI, not by prefix.
///
/// Character data is kept as UTF-8 bytes and made into a string only by the elements that are read, once,
/// already trimmed or decoded where the field wants it.
struct FeedXMLState {
    /// Namespaces the reader understands.
    private enum Space {
        case plain, atom, rdf, content, dc, dcterms, media, itunes, xhtml, other
    }

    /// The elements the reader acts on, told apart by namespace and local name once, when they start, and
    /// kept on a stack until they end.
    private enum Element {
        case other
        // RSS: no namespace, or one of RSS 0.90, 1.0 and 1.1.
        case rss, channel, item, image, textInput, items, guid, enclosure, title, link, pubDate, description, author
        case category, lastBuildDate
        case atomFeed, atomEntry, atomSource, atomLink, atomAuthor, atomContributor, atomTitle, atomSummary
        case atomContent, atomSubtitle, atomTagline, atomCategory, atomID, atomPublished, atomIssued, atomCreated
        case atomUpdated, atomModified, atomName, atomEmail
        case rdfRoot, rdfSeq
        case dcTitle, dcDate, dcCreator, dcSubject, termsIssued, termsCreated, termsModified
        case contentEncoded, mediaThumbnail, mediaContent, itunesImage, itunesAuthor, itunesSummary

        init(_ space: Space, _ name: String) {
            switch space {
            case .plain: self = Self.rss(name)
            case .atom: self = Self.atom(name)
            case .rdf: self = name == "RDF" ? .rdfRoot : name == "Seq" ? .rdfSeq : .other
            case .dc:
                switch name {
                case "title": self = .dcTitle
                case "date": self = .dcDate
                case "creator": self = .dcCreator
                case "subject": self = .dcSubject
                default: self = .other
                }
            case .dcterms:
                switch name {
                case "issued": self = .termsIssued
                case "created": self = .termsCreated
                case "modified": self = .termsModified
                default: self = .other
                }
            case .content: self = name == "encoded" ? .contentEncoded : .other
            case .media: self = name == "thumbnail" ? .mediaThumbnail : name == "content" ? .mediaContent : .other
            case .itunes:
                switch name {
                case "image": self = .itunesImage
                case "author": self = .itunesAuthor
                case "summary": self = .itunesSummary
                default: self = .other
                }
            case .xhtml, .other: self = .other
            }
        }

        /// Whether the element reads its text when it ends. The text of the others (the layout between an
        /// item's children, mostly) is not kept.
        var readsText: Bool {
            switch self {
            case .title, .link, .guid, .pubDate, .description, .author, .category, .image, .lastBuildDate, .atomTitle,
                .atomSummary, .atomContent, .atomSubtitle, .atomTagline, .atomID, .atomPublished, .atomIssued,
                .atomCreated, .atomUpdated, .atomModified, .atomName, .atomEmail, .dcTitle, .dcDate, .dcCreator,
                .dcSubject, .termsIssued, .termsCreated, .termsModified, .contentEncoded, .itunesAuthor, .itunesSummary:
                return true
            case .other, .rss, .channel, .item, .textInput, .items, .enclosure, .atomFeed, .atomEntry, .atomSource,
                .atomLink, .atomAuthor, .atomContributor, .atomCategory, .rdfRoot, .rdfSeq, .mediaThumbnail,
                .mediaContent, .itunesImage:
                return false
            }
        }

        // By length first: a name is then compared with at most a few others.

        private static func rss(_ name: String) -> Element {
            switch name.utf8.count {
            case 3: return name == "rss" ? .rss : .other
            case 4: return name == "item" ? .item : name == "link" ? .link : name == "guid" ? .guid : .other
            case 5: return name == "title" ? .title : name == "image" ? .image : name == "items" ? .items : .other
            case 6: return name == "author" ? .author : .other
            case 7: return name == "pubDate" ? .pubDate : name == "channel" ? .channel : .other
            case 8: return name == "category" ? .category : .other
            case 9: return name == "enclosure" ? .enclosure : name == "textinput" || name == "textInput" ? .textInput : .other
            case 11: return name == "description" ? .description : .other
            case 13: return name == "lastBuildDate" ? .lastBuildDate : .other
            default: return .other
            }
        }

        private static func atom(_ name: String) -> Element {
            switch name.utf8.count {
            case 2: return name == "id" ? .atomID : .other
            case 4: return name == "link" ? .atomLink : name == "name" ? .atomName : name == "feed" ? .atomFeed : .other
            case 5: return name == "entry" ? .atomEntry : name == "title" ? .atomTitle : name == "email" ? .atomEmail : .other
            case 6: return name == "author" ? .atomAuthor : name == "issued" ? .atomIssued : name == "source" ? .atomSource : .other
            case 7:
                switch name {
                case "content": return .atomContent
                case "summary": return .atomSummary
                case "updated": return .atomUpdated
                case "created": return .atomCreated
                case "tagline": return .atomTagline
                default: return .other
                }
            case 8:
                return name == "category" ? .atomCategory : name == "modified" ? .atomModified : name == "subtitle" ? .atomSubtitle : .other
            case 9: return name == "published" ? .atomPublished : .other
            case 11: return name == "contributor" ? .atomContributor : .other
            default: return .other
            }
        }
    }

    /// The item being built, with what is needed to finish it.
    private final class Pending {
        var item = FeedItem()
        /// The summary made from the item's description (or Atom summary), when it has one.
        var descriptionSummary: String?
        /// The description as written, kept only when it may hold an `<img>` (the item's picture when
        /// nothing else gives one).
        var descriptionWithImage: String?
        var guidIsPermaLink = true
        var guid: String?
        var rdfAbout: String?
        var thumbnail: String?
        var mediaImage: String?
        var itunesImage: String?
        var itunesSummary: String?
        var dcCreator: String?
        var itunesAuthor: String?
        var authorName: String?
        var authorEmail: String?
        var dcDate: String?
    }

    private(set) var document = FeedDocument()
    private(set) var sawFeedRoot = false
    private var documentURL: URL?

    private(set) var depth = 0
    /// The values the items read so far make (see ``FeedItem/valueCount``).
    private(set) var valueCount = 0
    /// The element at each depth (`.other` for those inside skipped or inline XHTML content).
    private var elements: [Element] = []
    private var bases: [(depth: Int, url: URL)] = []
    /// The character data (and CDATA) of the current element, as UTF-8.
    private var text: [UInt8] = []
    private var pending: Pending?
    private var entryDepth = 0
    /// Depth of an element whose children are skipped (channel image, textinput, atom source…).
    private var skipDepth = 0
    private var authorDepth = 0
    private var textType = "text"
    /// Depth of the Atom element holding inline XHTML, or 0.
    private var xhtmlDepth = 0
    private var feedDescriptionIsHTML = false
    private var channelDate: String?

    /// The namespaces met so far (a feed uses a handful), searched in order: comparing a URI with a few
    /// others costs less than hashing it.
    private var knownSpaces: [(uri: String, space: Space)] = []

    init(documentURL: URL?) {
        self.documentURL = documentURL
    }

    private mutating func space(_ uri: String?) -> Space {
        guard let uri, !uri.isEmpty else { return .plain }
        let length = uri.utf8.count
        for known in knownSpaces where known.uri.utf8.count == length && known.uri == uri { return known.space }
        let space: Space
        switch uri {
        case "http://www.w3.org/2005/Atom", "http://purl.org/atom/ns#": space = .atom
        case "http://purl.org/rss/1.0/", "http://my.netscape.com/rdf/simple/0.9/", "http://backend.userland.com/rss2",
            "http://backend.userland.com/rss", "http://purl.org/net/rss1.1#":
            space = .plain
        case "http://www.w3.org/1999/02/22-rdf-syntax-ns#": space = .rdf
        case "http://purl.org/rss/1.0/modules/content/": space = .content
        case "http://purl.org/dc/elements/1.1/": space = .dc
        case "http://purl.org/dc/terms/": space = .dcterms
        case "http://search.yahoo.com/mrss/", "http://search.yahoo.com/mrss": space = .media
        case "http://www.itunes.com/dtds/podcast-1.0.dtd", "http://www.itunes.com/DTDs/Podcast-1.0.dtd": space = .itunes
        case "http://www.w3.org/1999/xhtml": space = .xhtml
        default: space = .other
        }
        if knownSpaces.count < 16 { knownSpaces.append((uri, space)) }
        return space
    }

    // MARK: - URLs

    private var base: URL? {
        bases.last?.url ?? documentURL ?? document.link.flatMap(URL.init(string:))
    }

    /// `link` made absolute against `xml:base`, the document's URL or the feed's link.
    private func resolve(_ link: String) -> String {
        let trimmed = link.trimmingWhitespace()
        if trimmed.hasPrefix("http://") || trimmed.hasPrefix("https://") || trimmed.isEmpty { return trimmed }
        guard let base, let url = URL(string: trimmed, relativeTo: base) else { return trimmed }
        return url.absoluteString
    }

    // MARK: - Events

    mutating func start(_ name: String, namespaceURI: String?, attributes all: [String: String]) {
        depth += 1
        if xhtmlDepth > 0 {
            elements.append(.other)
            append("<" + name)
            for (key, value) in all where !key.hasPrefix("xmlns") {
                append(" \(key)=\"\(Self.escape(value, quote: true))\"")
            }
            append(">")
            return
        }
        let attributes = Attributes(all)
        if !all.isEmpty, let xmlBase = attributes["xml:base"] ?? attributes["base"],
            let url = URL(string: xmlBase.trimmingWhitespace(), relativeTo: base)?.absoluteURL
        {
            bases.append((depth, url))
        }
        if !text.isEmpty { text.removeAll(keepingCapacity: true) }
        if skipDepth > 0 {
            elements.append(.other)
            return
        }
        let space = space(namespaceURI)
        let element = Element(space, name)
        elements.append(element)

        if depth == 1 {
            sawFeedRoot = true
            switch (space, name) {
            case (.plain, "rss"):
                let version = attributes["version"] ?? "2.0"
                document.format = version.hasPrefix("0.9") ? "rss\(version)" : "rss2.0"
            case (.rdf, "RDF"):
                document.format = namespaceURI == nil ? "rss1.0" : "rss1.0"
            case (.atom, "feed"):
                document.format = namespaceURI == "http://purl.org/atom/ns#" ? "atom0.3" : "atom1.0"
            case (_, "rss"), (_, "RDF"):
                document.format = "rss2.0"
            case (_, "feed"):
                document.format = "atom1.0"
            default:
                sawFeedRoot = false
            }
            return
        }

        switch element {
        case .item, .atomEntry:
            if pending == nil {
                pending = Pending()
                entryDepth = depth
                pending?.rdfAbout = attributes["rdf:about"] ?? attributes["about"]
            }
        case .image, .textInput, .atomSource, .rdfSeq, .items:
            if element == .image, pending != nil {
                break  // An item's own <image>, read as text.
            }
            skipDepth = depth
        case .guid:
            pending?.guidIsPermaLink = attributes["isPermaLink"]?.lowercased() != "false"
        case .enclosure:
            if let url = attributes["url"], !url.isEmpty {
                pending?.item.enclosures.append(
                    FeedEnclosure(url: resolve(url), type: attributes["type"], length: attributes["length"].flatMap { Int($0) }))
            }
        case .atomLink:
            let rel = attributes["rel"] ?? "alternate"
            guard let href = attributes["href"] ?? attributes["url"] else { break }
            if rel == "alternate" {
                // Like feedparser: an HTML alternate replaces an earlier one; others only fill a gap.
                let type = attributes["type"]?.lowercased()
                let isHTML = type == nil || type == "text/html" || type == "application/xhtml+xml"
                if pending != nil {
                    if isHTML || pending?.item.link == nil { pending?.item.link = resolve(href) }
                } else if document.link == nil {
                    document.link = resolve(href)
                }
            } else if rel == "enclosure", pending != nil {
                pending?.item.enclosures.append(
                    FeedEnclosure(url: resolve(href), type: attributes["type"], length: attributes["length"].flatMap { Int($0) }))
            }
        case .atomAuthor:
            authorDepth = depth
        case .atomContributor:
            skipDepth = depth
        case .atomTitle, .atomSummary, .atomContent, .atomSubtitle, .atomTagline:
            textType = (attributes["type"] ?? "text").lowercased()
            if attributes["mode"] == "escaped" { textType = "html" }
            if textType == "xhtml" || textType == "application/xhtml+xml" { xhtmlDepth = depth }
        case .atomCategory:
            if let term = attributes["term"] ?? attributes["label"], !term.isEmpty { pending?.item.categories.append(term) }
        case .mediaThumbnail:
            if pending?.thumbnail == nil, let url = attributes["url"] { pending?.thumbnail = resolve(url) }
        case .mediaContent:
            guard pending != nil, let url = attributes["url"], !url.isEmpty else { break }
            let type = attributes["type"]
            let resolved = resolve(url)
            if attributes["medium"] == "image" || type?.hasPrefix("image/") == true, pending?.mediaImage == nil {
                pending?.mediaImage = resolved
            }
            if pending?.item.enclosures.contains(where: { $0.url == resolved }) == false {
                pending?.item.enclosures.append(
                    FeedEnclosure(url: resolved, type: type, length: attributes["fileSize"].flatMap { Int($0) }))
            }
        case .itunesImage:
            if let href = attributes["href"], pending != nil, pending?.itunesImage == nil {
                pending?.itunesImage = resolve(href)
            }
        default:
            break
        }
    }

    mutating func characters(_ string: String) {
        if xhtmlDepth > 0 {
            append(Self.escape(string, quote: false))
        } else if elements.last?.readsText == true {
            var string = string
            string.withUTF8 { bytes in
                // Whitespace before any text (the layout between elements, mostly) is not kept: every
                // field trims its start, so it could only be dropped later.
                if text.isEmpty, !bytes.contains(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) { return }
                text.append(contentsOf: bytes)
            }
        }
    }

    /// A CDATA section: its bytes are text as they are.
    mutating func characters(_ data: Data) {
        if xhtmlDepth > 0 {
            characters(String(decoding: data, as: UTF8.self))
        } else if elements.last?.readsText == true {
            data.withUnsafeBytes { text.append(contentsOf: $0) }
        }
    }

    private mutating func append(_ string: String) {
        text.append(contentsOf: string.utf8)
    }

    /// The text of the current element.
    private var textString: String { String(decoding: text, as: UTF8.self) }

    /// The text of the current element without leading and trailing whitespace (`trimmingWhitespace()`).
    private var trimmedText: String {
        text.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[HTMLText.trimmedRange($0)]), as: UTF8.self) }
    }

    /// The text of the current element, trimmed, then with its character references decoded.
    private var decodedText: String {
        text.withUnsafeBufferPointer { HTMLText.decodeEntities(UnsafeBufferPointer(rebasing: $0[HTMLText.trimmedRange($0)])) }
    }

    /// The text of the current element as an ISO 8601 instant, or `nil` (``InternetDate/normalize(_:)``).
    private var dateText: String? {
        text.withUnsafeBufferPointer(InternetDate.parse).map { InternetDate.iso8601(Date(timeIntervalSince1970: $0)) }
    }

    mutating func end(_ name: String, namespaceURI: String?) {
        let element = elements.popLast() ?? .other
        defer {
            if let last = bases.last, last.depth == depth { bases.removeLast() }
            depth -= 1
            if xhtmlDepth == 0, !text.isEmpty { text.removeAll(keepingCapacity: true) }
        }
        if xhtmlDepth > 0, depth > xhtmlDepth {
            append("</\(name)>")
            return
        }
        if skipDepth > 0 {
            if depth == skipDepth { skipDepth = 0 }
            return
        }
        if xhtmlDepth == depth {
            xhtmlDepth = 0
            text = Array(Self.unwrapDiv(textString).utf8)
        }
        if pending != nil {
            endInEntry(element)
        } else {
            endInFeed(element)
        }
        if authorDepth == depth { authorDepth = 0 }
    }

    private mutating func endInEntry(_ element: Element) {
        if depth == entryDepth {
            finishItem()
            return
        }
        guard let pending else { return }
        switch element {
        case .title, .atomTitle:
            if pending.item.title == nil { pending.item.title = textValue(atom: element == .atomTitle) }
        case .dcTitle:
            if pending.item.title == nil { pending.item.title = textValue(atom: false) }
        case .link:
            let link = trimmedText
            if !link.isEmpty, pending.item.link == nil { pending.item.link = resolve(HTMLText.decodeEntities(link)) }
        case .guid:
            let guid = trimmedText
            if !guid.isEmpty { pending.guid = guid }
        case .atomID:
            let id = trimmedText
            if !id.isEmpty, authorDepth == 0 { pending.item.id = id }
        case .pubDate, .atomPublished, .atomIssued, .termsIssued, .termsCreated, .atomCreated:
            if pending.item.published == nil { pending.item.published = dateText }
        case .dcDate:
            pending.dcDate = dateText
        case .atomUpdated, .atomModified, .termsModified:
            if pending.item.updated == nil { pending.item.updated = dateText }
        case .description:
            readDescription(into: pending, isHTML: true)
        case .atomSummary:
            readDescription(into: pending, isHTML: textType != "text" && textType != "text/plain")
        case .contentEncoded:
            pending.item.content = trimmedText
        case .atomContent:
            if pending.item.content == nil {
                let content = trimmedText
                pending.item.content = textType == "text" || textType == "text/plain" ? Self.escape(content, quote: false) : content
            }
        case .author:
            let author = decodedText
            if !author.isEmpty, pending.item.author == nil { pending.item.author = author }
        case .atomName:
            if authorDepth > 0, pending.authorName == nil { pending.authorName = decodedText }
        case .atomEmail:
            if authorDepth > 0, pending.authorEmail == nil { pending.authorEmail = trimmedText }
        case .dcCreator:
            if pending.dcCreator == nil { pending.dcCreator = decodedText }
        case .itunesAuthor:
            pending.itunesAuthor = decodedText
        case .itunesSummary:
            pending.itunesSummary = textString
        case .category, .dcSubject:
            let category = decodedText
            if !category.isEmpty { pending.item.categories.append(category) }
        case .image:
            let url = trimmedText
            if !url.isEmpty, pending.mediaImage == nil { pending.mediaImage = resolve(url) }
        default:
            break
        }
    }

    private mutating func endInFeed(_ element: Element) {
        switch element {
        case .title, .atomTitle:
            if document.title == nil, depth <= 3 { document.title = textValue(atom: element == .atomTitle) }
        case .link:
            let link = trimmedText
            if document.link == nil, !link.isEmpty { document.link = resolve(link) }
        case .description, .atomSubtitle, .atomTagline:
            if document.description == nil {
                let html = element == .description || (textType != "text" && textType != "text/plain")
                document.description = html ? text.withUnsafeBufferPointer(HTMLText.plainText) : trimmedText
            }
        case .lastBuildDate, .atomUpdated, .atomModified, .termsModified:
            if document.updated == nil { document.updated = dateText }
        case .pubDate, .dcDate:
            if channelDate == nil { channelDate = dateText }
        case .channel, .atomFeed, .rdfRoot, .rss:
            if document.updated == nil { document.updated = channelDate }
        default:
            break
        }
    }

    /// Reads the current element as the item's description: its summary is made now, from the bytes, and
    /// the text itself is kept only when it may hold the item's picture.
    private func readDescription(into pending: Pending, isHTML: Bool) {
        text.withUnsafeBufferPointer { bytes in
            pending.descriptionSummary =
                isHTML
                ? HTMLText.plainText(bytes)
                : String(decoding: UnsafeBufferPointer(rebasing: bytes[HTMLText.trimmedRange(bytes)]), as: UTF8.self)
            pending.descriptionWithImage = HTMLText.mayHoldImage(bytes) ? String(decoding: bytes, as: UTF8.self) : nil
        }
    }

    /// The current element's text as a title-like field: entities decoded; markup removed when the feed
    /// says (or shows) it is HTML.
    private func textValue(atom: Bool) -> String {
        if atom, textType == "text" || textType == "text/plain" {
            return trimmedText
        }
        return text.withUnsafeBufferPointer { raw in
            HTMLText.looksLikeHTML(raw) ? HTMLText.plainText(raw) : HTMLText.decodedAndTrimmed(raw)
        }
    }

    private mutating func finishItem() {
        guard let pending = pending.take() else { return }
        // Moved out rather than copied: a copy would retain each of its strings, only to release them
        // with `pending`.
        var item = FeedItem()
        swap(&item, &pending.item)
        if item.published == nil { item.published = pending.dcDate }
        if item.id == nil { item.id = pending.guid }
        if item.link == nil, let guid = pending.guid, pending.guidIsPermaLink,
            guid.hasPrefix("http://") || guid.hasPrefix("https://")
        {
            item.link = guid
        }
        if item.link == nil, let about = pending.rdfAbout { item.link = resolve(about) }
        if item.id == nil { item.id = pending.rdfAbout }
        if item.author == nil {
            if let name = pending.authorName, !name.isEmpty {
                item.author = name
            } else {
                item.author = pending.authorEmail ?? pending.dcCreator ?? pending.itunesAuthor
            }
        }
        if let summary = pending.descriptionSummary {
            item.summary = summary
        } else if let summary = pending.itunesSummary {
            item.summary = HTMLText.plainText(summary)
        } else if let content = item.content {
            item.summary = HTMLText.plainText(content)
        }
        if item.summary?.isEmpty == true { item.summary = nil }
        item.image =
            pending.thumbnail ?? pending.mediaImage ?? pending.itunesImage
            ?? item.enclosures.first { $0.type?.hasPrefix("image/") == true }?.url
            ?? (item.content ?? pending.descriptionWithImage).flatMap(HTMLText.firstImageSource).map(resolve)
        if item.title?.isEmpty == true { item.title = nil }
        valueCount += item.valueCount
        document.items.append(item)
    }

    /// Finishes an item left open by a truncated document.
    mutating func finishTruncated() {
        if pending != nil { finishItem() }
        if document.updated == nil { document.updated = channelDate }
    }

    // MARK: - Helpers

    /// An element's attributes, found by comparing names: an element has a handful, and comparing a few
    /// short names costs less than hashing the one looked for.
    private struct Attributes {
        let all: [String: String]

        init(_ all: [String: String]) {
            self.all = all
        }

        subscript(name: String) -> String? {
            if all.count > 8 { return all[name] }
            let length = name.utf8.count
            for (key, value) in all where key.utf8.count == length && key == name { return value }
            return nil
        }
    }

    static func escape(_ text: String, quote: Bool) -> String {
        guard
            text.utf8.contains(where: {
                $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: ">") || (quote && $0 == UInt8(ascii: "\""))
            })
        else {
            return text
        }
        var result = ""
        for character in text.unicodeScalars {
            switch character {
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "&": result += "&amp;"
            case "\"" where quote: result += "&quot;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// Inline XHTML without the `<div>` that Atom requires around it.
    static func unwrapDiv(_ markup: String) -> String {
        let trimmed = markup.trimmingWhitespace()
        guard trimmed.hasPrefix("<div"), trimmed.hasSuffix("</div>"), let open = trimmed.firstIndex(of: ">") else {
            return trimmed
        }
        let inner = trimmed[trimmed.index(after: open)..<trimmed.index(trimmed.endIndex, offsetBy: -6)]
        return String(inner).trimmingWhitespace()
    }
}
