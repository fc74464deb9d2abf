import WidgetCore
import WidgetJSON
import WidgetLiquid

/// A test an item passes or not, as the `filter` and `choose` transforms write it: `"where"`, an RFC 9535
/// filter expression with `@` the item and `$` the whole value, or `"if"`, a template that passes unless
/// it gives `nil`, `false` or an empty string (``WidgetValue/passesTest``).
enum ItemTest: Sendable {
    case path(JSONPathFilter)
    case template(Template)

    /// The `where` key, for the schema.
    static let whereDescription = KeyDescription(
        "Keep the items that pass this JSONPath filter expression: @ is the item, $ the whole value.", .jsonPathFilter
    )

    /// The `if` key, for the schema.
    static let ifDescription = KeyDescription(
        "Keep the items for which this template gives anything but nil, false or \"\"; the item's fields are in scope.", .template
    )

    /// The test of a stage's `where` and `if` options: at most one of them; `nil` for neither.
    ///
    /// - Throws: A ``StageError`` when both are given.
    init?(where filter: JSONPathFilter?, if template: Template?) throws {
        switch (filter, template) {
        case (let filter?, nil): self = .path(filter)
        case (nil, let template?): self = .template(template)
        case (nil, nil): return nil
        case (_?, _?):
            throw StageError("give either \"where\" (a JSONPath filter such as \"@.price > 10\") or \"if\" (a template), not both")
        }
    }

    /// Whether `item` passes; `scope` is the templates' scope, its item already set to `item`.
    ///
    /// - Throws: The template's error, for the caller to place.
    func passes(_ item: WidgetValue, root: WidgetValue, scope: TemplateScope) throws -> Bool {
        switch self {
        case .path(let filter): filter.matches(item, root: root)
        case .template(let template): try template.test(scope)
        }
    }
}
