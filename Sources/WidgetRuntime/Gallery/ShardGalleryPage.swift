import Foundation
import WidgetCore

/// The gallery of N shards: `index.html` when daemons run with `--shard K/N` into one output.
///
/// Each shard writes its own part: `shards/K-of-N.json` (its widgets, as `index.json` lists them
/// without shards, with the part's `generation`) and `shards/K-of-N.html` (the gallery page of its cards).
/// This page holds no card itself: served over HTTP (a bucket, a CDN, any static file server), its
/// script reads every part, shows all their cards in one grid sorted by id, polls the parts every
/// ``GalleryPage/pollSeconds`` and fetches a part's page again only when the part's `generation`
/// changed. A line per shard says how it is: "shard 2/3: 12 widgets, wrote 1 min ago", "shard 2/3
/// has not written yet", or, once the part is more than two minutes past its `nextWriteAt` (the earliest
/// next refresh of its widgets) or can no longer be read, "shard 2/3 last wrote 5 min ago".
///
/// Its bytes depend only on N and this version of widgetd, so every shard writes the same page and the
/// shards never undo each other's write (and a bucket's unchanged object costs no PUT). It uses
/// ``GalleryPage``'s style and script, and so its Content-Security-Policy.
///
/// ```swift
/// let html = ShardGalleryPage(count: 3).html   // reads shards/1-of-3.json … shards/3-of-3.json
/// ```
public struct ShardGalleryPage: Sendable, Equatable {
    /// N: how many shards write parts.
    public var count: Int

    /// The gallery of `count` shards.
    public init(count: Int) {
        self.count = count
    }

    /// The page's HTML.
    public var html: String {
        let title = GalleryPage.defaultTitle
        var html = """
            <!doctype html>
            <html lang="en" data-family="medium">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="\(GalleryPage.contentSecurityPolicy)">
            <meta name="color-scheme" content="light dark">
            <meta name="referrer" content="no-referrer">
            <meta name="widgetd-shards" content="\(count)">
            <meta name="widgetd-poll" content="\(GalleryPage.pollSeconds)">
            <title>\(title)</title>
            <style>\(GalleryPage.style)</style>
            </head>
            <body>
            <header class="top"><h1>\(title)</h1><p class="meta" id="meta">\(count == 1 ? "1 shard" : "\(count) shards")</p>
            \(GalleryPage.familySwitch)</header>
            <ul class="shard-list" id="shards" aria-label="Shards">

            """
        for number in stride(from: 1, through: count, by: 1) {
            html += "<li id=\"shard-\(number)\" data-state=\"missing\">shard \(number)/\(count): not read yet</li>\n"
        }
        html += "</ul>\n"
        html +=
            "<p class=\"shard-note muted\">The cards of every shard show when this page is served over HTTP (the bucket, a CDN, "
            + "or any static file server): it reads each shard's part, <code>shards/K-of-\(count).json</code>.</p>\n"
        html += GalleryPage.mainOpening
        html += GalleryPage.ending
        return html
    }
}
