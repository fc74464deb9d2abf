import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetLiquid
import WidgetRuntime

/// One seed widget's view rendered for one family as the gallery renders it, with a history made by hand
/// in its scope: what a card shows once the daemon has kept a few refreshes.
enum SeedView {
    /// The definition of widget `id` in the seed folder `seed` (`004-bitpal-portfolio`).
    static func definition(seed: String, id: String) throws -> WidgetDefinition {
        let widgets = try SeedGalleryTests.definitions(seed: seed, reader: try SeedGalleryTests.definitionReader())
        return try #require(widgets.first { $0.id == id }, "\(seed): \(widgets.map(\.id))")
    }

    /// A fresh snapshot of `definition` at the fixture's clock with one entry of `content` (by default the
    /// definition's placeholder).
    static func snapshot(_ definition: WidgetDefinition, content: WidgetValue? = nil) throws -> Snapshot {
        let now = SeedWidgetsEndToEndTests.start
        return Snapshot(
            id: definition.id, title: nil, status: .fresh, generatedAt: now, lastSuccessAt: now,
            nextRefreshAt: now.addingTimeInterval(900),
            entries: [TimelineEntry(date: now, content: try #require(content ?? definition.placeholder))], error: nil)
    }

    /// The HTML the view of `definition` shows at `family` for the first entry of `snapshot` (by default
    /// ``snapshot(_:content:)``'s), with `history` as the view's `history`.
    static func render(
        _ definition: WidgetDefinition, family: ViewDefinition.Family, snapshot: Snapshot? = nil, history: WidgetObject
    ) throws -> String {
        let snapshot = try snapshot ?? self.snapshot(definition)
        let entry = try #require(snapshot.entries.first)
        let template = try #require(definition.view?.template(for: family), "\(definition.id) has no \(family) view")
        var scope = WidgetViewRenderer.scope(for: entry, of: snapshot, definition: definition, now: SeedWidgetsEndToEndTests.start)
        scope.globals["history"] = .object(history)
        return ViewMarkup.sanitize(try template.renderString(scope))
    }

    /// The gallery page of the one card of `definition` showing `content` (by default its placeholder), its
    /// `family` view drawn with `history`: the card
    /// the gallery writes, its view for that family rendered again with the history in its scope.
    static func page(
        _ definition: WidgetDefinition, family: ViewDefinition.Family, content: WidgetValue? = nil, history: WidgetObject
    ) throws -> String {
        let snapshot = try snapshot(definition, content: content)
        let card = GalleryCard.render(snapshot, definition: definition, now: SeedWidgetsEndToEndTests.start)
        let without = try render(definition, family: family, snapshot: snapshot, history: [:])
        let with = try render(definition, family: family, snapshot: snapshot, history: history)
        try #require(card.html.contains(without), "\(card.html)")
        let drawn = GalleryCard(id: card.id, html: card.html.replacingOccurrences(of: without, with: with))
        return GalleryPage(title: "Widgets", cards: [drawn], writtenAt: SeedWidgetsEndToEndTests.start).html
    }

    /// A series of `values` as the view's `history.NAME` holds it: points a quarter of an hour apart,
    /// oldest first, the last at the fixture's clock.
    static func points(_ values: [String]) -> WidgetValue {
        let end = SeedWidgetsEndToEndTests.start
        return .array(
            values.enumerated().map { offset, value in
                let at = end.addingTimeInterval(Double(offset - values.count + 1) * 900)
                return .object(["at": .string(Timestamp.string(at)), "value": .number(WidgetNumber(value)!)])
            })
    }
}
