public import Foundation
public import WidgetCore

/// The gallery's files: `OUT/index.html` (every widget) and `OUT/<id>.html` (one widget). A widget's
/// page also keeps its rendered card, from which the gallery of every widget is assembled without
/// rendering every view again: a refresh creates two files, its snapshot and its page, not three.
extension SnapshotStore {
    /// `OUT/index.html`: the gallery page of every widget.
    public var galleryFile: URL { directory.appendingPathComponent("index.html") }

    /// `OUT/<id>.html`: the page of one widget, which holds its card.
    public func pageFile(for id: String) -> URL { directory.appendingPathComponent("\(id).html") }
    /// The path of ``pageFile(for:)``.
    func pagePath(for id: String) -> String { "\(path)/\(id).html" }

    /// Renders the card of `snapshot` with its widget's `definition` (its view), as of the snapshot's
    /// `generatedAt`, and writes the widget's page with it. The folder is not flushed: the caller's
    /// ``syncFolders()`` does. Neither is the content: the page is made again from the snapshot, so it is
    /// replaced whole by a rename but not flushed to disk (see ``AtomicFile``).
    ///
    /// - Returns: The card.
    @discardableResult
    public func writeCard(of snapshot: Snapshot, definition: WidgetDefinition?) throws(AtomicFileError) -> GalleryCard {
        let (card, page) = GalleryPage.widgetPage(for: snapshot, definition: definition)
        try AtomicFile.write(Data(page.html.utf8), toPath: pagePath(for: snapshot.id), syncsFolder: false, syncsData: false)
        return card
    }

    /// The widget's card as last written, read from its page; `nil` when there is none, or the page is
    /// not one this version wrote.
    public func card(for id: String) -> GalleryCard? {
        guard let data = AtomicFile.contentsWithoutFollowingLinks(atPath: pagePath(for: id)) else { return nil }
        return GalleryPage.card(inPage: String(decoding: data, as: UTF8.self), id: id)
    }

    /// Deletes the widget's page (one that could not be rewritten is out of date), so that the next
    /// gallery renders its card again from the snapshot and writes the page anew.
    public func removeCard(for id: String) {
        try? FileManager.default.removeItem(at: pageFile(for: id))
    }

    /// Writes `OUT/index.html` with `cards`, in order. With a ``shard``, writes the shard's page
    /// `OUT/shards/K-of-N.html` with them instead, and `OUT/index.html` as the gallery of every shard
    /// (``ShardGalleryPage``).
    ///
    /// - Returns: The page written, whose ``GalleryPage/generation`` `index.json` (or the shard's part) carries.
    @discardableResult
    public func writeGallery(_ cards: [GalleryCard], writtenAt: Date) throws(AtomicFileError) -> GalleryPage {
        if let shard { return try writeShardGallery(cards, writtenAt: writtenAt, shard: shard) }
        let page = GalleryPage(title: GalleryPage.defaultTitle, cards: cards, writtenAt: writtenAt)
        try AtomicFile.write(Data(page.html.utf8), to: galleryFile)
        return page
    }
}
