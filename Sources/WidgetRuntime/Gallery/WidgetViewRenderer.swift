public import Foundation
public import WidgetCore
public import WidgetJSON
public import WidgetLiquid

/// Renders one timeline entry to the HTML fragment its card shows: with the widget's `view`, or as the
/// generic card.
///
/// A view's templates see `widget` (`id`, `title`, `timeZone`), `params`, `status` (`fresh`, `cached`,
/// `stale` or `placeholder`), `error`, `entry` (`date`, `content`, `relevance`, `url`), `history` (each
/// series with its points, this refresh's included) and `now`. Their
/// `{{ }}` outputs are HTML-escaped unless the last filter is `safe`; the result then passes
/// ``ViewMarkup/sanitize(_:)``. A view that fails to render (a filter's error) shows the error in its
/// place, and the other cards are not affected. The views of one card share one `TemplateSteps`, so a view
/// that loops forever stops with an error naming the limit, and the card is still written.
///
/// The generic card shows the entry's content as it is: an image (a member named `image`, `thumbnail`,
/// `picture`, `photo`, `cover`, `avatar` or `icon`, or any string under `assets/`), a heading (`title`,
/// `name`, `headline`, `text`, `setup` or `message`, linked to the member `link` or `url`), then every other
/// member as a label and its value; a list shows each item as a row with its picture, heading and first
/// other text.
public enum WidgetViewRenderer {
    /// The fragment for `entry` of `snapshot`: one `<div class="view">` per template the definition's view
    /// shows, its `data-family` listing the families it serves (`all` when one template serves every
    /// family), and one `<div class="view view-unavailable">` for the families the widget does not offer.
    ///
    /// Without a view the generic card serves the home-screen families, and the lock-screen ones are
    /// unavailable, as they are for a view written as one template.
    ///
    /// Its templates spend `steps`, shared by the entries of one card; by default a budget of their own,
    /// of the definition's `templateStepLimit`. They read `history` (see `HistoryStore.templateValue(for:now:)`);
    /// `{}` by default.
    public static func render(
        _ entry: TimelineEntry, of snapshot: Snapshot, definition: WidgetDefinition?, now: Date, steps: TemplateSteps? = nil,
        history: WidgetValue = .object([:])
    ) -> String {
        guard let view = definition?.view, let definition else {
            // The generic card needs no sanitizing: its markup is ours, every text in it is escaped and
            // every address passed `ViewMarkup.isSafeURL` (the tests check that sanitizing leaves it as is).
            return
                "<div class=\"view view-generic\" data-family=\"\(familyList(ViewDefinition.Family.homeScreen))\">\(generic(entry.content))</div>"
                + unavailable(ViewDefinition.Family.accessories)
        }
        let steps = steps ?? cardSteps(limit: definition.templateStepLimit)
        // Each template once, for the families it serves, in size order.
        var groups: [(template: Template, families: [ViewDefinition.Family])] = []
        var missing: [ViewDefinition.Family] = []
        for family in ViewDefinition.Family.allCases {
            guard let template = view.template(for: family) else {
                missing.append(family)
                continue
            }
            if let index = groups.firstIndex(where: { $0.template == template }) {
                groups[index].families.append(family)
            } else {
                groups.append((template, [family]))
            }
        }
        var html = ""
        for group in groups {
            let families = group.families.count == ViewDefinition.Family.allCases.count ? "all" : familyList(group.families)
            html += viewHTML(
                group.template, family: families, entry: entry, snapshot: snapshot, definition: definition, now: now, steps: steps,
                history: history)
        }
        return html + unavailable(missing)
    }

    /// The text of a family the widget does not offer.
    public static let unavailableText = "Unavailable in this size"

    /// The box shown for `families`, which the widget does not offer; nothing when there are none.
    static func unavailable(_ families: [ViewDefinition.Family]) -> String {
        guard !families.isEmpty else { return "" }
        return "<div class=\"view view-unavailable\" data-family=\"\(familyList(families))\"><p>\(unavailableText)</p></div>"
    }

    /// `families` as a `data-family` value: their names separated by spaces (CSS matches one with `~=`).
    static func familyList(_ families: [ViewDefinition.Family]) -> String {
        families.map(\.rawValue).joined(separator: " ")
    }

    /// The steps the views of one card may take together: `limit`, the definition's `templateStepLimit`.
    public static func cardSteps(limit: Int = TemplateSteps.defaultLimit) -> TemplateSteps {
        TemplateSteps(limit: limit, for: "the views of one card")
    }

    /// The scope a view renders with; its templates spend `steps`, by default a budget of their own, of
    /// the definition's `templateStepLimit`, and read `history` (`{}` by default).
    public static func scope(
        for entry: TimelineEntry, of snapshot: Snapshot, definition: WidgetDefinition, now: Date, steps: TemplateSteps? = nil,
        history: WidgetValue = .object([:])
    ) -> TemplateScope {
        var entryValue: WidgetObject = ["date": .string(Timestamp.string(entry.date)), "content": entry.content]
        entryValue["relevance"] = entry.relevance.map(WidgetValue.number) ?? .null
        entryValue["url"] = entry.url.map(WidgetValue.string) ?? .null
        let widget: WidgetObject = [
            "id": .string(snapshot.id),
            "title": (snapshot.title ?? definition.title).map(WidgetValue.string) ?? .null,
            "timeZone": .string(definition.timeZone.identifier),
        ]
        let globals: WidgetObject = [
            "widget": .object(widget),
            "params": .object(definition.params),
            "status": .string(snapshot.status.rawValue),
            "error": snapshot.error.map(WidgetValue.string) ?? .null,
            "entry": .object(entryValue),
            "history": history,
            "now": .string(Timestamp.string(now)),
        ]
        var scope = TemplateScope(globals: globals, now: now, timeZone: definition.timeZone)
        scope.escapesHTML = true
        scope.partials = definition.view?.partials
        scope.budget = RenderBudget()
        scope.steps = steps ?? cardSteps(limit: definition.templateStepLimit)
        return scope
    }

    static func viewHTML(
        _ template: Template, family: String, entry: TimelineEntry, snapshot: Snapshot, definition: WidgetDefinition, now: Date,
        steps: TemplateSteps, history: WidgetValue
    ) -> String {
        let body: String
        do {
            body = ViewMarkup.sanitize(
                try template.renderString(
                    scope(for: entry, of: snapshot, definition: definition, now: now, steps: steps, history: history)))
        } catch {
            body = "<p class=\"view-error\">view: \(HTMLText.escape("\(error)"))</p>"
        }
        return "<div class=\"view\" data-family=\"\(family)\">\(body)</div>"
    }

    // MARK: - The generic card

    /// The members that name an entry's picture, in the order they are looked for.
    static let imageKeys = ["image", "thumbnail", "picture", "photo", "cover", "avatar", "icon"]
    /// The members that name an entry, in the order they are looked for.
    static let headingKeys = ["title", "name", "headline", "text", "setup", "message"]
    /// The members that hold an entry's link.
    static let linkKeys = ["link", "url"]
    /// The members a row shows otherwise than as its other text.
    static let rowSkippedKeys = Set(imageKeys + headingKeys + linkKeys)
    /// The most list items the generic card shows.
    static let maximumItems = 20

    /// The generic fragment for `content`.
    static func generic(_ content: WidgetValue) -> String {
        switch content {
        case .object(let object):
            return genericObject(object, depth: 0)
        case .array(let items):
            return items.isEmpty ? "<p class=\"muted\">Nothing to show.</p>" : genericList(items, depth: 0)
        case .null:
            return "<p class=\"muted\">Nothing to show.</p>"
        default:
            return "<p class=\"big\">\(scalar(content))</p>"
        }
    }

    static func genericObject(_ object: WidgetObject, depth: Int) -> String {
        var used: Set<String> = []
        var html = ""
        if let (key, source) = image(in: object) {
            used.insert(key)
            html += "<img class=\"hero\" src=\"\(HTMLText.escape(source))\" alt=\"\">"
        }
        if let (key, heading) = heading(in: object) {
            used.insert(key)
            if let (linkKey, link) = link(in: object) {
                used.insert(linkKey)
                html += "<h3><a href=\"\(HTMLText.escape(link))\">\(HTMLText.escape(heading))</a></h3>"
            } else {
                html += "<h3>\(HTMLText.escape(heading))</h3>"
            }
        }
        let rest = object.filter { !used.contains($0.key) }
        if !rest.isEmpty {
            html += "<dl class=\"fields\">"
            for (key, value) in rest {
                html += "<div><dt>\(HTMLText.escape(key))</dt><dd>\(member(value, depth: depth + 1))</dd></div>"
            }
            html += "</dl>"
        }
        return html
    }

    static func genericList(_ items: [WidgetValue], depth: Int) -> String {
        var html = "<ul class=\"items\">"
        for item in items.prefix(maximumItems) {
            html += "<li>"
            if case .object(let object) = item {
                html += row(object)
            } else {
                html += member(item, depth: depth + 1)
            }
            html += "</li>"
        }
        if items.count > maximumItems { html += "<li class=\"muted\">and \(items.count - maximumItems) more</li>" }
        return html + "</ul>"
    }

    /// One object of a list as a row: its picture, heading and first other text.
    static func row(_ object: WidgetObject) -> String {
        var html = ""
        if let (_, source) = image(in: object) {
            html += "<img class=\"thumb\" src=\"\(HTMLText.escape(source))\" alt=\"\">"
        }
        html += "<div class=\"row-text\">"
        let heading = heading(in: object)
        if let (_, text) = heading {
            if let (_, link) = link(in: object) {
                html += "<a class=\"row-title\" href=\"\(HTMLText.escape(link))\">\(HTMLText.escape(text))</a>"
            } else {
                html += "<span class=\"row-title\">\(HTMLText.escape(text))</span>"
            }
        }
        let other = object.first { key, value in
            guard !rowSkippedKeys.contains(key), key != heading?.0 else { return false }
            switch value {
            case .string(let text): return !text.isEmpty
            case .number, .bool: return true
            default: return false
            }
        }
        if let (key, value) = other {
            html += "<span class=\"muted\">\(HTMLText.escape(key)): \(scalar(value))</span>"
        } else if heading == nil {
            html += member(.object(object), depth: 2)
        }
        return html + "</div>"
    }

    /// A member's value: a scalar as text, a list or object nested (up to two levels, then counted).
    static func member(_ value: WidgetValue, depth: Int) -> String {
        switch value {
        case .array(let items):
            if items.isEmpty { return "<span class=\"muted\">none</span>" }
            if items.allSatisfy({ if case .object = $0 { false } else if case .array = $0 { false } else { true } }) {
                return items.prefix(maximumItems).map(scalar).joined(separator: ", ")
            }
            return depth > 2 ? "<span class=\"muted\">\(items.count) items</span>" : genericList(items, depth: depth)
        case .object(let object):
            return depth > 2 ? "<span class=\"muted\">\(object.count) fields</span>" : genericObject(object, depth: depth)
        default:
            return scalar(value)
        }
    }

    /// A scalar as escaped text; a negative number is marked `neg`, a link is a link.
    static func scalar(_ value: WidgetValue) -> String {
        switch value {
        case .null: return "<span class=\"muted\">—</span>"
        case .bool(let flag): return flag ? "yes" : "no"
        case .number(let number):
            let text = number.description
            return "<span class=\"num\(text.hasPrefix("-") ? " neg" : "")\">\(HTMLText.escape(text))</span>"
        case .string(let text):
            let lowered = text.lowercased()
            if (lowered.hasPrefix("https://") || lowered.hasPrefix("http://")) && ViewMarkup.isSafeURL(text) {
                return "<a href=\"\(HTMLText.escape(text))\">\(HTMLText.escape(text))</a>"
            }
            return HTMLText.escape(text)
        case .array(let items): return "\(items.count) items"
        case .object(let object): return "\(object.count) fields"
        }
    }

    /// The entry's picture: a member named like one, or any string under `assets/`, that is a safe address.
    static func image(in object: WidgetObject) -> (String, String)? {
        for key in imageKeys {
            if case .string(let source)? = object[key], !source.isEmpty, ViewMarkup.isSafeURL(source) { return (key, source) }
        }
        for (key, value) in object {
            if case .string(let source) = value, source.hasPrefix("assets/"), ViewMarkup.isSafeURL(source) { return (key, source) }
        }
        return nil
    }

    static func heading(in object: WidgetObject) -> (String, String)? {
        for key in headingKeys {
            if case .string(let text)? = object[key], !text.isEmpty { return (key, text) }
        }
        return nil
    }

    static func link(in object: WidgetObject) -> (String, String)? {
        for key in linkKeys {
            if case .string(let text)? = object[key], ViewMarkup.isSafeURL(text), !text.hasPrefix("#") { return (key, text) }
        }
        return nil
    }
}
