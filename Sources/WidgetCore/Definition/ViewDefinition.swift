public import Foundation
import WidgetJSON
public import WidgetLiquid

/// A widget's `view`: the Liquid templates that render one entry's content to an HTML fragment for the
/// gallery page, one per family.
///
/// Written as one template for every size, or as WidgetKit-like families, each optional:
///
/// ```json
/// "view": "<h3>{{ entry.content.title }}</h3>"
/// "view": {"small": "{{ entry.content.total }}", "medium": "{% render 'portfolio' %}"}
/// ```
///
/// A family the definition leaves out shows the nearest one it has (``template(for:)``). The templates
/// see `widget`, `status`, `entry` and `now`; their outputs are HTML-escaped unless the last filter is
/// `safe`. `{% render 'name' %}` reads `views/name.liquid` beside the definition; ``DefinitionReader``
/// reads every partial a view names (and those they name) when it reads the definition, so a missing or
/// broken one is a validation error.
public struct ViewDefinition: Sendable {
    /// A size of widget, as WidgetKit's families.
    public enum Family: String, Sendable, CaseIterable, Hashable {
        /// A small square: one figure, one picture.
        case small
        /// The usual card; the gallery's default.
        case medium
        /// A tall card with room for lists.
        case large
    }

    /// The templates the definition gives, by family.
    public var templates: [Family: Template]
    /// Where `{% render 'name' %}` finds its partials: the `views` folder beside the definition
    /// (`views/name.liquid`), set by ``DefinitionReader``; `nil` when there is none.
    public var partials: (any TemplatePartials)?

    /// A view from its templates (at least one family should have one) and where its partials are.
    public init(templates: [Family: Template], partials: (any TemplatePartials)? = nil) {
        self.templates = templates
        self.partials = partials
    }

    /// The folder of partials beside a definition file: `widgets.d/news.json` reads `widgets.d/views/`.
    public static func partialsFolder(forDefinitionFile file: String) -> URL {
        URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("views", isDirectory: true)
    }

    /// The template for `family`: its own, else the nearest the definition has (medium, then large, then
    /// small for a missing medium; medium first for the others).
    public func template(for family: Family) -> Template? {
        if let own = templates[family] { return own }
        let order: [Family] =
            switch family {
            case .small: [.medium, .large]
            case .medium: [.large, .small]
            case .large: [.medium, .small]
            }
        return order.lazy.compactMap { templates[$0] }.first
    }

    /// The families the definition writes a template for, in size order.
    public var families: [Family] { Family.allCases.filter { templates[$0] != nil } }
}

extension ViewDefinition: Decodable, DescribedOptions {
    /// The families, as keys of the object form.
    public enum CodingKeys: String, DescribedKey {
        case small, medium, large

        public var keyDescription: KeyDescription {
            switch self {
            case .small: KeyDescription("The template of the small family (a square: one figure or picture).", .string())
            case .medium: KeyDescription("The template of the medium family, the gallery's default card.", .string())
            case .large: KeyDescription("The template of the large family (room for lists).", .string())
            }
        }
    }

    /// What the key `view` may hold, for `widgetd schema`.
    static var valueShape: ValueShape { .either([.string(), .object(shape)]) }

    public init(from decoder: any Decoder) throws {
        let decoder = try ValueDecoder(decoder)
        templates = [:]
        if case .string(let text) = decoder.value {
            do throws(ExpressionError) {
                let template = try Template(text, filters: decoder.tracker.filters)
                for family in Family.allCases { templates[family] = template }
            } catch {
                try decoder.report(OptionsError(path: decoder.path, message: error.description, expressionColumn: error.column))
            }
            return
        }
        let members = try DescribedMembers(decoder, keyedBy: CodingKeys.self) { type in
            "\"view\" must be a template or an object of families such as {\"small\": \"…\", \"medium\": \"…\"}, not \(type)"
        }
        for family in Family.allCases {
            guard let key = CodingKeys(rawValue: family.rawValue), let template = try members.template(key) else { continue }
            templates[family] = template
        }
        if templates.isEmpty {
            try members.report(nil, "\"view\" has no family; give at least one of \"small\", \"medium\" or \"large\"")
        }
    }
}
