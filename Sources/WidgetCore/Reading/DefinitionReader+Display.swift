import Foundation
import WidgetJSON
import WidgetLiquid

// MARK: - Title and placeholder

extension DefinitionReader.Session {
    /// The variables a title or a placeholder may read. Both are rendered once, when the definition loads
    /// (so `list`, `status`, the index and every snapshot show the same text, and a placeholder is there
    /// before the first refresh): no data, input or time is known then.
    static let displayVariables: Set<String> = ["params", "widget"]

    /// Two moments at which a title or placeholder is rendered: one that reads the time (`'now' | date`)
    /// renders differently at each, and is reported, since it would be frozen at the moment of loading.
    private static let probeMoments = [
        Date(timeIntervalSinceReferenceDate: 0),
        Date(timeIntervalSinceReferenceDate: 400 * 86_400 + 3 * 3_600 + 7 * 60 + 11),
    ]

    /// Renders `definition`'s title and the templates in its placeholder with its `params` and `widget`
    /// (`id`, `timeZone`, and for the placeholder the rendered `title`), once, when the definition loads.
    ///
    /// A template that reads anything else (`inputs`, `now`, an item's field), depends on the time, or fails
    /// to render is reported at its place; the value is then left as written (the file has a problem, so
    /// no widget is made from it).
    mutating func renderDisplay(_ definition: inout WidgetDefinition, instance: DefinitionDocument.Instance?) {
        let instancePath = instance.map { ValuePath.root.appending("instances").appending(index: $0.index) }
        if let title = definition.title, title.hasTemplateMarkup {
            let path = (instance?.title != nil ? instancePath ?? .root : .root).appending("title")
            let context = StageContext(widgetID: definition.id, now: Self.probeMoments[0], timeZone: definition.timeZone)
            if let rendered = renderDisplayText(
                title, what: "title", at: path, widget: context.widgetValue, for: definition, instance: instance)
            {
                definition.title = rendered.string
            }
        }
        if let placeholder = definition.placeholder, Self.hasTemplateMarkup(placeholder) {
            let path = (instance?.placeholder != nil ? instancePath ?? .root : .root).appending("placeholder")
            let context = StageContext(
                widgetID: definition.id, widgetTitle: definition.title, now: Self.probeMoments[0], timeZone: definition.timeZone)
            var components = path.components
            definition.placeholder = renderDisplayTree(
                placeholder, at: &components, widget: context.widgetValue, for: definition, instance: instance)
        }
    }

    /// Whether any string of `value` has template markup.
    private static func hasTemplateMarkup(_ value: WidgetValue) -> Bool {
        switch value {
        case .string(let text): text.hasTemplateMarkup
        case .array(let elements): elements.contains(where: hasTemplateMarkup)
        case .object(let object): object.contains { hasTemplateMarkup($0.value) }
        default: false
        }
    }

    /// `value` with each template string rendered (see ``renderDisplay(_:instance:)``).
    private mutating func renderDisplayTree(
        _ value: WidgetValue,
        at components: inout [ValuePath.Component],
        widget: WidgetValue,
        for definition: WidgetDefinition,
        instance: DefinitionDocument.Instance?
    ) -> WidgetValue {
        switch value {
        case .string(let text) where text.hasTemplateMarkup:
            let path = ValuePath(components: components)
            return renderDisplayText(
                text, what: "placeholder", at: path, widget: widget, for: definition, instance: instance, asText: false)
                ?? value
        case .array(let elements):
            var rendered: [WidgetValue] = []
            for (index, element) in elements.enumerated() {
                components.append(.index(index))
                rendered.append(renderDisplayTree(element, at: &components, widget: widget, for: definition, instance: instance))
                components.removeLast()
            }
            return .array(rendered)
        case .object(let object):
            var rendered = WidgetObject()
            for (key, member) in object {
                components.append(.key(key))
                rendered[key] = renderDisplayTree(member, at: &components, widget: widget, for: definition, instance: instance)
                components.removeLast()
            }
            return .object(rendered)
        default:
            return value
        }
    }

    /// One template of a title or placeholder, rendered; `nil` when it has a problem (reported at `path`).
    ///
    /// - Parameter asText: render as text (a title), instead of keeping the type of a template that is
    ///   exactly one `{{ … }}` (a placeholder's values).
    private mutating func renderDisplayText(
        _ text: String,
        what: String,
        at path: ValuePath,
        widget: WidgetValue,
        for definition: WidgetDefinition,
        instance: DefinitionDocument.Instance?,
        asText: Bool = true
    ) -> WidgetValue? {
        let template: Template
        do {
            template = try templates.template(text)
        } catch {
            report(path, error.description, column: error.column)
            return nil
        }
        // `env` and `secret` are reported by the secrets check, as everywhere outside a source.
        let secrets = Set(SecretStore.Namespace.allCases.map(\.rawValue))
        let unknown = template.freeVariables.subtracting(Self.displayVariables).subtracting(secrets).sorted()
        if !secrets.isDisjoint(with: template.variables) { return nil }
        if let name = unknown.first {
            let hint =
                ["inputs", "now", "item"].contains(name)
                ? "data and the time are not known then; show them in the entries (a \"map\" transform) instead"
                : "write params.\(name) and set \"\(name)\" in each instance's \"params\""
            report(
                path,
                "the \(what) is rendered once, when the definition loads, with params and widget only: \"\(name)\" is not known then; \(hint)"
            )
            return nil
        }
        // Once a template of the file spent the steps (and was reported), the others are not run.
        guard !templateSteps.isSpent else { return nil }
        let owner = instance.map { " for the instance \"\($0.id)\"" } ?? ""
        var scope = TemplateScope(
            globals: ["params": .object(definition.params), "widget": widget], now: Self.probeMoments[0], timeZone: definition.timeZone)
        scope.strictVariables = true
        var results: [WidgetValue] = []
        for moment in Self.probeMoments {
            scope.now = moment
            scope.budget = RenderBudget()
            scope.steps = templateSteps
            do {
                results.append(asText ? .string(try template.renderString(scope)) : try template.render(scope))
            } catch {
                report(path, "the \(what) cannot be rendered\(owner): \(error)")
                return nil
            }
        }
        guard results[0] == results[1] else {
            report(
                path,
                "the \(what) changes with the time ('now'), but it is rendered once, when the definition loads; date the entries instead (a \"map\" transform or the timeline)"
            )
            return nil
        }
        return results[0]
    }
}
