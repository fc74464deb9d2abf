public import Foundation
public import WidgetCore
public import WidgetJSON

/// The gallery's files: `index.html` (every widget) and `<id>.html` (one widget). A widget's
/// page also keeps its rendered card, from which the gallery of every widget is assembled without
/// rendering every view again: a refresh creates two files, its snapshot and its page, not three.
extension SnapshotStore {
    /// `index.html`.
    public static let galleryKey = "index.html"

    /// The local file of `index.html`, the gallery page of every widget (a folder output's).
    public var galleryFile: URL { directory.appendingPathComponent(SnapshotStore.galleryKey) }

    /// The local file of the widget's page (a folder output's).
    public func pageFile(for id: String) -> URL { directory.appendingPathComponent(pageKey(for: id)) }
    /// `<id>.html`: the page of one widget, which holds its card.
    public func pageKey(for id: String) -> String { "\(id).html" }

    /// Renders the card of `snapshot` with its widget's `definition` (its view), as of the snapshot's
    /// `generatedAt` (its views reading the widget's history, see ``HistoryStore``), and writes the
    /// widget's page with it. The folder is not flushed: the caller's
    /// ``syncFolders()`` does. Neither is the content: the page is made again from the snapshot, so it is
    /// replaced whole but not flushed to disk (``OutputObject/Durability/rebuildable``). It may be cached
    /// as long as the snapshot.
    ///
    /// - Parameters:
    ///   - snapshot: the widget's snapshot.
    ///   - definition: its widget's definition; `nil` for the generic card.
    ///   - history: what the views read as `history`, when the caller has it already (the same
    ///     ``HistoryStore/templateValue(for:now:)`` at the snapshot's `generatedAt`); read here when `nil`.
    /// - Returns: The card.
    @discardableResult
    public func writeCard(
        of snapshot: Snapshot, definition: WidgetDefinition?, history: WidgetValue? = nil
    ) throws(AtomicFileError) -> GalleryCard {
        let seen: WidgetValue =
            history ?? definition.map { self.history.templateValue(for: $0, now: snapshot.generatedAt) } ?? .object([:])
        let (card, page) = GalleryPage.widgetPage(for: snapshot, definition: definition, history: seen)
        var object = OutputObject.page(of: snapshot)
        if marksChanges {
            let fingerprint = SnapshotStore.pageFingerprint(
                snapshot: SnapshotStore.snapshotFingerprint(of: snapshot), definition: definition, history: seen)
            object = object.marked(fingerprint, heartbeat: OutputObject.contentHeartbeat)
            pageFingerprints.set(fingerprint, for: snapshot.id, generation: card.generation)
        }
        try output.write(Data(page.html.utf8), to: pageKey(for: snapshot.id), as: object)
        return card
    }

    /// The widget's card as last written, read from its page; `nil` when there is none, or the page is
    /// not one this version wrote.
    public func card(for id: String) -> GalleryCard? {
        guard let data = output.read(pageKey(for: id)) else { return nil }
        return GalleryPage.card(inPage: String(decoding: data, as: UTF8.self), id: id)
    }

    /// Deletes the widget's page (one that could not be rewritten is out of date), so that the next
    /// gallery renders its card again from the snapshot and writes the page anew.
    public func removeCard(for id: String) {
        output.remove(pageKey(for: id))
        pageFingerprints.remove(id)
    }

    /// Writes `index.html` with `cards`, in order. With a ``shard``, writes the shard's page
    /// `shards/K-of-N.html` with them instead, and `index.html` as the gallery of every shard
    /// (``ShardGalleryPage``).
    ///
    /// - Returns: The page written, whose ``GalleryPage/generation`` `index.json` (or the shard's part) carries.
    @discardableResult
    public func writeGallery(_ cards: [GalleryCard], writtenAt: Date) throws(AtomicFileError) -> GalleryPage {
        if let shard { return try writeShardGallery(cards, writtenAt: writtenAt, shard: shard) }
        let page = GalleryPage(title: GalleryPage.defaultTitle, cards: cards, writtenAt: writtenAt)
        var object = OutputObject.listing(contentType: OutputObject.htmlType)
        if marksChanges {
            object = object.marked(galleryFingerprint(title: page.title, cards: cards), heartbeat: OutputObject.contentHeartbeat)
        }
        try output.write(Data(page.html.utf8), to: SnapshotStore.galleryKey, as: object)
        return page
    }
}
