public import Foundation
public import WidgetCore

/// The gallery's files: `OUT/index.html` (every widget), `OUT/<id>.html` (one widget) and each widget's
/// rendered card in `OUT/.state/cards/<id>.html`, from which both pages are assembled without rendering
/// every view again.
extension SnapshotStore {
    /// `OUT/index.html`: the gallery page of every widget.
    public var galleryFile: URL { directory.appendingPathComponent("index.html") }

    /// `OUT/<id>.html`: the page of one widget.
    public func pageFile(for id: String) -> URL { directory.appendingPathComponent("\(id).html") }

    /// `OUT/.state/cards/`: each widget's card as last rendered.
    public var cardsDirectory: URL { stateDirectory.appendingPathComponent("cards", isDirectory: true) }

    /// `OUT/.state/cards/<id>.html`: the widget's card as last rendered.
    public func cardFile(for id: String) -> URL { cardsDirectory.appendingPathComponent("\(id).html") }

    /// Renders the card of `snapshot` with its widget's `definition` (its view), as of the snapshot's
    /// `generatedAt`, and writes it with the widget's own page. The folders are not flushed: the caller's
    /// ``syncFolders()`` does. Neither is the content: both are made again from the snapshot, so they are
    /// replaced whole by a rename but not flushed to disk (see ``AtomicFile``).
    ///
    /// - Returns: The card.
    @discardableResult
    public func writeCard(of snapshot: Snapshot, definition: WidgetDefinition?) throws(AtomicFileError) -> GalleryCard {
        let (card, page) = GalleryPage.widgetPage(for: snapshot, definition: definition)
        // A missing folder makes the write below fail with the system's reason.
        try? FileManager.default.createDirectory(at: cardsDirectory, withIntermediateDirectories: true)
        try AtomicFile.write(Data(card.html.utf8), to: cardFile(for: snapshot.id), syncsFolder: false, syncsData: false)
        try AtomicFile.write(Data(page.html.utf8), to: pageFile(for: snapshot.id), syncsFolder: false, syncsData: false)
        return card
    }

    /// The widget's card as last written; `nil` when there is none.
    public func card(for id: String) -> GalleryCard? {
        guard let data = try? Data(contentsOf: cardFile(for: id)) else { return nil }
        return GalleryCard(id: id, html: String(decoding: data, as: UTF8.self))
    }

    /// Forgets the widget's card, so that the next gallery renders it again (its view changed).
    public func removeCard(for id: String) {
        try? FileManager.default.removeItem(at: cardFile(for: id))
    }

    /// Writes `OUT/index.html` with `cards`, in order.
    ///
    /// - Returns: The page written, whose ``GalleryPage/generation`` `index.json` carries.
    @discardableResult
    public func writeGallery(_ cards: [GalleryCard], writtenAt: Date) throws(AtomicFileError) -> GalleryPage {
        let page = GalleryPage(title: GalleryPage.defaultTitle, cards: cards, writtenAt: writtenAt)
        try AtomicFile.write(Data(page.html.utf8), to: galleryFile)
        return page
    }
}
