public import Foundation
public import WidgetCore
public import WidgetJSON
import WidgetLiquid
import WidgetStages

/// One widget's card on the gallery page: its title, status badge (with the error behind it), every
/// entry of its timeline rendered by its `view` (or the generic card), and when it was updated and
/// refreshes next.
///
/// The card carries every entry with its date; the page's script shows the one current now and switches
/// at the next entry's date. Without the script the entry current when the card was rendered shows.
///
/// ```html
/// <article class="card" id="w-jotd" data-id="jotd" data-status="fresh" data-generation="…">
///   <header><h2>Joke of the Day</h2><span class="badge badge-fresh">fresh</span></header>
///   <div class="entries"><section class="entry" data-date="2026-11-22T05:00:03Z">…</section></div>
///   <footer>updated <time datetime="…" data-relative>…</time> · next refresh <time …>…</time></footer>
/// </article>
/// ```
public struct GalleryCard: Sendable, Hashable {
    /// The widget's id.
    public let id: String
    /// The card's HTML, an `<article>` element.
    public let html: String
    /// A fingerprint of the card's HTML, 16 hexadecimal digits of a stable 64-bit hash (not a
    /// cryptographic digest): the page replaces a card only when it changes. Worked out once, as the card
    /// is made: the page, its generation and `index.json` all use it.
    public let generation: String

    /// A card from its parts, as ``render(_:definition:now:history:)`` or a file wrote it.
    public init(id: String, html: String) {
        self.id = id
        self.html = html
        generation = GalleryPage.fingerprint(html)
    }

    /// The card as the page holds it: ``html`` with its ``generation`` as `data-generation`.
    public var pageHTML: String {
        let opening = "<article"
        guard html.hasPrefix(opening) else { return html }
        return "<article data-generation=\"\(generation)\"" + html.dropFirst(opening.count)
    }

    /// Renders the card of `snapshot`.
    ///
    /// - Parameters:
    ///   - snapshot: The widget's snapshot, entries included.
    ///   - definition: The widget's definition, for its `view` and zone; `nil` (a widget no longer
    ///     defined, say) shows the generic card.
    ///   - now: The moment the views see as `now`, and that picks the entry shown without the script.
    ///   - history: What the views read as `history`; `{}` by default.
    public static func render(
        _ snapshot: Snapshot, definition: WidgetDefinition?, now: Date, history: WidgetValue = .object([:])
    ) -> GalleryCard {
        let id = snapshot.id
        let title = snapshot.title ?? definition?.title ?? id
        var html =
            "<article class=\"card\" id=\"w-\(HTMLText.escape(id))\" data-id=\"\(HTMLText.escape(id))\" data-status=\"\(snapshot.status.rawValue)\">"
        html += "<header><h2>\(HTMLText.escape(title))</h2>\(badge(snapshot))</header>"
        html += "<div class=\"entries\">"
        if snapshot.entries.isEmpty {
            let empty = snapshot.status == .refreshing ? "No data yet: the first refresh is under way." : "No data yet."
            html += "<section class=\"entry entry-empty\"><p class=\"muted\">\(empty)</p></section>"
        }
        let current = currentIndex(of: snapshot.entries, at: now)
        // Every entry's view spends from one budget: a view that loops forever costs the card a bounded
        // time, however many entries it has.
        let steps = WidgetViewRenderer.cardSteps(limit: definition?.templateStepLimit ?? TemplateSteps.defaultLimit)
        let limits = definition?.valueLimits ?? ValueLimits()
        for (index, entry) in snapshot.entries.enumerated() {
            // A page stops at its limit: the entries after are left out, and it says so.
            if html.utf8.count > limits.maximumPageBytes {
                html += "<section class=\"entry\"><p class=\"view-error\">\(HTMLText.escape(limits.pageTooLargeMessage()))</p></section>"
                break
            }
            html += "<section class=\"entry\" data-date=\"\(Timestamp.string(entry.date))\"\(index == current ? "" : " hidden")>"
            html += link(entry)
            html += WidgetViewRenderer.render(entry, of: snapshot, definition: definition, now: now, steps: steps, history: history)
            html += "</section>"
        }
        html += "</div><footer>"
        if let success = snapshot.lastSuccessAt {
            html += "<span>updated \(time(success))</span>"
        } else if let started = snapshot.refreshStartedAt {
            html += "<span>first refresh started \(time(started))</span>"
        } else {
            html += "<span>never updated</span>"
        }
        if let next = snapshot.nextRefreshAt {
            html += "<span>next refresh \(time(next))</span>"
        }
        html += "</footer></article>"
        return GalleryCard(id: id, html: html)
    }

    /// The link a tap on the entry opens, as WidgetKit's `widgetURL`: the entry's `url` (the timeline's
    /// `"url"` template), a web address or an app's (`bitpal://portfolio`) that ``ViewMarkup/isSafeLink(_:)``
    /// allows; nothing without one. It covers the entry, under the view's own links and `<summary>`, which
    /// stay clickable, and shows as an arrow in the corner.
    static func link(_ entry: TimelineEntry) -> String {
        guard let url = entry.url, !url.isEmpty else { return "" }
        let escaped = HTMLText.escape(url)
        guard ViewMarkup.isSafeLink(escaped) else { return "" }
        return "<a class=\"entry-link\" href=\"\(escaped)\" title=\"\(escaped)\" aria-label=\"Open \(escaped)\">\(linkIcon)</a>"
    }

    /// The icon of an entry's link: an arrow out of the corner, drawn as ``infoIcon`` is.
    public static let linkIcon =
        #"<svg class="link-icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">"#
        + #"<path d="M5 11 11 5M6.5 5H11v4.5" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round"/></svg>"#

    /// The index of the entry a front-end shows at `now`: the last whose date is not after it, or the
    /// first when all are in the future.
    public static func currentIndex(of entries: [TimelineEntry], at now: Date) -> Int {
        var current = 0
        for (index, entry) in entries.enumerated() where entry.date <= now { current = index }
        return current
    }

    /// The status badge; when the snapshot has an error (or, fresh, warnings), a disclosure that shows it
    /// on a tap, with the same text as its tooltip.
    static func badge(_ snapshot: Snapshot) -> String {
        let status = snapshot.status.rawValue
        let notes = snapshot.error.map { [$0] } ?? snapshot.warnings
        guard !notes.isEmpty else {
            return "<span class=\"badge badge-\(status)\">\(status)</span>"
        }
        let warned = snapshot.error == nil
        let kind = warned ? " badge-warned" : ""
        return
            "<details class=\"badge badge-\(status)\(kind)\"><summary title=\"\(HTMLText.escape(notes.joined(separator: "\n")))\">\(status)"
            + (warned ? warningIcon : infoIcon) + "</summary>"
            + "<div class=\"error\">" + notes.map { "<p>\(HTMLText.escape($0))</p>" }.joined() + "</div></details>"
    }

    /// The icon of a badge with an error behind it: an `i` in a circle, drawn inline in the badge's
    /// colour (`currentColor`), so that it needs no font that has the glyph, and reads in light and dark.
    public static let infoIcon =
        #"<svg class="badge-icon" viewBox="0 0 16 16" width="12" height="12" aria-hidden="true" focusable="false">"#
        + #"<circle cx="8" cy="8" r="6.75" fill="none" stroke="currentColor" stroke-width="1.5"/>"#
        + #"<rect x="7.2" y="6.8" width="1.6" height="5" rx=".5" fill="currentColor"/><circle cx="8" cy="4.6" r="1" fill="currentColor"/></svg>"#

    /// The icon of a fresh badge with warnings behind it: an `!` in a triangle, drawn as ``infoIcon`` is.
    public static let warningIcon =
        #"<svg class="badge-icon" viewBox="0 0 16 16" width="12" height="12" aria-hidden="true" focusable="false">"#
        + #"<path d="M8 1.6 15.2 14.4H.8Z" fill="none" stroke="currentColor" stroke-width="1.4" stroke-linejoin="round"/>"#
        + #"<rect x="7.25" y="5.8" width="1.5" height="4.6" rx=".5" fill="currentColor"/><circle cx="8" cy="12.2" r=".9" fill="currentColor"/></svg>"#

    /// A `<time>` the script rewrites as "3 min ago" or "in 12 min"; without it, the UTC time.
    static func time(_ date: Date) -> String {
        let stamp = Timestamp.string(date)
        // A timestamp is ASCII: `2026-11-22T05:00:03Z` is shown `2026-11-22 05:00:03 UTC`.
        var bytes = Array(stamp.utf8)
        if let separator = bytes.firstIndex(of: UInt8(ascii: "T")) { bytes[separator] = UInt8(ascii: " ") }
        if bytes.last == UInt8(ascii: "Z") { bytes.replaceSubrange((bytes.count - 1)..., with: " UTC".utf8) }
        let shown = String(decoding: bytes, as: UTF8.self)
        return "<time datetime=\"\(stamp)\" data-relative>\(shown)</time>"
    }
}
