import Foundation

/// The DOM a headless browser printed, read just enough for the gallery's checks: the root's attributes,
/// the cards with their attributes and entries, and the images.
struct DumpedDOM {
    /// The serialised DOM.
    let html: String

    /// One `<article class="card">` of the gallery.
    struct Card {
        /// Its attributes (`id`, `data-status`, `data-current`, …).
        var attributes: [String: String]
        /// Its inner HTML.
        var html: String

        /// The widget's id.
        var id: String { attributes["data-id"] ?? "" }
        /// The status the card shows.
        var status: String { attributes["data-status"] ?? "" }

        /// Each entry's date and whether it is hidden, in order.
        var entries: [(date: String, hidden: Bool, html: String)] {
            DumpedDOM.elements("section", in: html).compactMap { element in
                guard let date = element.attributes["data-date"] else { return nil }
                return (date, element.attributes["hidden"] != nil, element.inner)
            }
        }

        /// The HTML of the one entry shown.
        var shownEntry: String? {
            let shown = entries.filter { !$0.hidden }
            return shown.count == 1 ? shown[0].html : nil
        }
    }

    /// The attributes of `<html>`.
    var rootAttributes: [String: String] {
        DumpedDOM.elements("html", in: html).first?.attributes ?? [:]
    }

    /// The cards, in page order.
    var cards: [Card] {
        DumpedDOM.elements("article", in: html).map { Card(attributes: $0.attributes, html: $0.inner) }
    }

    /// The attributes of every `<img>`.
    var images: [[String: String]] {
        DumpedDOM.elements("img", in: html, void: true).map(\.attributes)
    }

    /// The elements named `name` (not nested in one another), with their attributes and inner HTML.
    static func elements(_ name: String, in html: String, void: Bool = false) -> [(attributes: [String: String], inner: String)] {
        var found: [(attributes: [String: String], inner: String)] = []
        var rest = html[...]
        while let open = rest.range(of: "<\(name)", options: .caseInsensitive) {
            let after = rest[open.upperBound...]
            guard let first = after.first, first == " " || first == ">" || first == "/" || first == "\n",
                let close = after.firstIndex(of: ">")
            else {
                rest = after
                continue
            }
            let attributes = parseAttributes(String(after[..<close]))
            let body = after[after.index(after: close)...]
            if void {
                found.append((attributes, ""))
                rest = body
                continue
            }
            guard let end = body.range(of: "</\(name)>", options: .caseInsensitive) else { break }
            found.append((attributes, String(body[..<end.lowerBound])))
            rest = body[end.upperBound...]
        }
        return found
    }

    /// `name="value"` pairs and bare names, as Chromium serialises them (always double quotes).
    static func parseAttributes(_ text: String) -> [String: String] {
        var attributes: [String: String] = [:]
        let pattern = try! NSRegularExpression(pattern: #"([A-Za-z_:][-A-Za-z0-9_:.]*)(?:="([^"]*)")?"#)
        let range = NSRange(text.startIndex..., in: text)
        for match in pattern.matches(in: text, range: range) {
            guard let nameRange = Range(match.range(at: 1), in: text) else { continue }
            let value = Range(match.range(at: 2), in: text).map { String(text[$0]) } ?? ""
            attributes[String(text[nameRange])] = value
        }
        return attributes
    }
}
