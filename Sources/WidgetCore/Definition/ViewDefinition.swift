public import Foundation
import WidgetJSON
public import WidgetLiquid

/// A widget's `view`: the Liquid templates that render one entry's content to an HTML fragment for the
/// gallery page, one per family.
///
/// Written as one template for every home-screen size, or as WidgetKit-like families, each optional, with
/// the families the widget offers when it offers fewer than it writes for:
///
/// ```json
/// "view": "<h3>{{ entry.content.title }}</h3>"
/// "view": {"small": "{{ entry.content.total }}", "medium": "{% render 'portfolio' %}"}
/// "view": {"large": "{% render 'artwork' %}", "supportedFamilies": ["large", "extraLarge"]}
/// ```
///
/// A home-screen family (small, medium, large, extra-large) the definition leaves out shows the nearest
/// one it has (``template(for:)``); a lock-screen family (`accessory…`) shows only its own. With
/// `supportedFamilies`, every family outside the list is unavailable. The templates see `widget`,
/// `status`, `entry` and `now`; their outputs are HTML-escaped unless the last filter is `safe`.
/// `{% render 'name' %}` reads `views/name.liquid` beside the definition; ``DefinitionReader`` reads every
/// partial a view names (and those they name) when it reads the definition, so a missing or broken one is
/// a validation error.
public struct ViewDefinition: Sendable {
    /// A size of widget, as WidgetKit's families: four on the home screen, three on the lock screen.
    public enum Family: String, Sendable, CaseIterable, Hashable {
        /// A small square: one figure, one picture.
        case small
        /// The usual card, twice as wide as it is tall; the gallery's default.
        case medium
        /// A tall card with room for lists.
        case large
        /// A wide card, twice a large one (WidgetKit offers it on iPad and Mac).
        case extraLarge
        /// A small circle on the lock screen: a gauge, a figure or a picture.
        case accessoryCircular
        /// A small box of two or three lines on the lock screen.
        case accessoryRectangular
        /// One line of text on the lock screen, above the clock.
        case accessoryInline

        /// The home-screen families, small to extra-large.
        public static let homeScreen: [Family] = [.small, .medium, .large, .extraLarge]
        /// The lock-screen families.
        public static let accessories: [Family] = [.accessoryCircular, .accessoryRectangular, .accessoryInline]

        /// Whether the family is a lock-screen one (`accessory…`).
        public var isAccessory: Bool { Self.accessories.contains(self) }

        /// The families whose template this one shows when the definition writes none for it, nearest
        /// first: home-screen families borrow from each other, lock-screen ones from each other.
        public var neighbours: [Family] {
            switch self {
            case .small: [.medium, .large, .extraLarge]
            case .medium: [.large, .small, .extraLarge]
            case .large: [.medium, .extraLarge, .small]
            case .extraLarge: [.large, .medium, .small]
            case .accessoryCircular: [.accessoryRectangular, .accessoryInline]
            case .accessoryRectangular: [.accessoryCircular, .accessoryInline]
            case .accessoryInline: [.accessoryRectangular, .accessoryCircular]
            }
        }
    }

    /// The templates the definition gives, by family.
    public var templates: [Family: Template]
    /// The families the widget offers, as its `supportedFamilies` lists them; `nil` when it does not say
    /// (every home-screen family, and the lock-screen families it writes).
    public var supportedFamilies: [Family]?
    /// Where `{% render 'name' %}` finds its partials: the `views` folder beside the definition
    /// (`views/name.liquid`), set by ``DefinitionReader``; `nil` when there is none.
    public var partials: (any TemplatePartials)?

    /// A view from its templates (at least one family should have one), the families it offers (`nil`:
    /// as its templates say) and where its partials are.
    public init(templates: [Family: Template], supportedFamilies: [Family]? = nil, partials: (any TemplatePartials)? = nil) {
        self.templates = templates
        self.supportedFamilies = supportedFamilies
        self.partials = partials
    }

    /// The folder of partials beside a definition file: `widgets.d/news.json` reads `widgets.d/views/`.
    public static func partialsFolder(forDefinitionFile file: String) -> URL {
        URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("views", isDirectory: true)
    }

    /// Whether the widget offers `family`: listed in `supportedFamilies` when given; else every
    /// home-screen family and the lock-screen families with a template of their own.
    public func isAvailable(_ family: Family) -> Bool {
        if let supportedFamilies { return supportedFamilies.contains(family) }
        return !family.isAccessory || templates[family] != nil
    }

    /// The template for `family`: its own, else the nearest written neighbour's (``Family/neighbours``);
    /// `nil` when the widget does not offer the family (``isAvailable(_:)``) or nothing is near.
    public func template(for family: Family) -> Template? {
        guard isAvailable(family) else { return nil }
        if let own = templates[family] { return own }
        return family.neighbours.lazy.compactMap { templates[$0] }.first
    }

    /// The families the definition writes a template for, in size order.
    public var families: [Family] { Family.allCases.filter { templates[$0] != nil } }

    /// The families the widget offers, in size order: those ``template(for:)`` renders.
    public var availableFamilies: [Family] { Family.allCases.filter { template(for: $0) != nil } }
}

extension ViewDefinition: Decodable, DescribedOptions {
    /// The families, as keys of the object form, and the list of those the widget offers.
    public enum CodingKeys: String, DescribedKey {
        case small, medium, large, extraLarge, accessoryCircular, accessoryRectangular, accessoryInline, supportedFamilies

        public var keyDescription: KeyDescription {
            switch self {
            case .small: KeyDescription("The template of the small family (a square: one figure or picture).", .string())
            case .medium: KeyDescription("The template of the medium family, the gallery's default card.", .string())
            case .large: KeyDescription("The template of the large family (room for lists).", .string())
            case .extraLarge: KeyDescription("The template of the extra-large family (a wide card, twice a large one).", .string())
            case .accessoryCircular:
                KeyDescription("The template of the lock screen's circular family (a small circle: a gauge or a figure).", .string())
            case .accessoryRectangular:
                KeyDescription("The template of the lock screen's rectangular family (a small box of two or three lines).", .string())
            case .accessoryInline: KeyDescription("The template of the lock screen's inline family (one line of text).", .string())
            case .supportedFamilies:
                KeyDescription(
                    "The families the widget offers, as WidgetKit's supportedFamilies; the gallery shows the others as unavailable. Without it: every home-screen family, and the lock-screen families given a template.",
                    .array(.oneOf(Family.allCases.map(\.rawValue)), minItems: 1))
            }
        }
    }

    /// What the key `view` may hold, for `widgetd schema`.
    static var valueShape: ValueShape { .either([.string(), .object(shape)]) }

    public init(from decoder: any Decoder) throws {
        let decoder = try ValueDecoder(decoder)
        templates = [:]
        supportedFamilies = nil
        if case .string(let text) = decoder.value {
            do throws(ExpressionError) {
                let template = try Template(text, filters: decoder.tracker.filters)
                for family in Family.homeScreen { templates[family] = template }
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
        supportedFamilies = try Self.supportedFamilies(members)
        if templates.isEmpty {
            try members.report(
                nil,
                "\"view\" has no family; give at least one of \"small\", \"medium\", \"large\", \"extraLarge\", \"accessoryCircular\", \"accessoryRectangular\" or \"accessoryInline\""
            )
            return
        }
        for family in supportedFamilies ?? [] where template(for: family) == nil {
            let neighbours = family.neighbours.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            try members.report(
                .supportedFamilies,
                "\"\(family.rawValue)\" is supported but has no template, nor does a neighbour (\(neighbours)); add \"\(family.rawValue)\": \"…\" to \"view\" or remove it from the list"
            )
        }
    }

    /// The list under `supportedFamilies`, each name checked; `nil` when absent or wrong (reported).
    private static func supportedFamilies(_ members: DescribedMembers<CodingKeys>) throws -> [Family]? {
        guard let value = members.value(.supportedFamilies) else { return nil }
        let known = Family.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        guard case .array(let elements) = value, !elements.isEmpty else {
            let written = value.array == nil ? "not \(value.typeName)" : "not an empty one"
            try members.report(
                .supportedFamilies,
                "\"supportedFamilies\" must be a list of families such as [\"large\", \"extraLarge\"], \(written); the families are \(known)"
            )
            return nil
        }
        var families: [Family] = []
        var bad = false
        for (index, element) in elements.enumerated() {
            let path = members.path(.supportedFamilies).appending(index: index)
            guard case .string(let name) = element, let family = Family(rawValue: name) else {
                let written = element.string.map { "\"\($0)\"" } ?? element.typeName
                let hint = element.string.flatMap { Suggestion.hint(for: $0, among: Family.allCases.map(\.rawValue)) }
                try members.decoder.report(
                    OptionsError(
                        path: path, message: "\(written) is not a family\(hint.map { " (\($0))" } ?? ""); write one of \(known)"))
                bad = true
                continue
            }
            if !families.contains(family) { families.append(family) }
        }
        return bad ? nil : families
    }
}
