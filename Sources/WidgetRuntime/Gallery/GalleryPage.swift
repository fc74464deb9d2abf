public import Foundation
public import WidgetCore
public import WidgetJSON
import WidgetLiquid
import WidgetStages

/// The gallery: `OUT/index.html` with every widget's card, or `OUT/<id>.html` with one.
///
/// A page is one self-contained file: its style and its small script are inline, it loads no font,
/// script or stylesheet from anywhere, and its Content-Security-Policy allows only that style and that
/// script (by their SHA-256), images from the output folder or `http(s)`, and requests to its own origin.
/// Opened as a file it shows every card as of the last write; served by any static file server it follows
/// changes: every ``pollSeconds`` it reads `index.json`, and when its `generation` differs from the
/// page's, fetches the page again and replaces only the cards whose own generation changed (no reload, no
/// flicker). The script also shows each card's entry current now, switching at the next entry's date, and
/// writes times as "3 min ago". `?now=2026-11-22T08:00:00Z` fixes the page's clock (for tests and
/// screenshots), `?family=NAME` picks the size (any of `ViewDefinition.Family`, `medium` by default),
/// `?widget=ID` shows that widget's card alone (for screenshots), `?poll=SECONDS` the polling interval.
public struct GalleryPage: Sendable {
    /// The page's title.
    public var title: String
    /// The cards, in the order shown.
    public var cards: [GalleryCard]
    /// When the page was written.
    public var writtenAt: Date

    /// The title of `OUT/index.html`.
    public static let defaultTitle = "Widgets"

    /// The seconds between two reads of `index.json` when the page is served, unless `?poll=` says.
    public static let pollSeconds = 10

    /// A page of `cards`; `widget` names the one widget of an `OUT/<id>.html` page.
    public init(title: String, cards: [GalleryCard], writtenAt: Date, widget: String? = nil) {
        self.title = title
        self.cards = cards
        self.writtenAt = writtenAt
        self.widget = widget
    }

    /// The card of `snapshot` and the page of that one widget, `OUT/<id>.html`, as the daemon writes them
    /// and `preview --html` does: titled as the card is, and as of the snapshot. Its views read `history`
    /// (`{}` by default).
    public static func widgetPage(
        for snapshot: Snapshot, definition: WidgetDefinition?, history: WidgetValue = .object([:])
    ) -> (card: GalleryCard, page: GalleryPage) {
        let card = GalleryCard.render(snapshot, definition: definition, now: snapshot.generatedAt, history: history)
        let page = GalleryPage(
            title: snapshot.title ?? definition?.title ?? snapshot.id, cards: [card], writtenAt: snapshot.generatedAt,
            widget: snapshot.id)
        return (card, page)
    }

    /// The widget of a one-widget page (`OUT/<id>.html`); `nil` for the gallery of every widget.
    public var widget: String?

    /// A fingerprint of the cards, 16 hexadecimal digits: `index.json` carries it as `generation` (and
    /// each widget's card's as the widget's `generation`), and a served page refreshes its cards when the
    /// one it follows changes. A one-widget page's is its card's.
    public var generation: String {
        if widget != nil, cards.count == 1 { return cards[0].generation }
        return GalleryPage.generation(of: cards.map(\.generation))
    }

    /// The fingerprint of a gallery whose cards have `generations`, in order.
    public static func generation(of generations: [String]) -> String {
        fingerprint(generations.joined(separator: ","))
    }

    /// A fingerprint of `text` for telling versions apart: 16 hexadecimal digits of a 64-bit stable hash
    /// (FNV-1a, mixed). Not a cryptographic digest, which the page has no use for: a card's generation
    /// only tells the page that its HTML changed, and SHA-256 of every card was about 1% of a refresh's
    /// time.
    static func fingerprint(_ text: String) -> String {
        String(StableHash.mixed(text.utf8), radix: 16).leftPadded(to: 16)
    }

    /// The Content-Security-Policy of every page.
    public static let contentSecurityPolicy =
        "default-src 'none'; script-src 'sha256-\(sha256Base64(GalleryPage.script))'; style-src 'sha256-\(sha256Base64(GalleryPage.style))'; img-src 'self' http: https:; connect-src 'self'; base-uri 'none'; form-action 'none'"

    /// The page's HTML.
    public var html: String {
        let count = cards.count == 1 ? "1 widget" : "\(cards.count) widgets"
        var html = """
            <!doctype html>
            <html lang="en" data-family="medium">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="\(GalleryPage.contentSecurityPolicy)">
            <meta name="color-scheme" content="light dark">
            <meta name="referrer" content="no-referrer">
            <meta name="widgetd-generation" content="\(generation)">
            <meta name="widgetd-poll" content="\(GalleryPage.pollSeconds)">\(widget.map { "\n<meta name=\"widgetd-widget\" content=\"\(HTMLText.escape($0))\">" } ?? "")
            <title>\(HTMLText.escape(title))</title>
            <style>\(GalleryPage.style)</style>
            </head>
            <body>
            <header class="top"><h1>\(HTMLText.escape(title))</h1><p class="meta" id="meta">\(count) · written \(GalleryCard.time(writtenAt))</p>
            \(GalleryPage.familySwitch)</header>

            """
        html += GalleryPage.mainOpening
        for card in cards {
            html += card.pageHTML + "\n"
        }
        if cards.isEmpty {
            html += "<p class=\"muted\">No widgets yet: add a definition to the config folder.</p>\n"
        }
        html += GalleryPage.ending
        return html
    }

    /// The size switch: a button per family, the home screen's and the lock screen's in two groups, each
    /// with its full name for assistive technology and as its tooltip.
    static let familySwitch: String = {
        func button(_ family: ViewDefinition.Family, _ label: String, _ name: String) -> String {
            "<button type=\"button\" data-family=\"\(family.rawValue)\" aria-label=\"\(name)\" title=\"\(name)\">\(label)</button>"
        }
        return "<nav class=\"families\" aria-label=\"Size\"><span class=\"group\" role=\"group\" aria-label=\"Home screen\">"
            + button(.small, "S", "Small") + button(.medium, "M", "Medium") + button(.large, "L", "Large")
            + button(.extraLarge, "XL", "Extra large")
            + "</span><span class=\"group\" role=\"group\" aria-label=\"Lock screen\">"
            + button(.accessoryCircular, "Circle", "Lock screen: circular")
            + button(.accessoryRectangular, "Rect", "Lock screen: rectangular")
            + button(.accessoryInline, "Inline", "Lock screen: inline") + "</span></nav>"
    }()

    /// The opening of the cards' grid; the page's title before it is escaped, so it holds the first `<main`.
    static let mainOpening = "<main id=\"gallery\" class=\"grid\">\n"

    /// Everything after the cards: the same on every page.
    static let ending = "</main>\n<script>\(GalleryPage.script)</script>\n</body>\n</html>\n"

    /// The card of the one-widget page `html` (as ``html`` wrote it for `id`), which is where the daemon
    /// keeps each widget's card between two galleries; `nil` when `html` is not such a page.
    public static func card(inPage html: String, id: String) -> GalleryCard? {
        let bytes = Array(html.utf8)
        let ending = Array(GalleryPage.ending.utf8)
        let marker = Array("<article data-generation=\"".utf8)
        // The card's generation: 16 hexadecimal digits and a quote.
        let markerEnd = marker.count + 17
        guard let start = ViewMarkup.find(bytes, mainOpening, from: 0), bytes.count >= ending.count + 1,
            bytes[(bytes.count - ending.count)...].elementsEqual(ending)
        else { return nil }
        let cardStart = start + mainOpening.utf8.count
        // The card and its newline.
        let cardEnd = bytes.count - ending.count - 1
        guard cardEnd - cardStart > markerEnd, bytes[cardEnd] == UInt8(ascii: "\n"),
            bytes[cardStart..<(cardStart + marker.count)].elementsEqual(marker),
            bytes[cardStart + markerEnd - 1] == UInt8(ascii: "\"")
        else { return nil }
        // The page of this one widget (not the gallery of every widget, nor another widget's page).
        let widget = "<meta name=\"widgetd-widget\" content=\"\(HTMLText.escape(id))\">\n"
        guard let meta = ViewMarkup.find(bytes, widget, from: 0), meta < start else { return nil }
        let rest = String(decoding: bytes[(cardStart + markerEnd)..<cardEnd], as: UTF8.self)
        return GalleryCard(id: id, html: "<article" + rest)
    }

    /// The base64 SHA-256 of `text`, as a Content-Security-Policy source names an inline element.
    static func sha256Base64(_ text: String) -> String {
        Data(SHA256.digest(of: Data(text.utf8))).base64EncodedString()
    }
}
