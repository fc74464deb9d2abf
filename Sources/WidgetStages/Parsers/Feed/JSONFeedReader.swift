import Foundation
import WidgetCore
import WidgetJSON
import WidgetLiquid

/// Reads JSON Feed 1.0 and 1.1 (https://jsonfeed.org/version/1.1) into a ``FeedDocument``.
enum JSONFeedReader {
    /// - Throws: A ``StageError`` when the JSON is invalid or is not a JSON Feed.
    static func read(_ data: Data, origin: String, limits: ValueLimits = ValueLimits()) throws -> FeedDocument {
        let root: WidgetValue
        do {
            root = try limits.readJSON(data, "the feed from \(origin)")
        } catch let error as StageError {
            throw error
        } catch {
            throw StageError("the feed from \(origin) looks like JSON Feed but is not valid JSON: \(error)")
        }
        guard case .object(let object) = root, let items = object["items"]?.array else {
            throw StageError("the JSON from \(origin) is not a JSON Feed: it has no \"items\" list; use the \"json\" parser for other JSON")
        }
        var document = FeedDocument()
        let version = object["version"]?.string ?? ""
        document.format = version.hasSuffix("/1") ? "jsonfeed1.0" : "jsonfeed1.1"
        document.title = object["title"]?.string.map(HTMLText.decodeEntities)
        document.link = object["home_page_url"]?.string
        document.description = object["description"]?.string
        let base = document.link.flatMap(URL.init(string:))
        func resolve(_ link: String?) -> String? {
            guard let link, !link.isEmpty else { return nil }
            if link.hasPrefix("http://") || link.hasPrefix("https://") { return link }
            guard let base, let url = URL(string: link, relativeTo: base) else { return link }
            return url.absoluteString
        }
        let feedAuthor = author(object)
        var valueCount = 0
        for entry in items {
            guard case .object(let fields) = entry else { continue }
            var item = FeedItem()
            switch fields["id"] {
            case .string(let id)?: item.id = id
            case .number(let number)?: item.id = number.text
            default: break
            }
            item.link = resolve(fields["url"]?.string) ?? resolve(fields["external_url"]?.string)
            item.title = fields["title"]?.string
            item.published = fields["date_published"]?.string.flatMap(InternetDate.normalize)
            item.updated = fields["date_modified"]?.string.flatMap(InternetDate.normalize)
            item.author = author(fields) ?? feedAuthor
            let html = fields["content_html"]?.string
            let text = fields["content_text"]?.string
            item.content = html ?? text.map { FeedXMLState.escape($0, quote: false) }
            if let summary = fields["summary"]?.string {
                item.summary = summary
            } else if let html {
                item.summary = HTMLText.plainText(html)
            } else {
                item.summary = text
            }
            item.image =
                resolve(fields["image"]?.string) ?? resolve(fields["banner_image"]?.string)
                ?? html.flatMap(HTMLText.firstImageSource).flatMap(resolve)
            item.categories = fields["tags"]?.array?.compactMap(\.string) ?? []
            for attachment in fields["attachments"]?.array ?? [] {
                guard let url = resolve(attachment["url"]?.string) else { continue }
                item.enclosures.append(
                    FeedEnclosure(url: url, type: attachment["mime_type"]?.string, length: attachment["size_in_bytes"]?.number?.int))
            }
            if item.image == nil {
                item.image = item.enclosures.first { $0.type?.hasPrefix("image/") == true }?.url
            }
            valueCount += item.valueCount
            if valueCount > limits.maximumValues { throw StageError(limits.tooManyValuesMessage("the feed from \(origin)")) }
            document.items.append(item)
        }
        return document
    }

    /// The first author's name (1.1 `authors`, 1.0 `author`).
    private static func author(_ object: WidgetObject) -> String? {
        if let first = object["authors"]?.array?.first, let name = first["name"]?.string { return name }
        return object["author"]?["name"]?.string
    }
}
