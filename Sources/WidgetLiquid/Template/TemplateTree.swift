public import WidgetJSON

/// A JSON value whose strings are templates: an object of fields, a request body, a placeholder.
///
/// Every string that contains `{{` is compiled once; rendering replaces each with its value (a string
/// that is exactly one `{{ … }}` keeps the value's type). Other values are kept as written.
///
/// ```swift
/// let fields = try TemplateTree(["title": "{{ title | upcase }}", "price": "{{ price | times: 2 }}"])
/// let item = try fields.render(scope)   // {"title": "…", "price": 25.0}
/// ```
public indirect enum TemplateTree: Sendable, Hashable, Decodable {
    /// A value kept as written: `null`, a Boolean, a number, or a string without `{{` or `{%`.
    case literal(WidgetValue)
    /// A string with template markup (`{{` or `{%`), compiled once and rendered on each render.
    case template(Template)
    /// An array, each element a tree of its own.
    case array([TemplateTree])
    /// An object, its members in the order they are written.
    case object([(key: String, value: TemplateTree)])

    /// Compiles every template in `value`.
    ///
    /// - Throws: ``TemplateTreeError`` with the path of the bad template and the column inside it.
    public init(_ value: WidgetValue, filters: FilterRegistry = .standard) throws(TemplateTreeError) {
        try self.init(value, path: .root) { text throws(ExpressionError) in try Template(text, filters: filters) }
    }

    private init(_ value: WidgetValue, path: ValuePath, compile: (String) throws(ExpressionError) -> Template) throws(TemplateTreeError) {
        switch value {
        case .string(let text) where text.hasTemplateMarkup:
            do {
                self = .template(try compile(text))
            } catch {
                throw TemplateTreeError(path: path, error: error)
            }
        case .array(let elements):
            var trees: [TemplateTree] = []
            for (index, element) in elements.enumerated() {
                trees.append(try TemplateTree(element, path: path.appending(index: index), compile: compile))
            }
            self = .array(trees)
        case .object(let object):
            var members: [(key: String, value: TemplateTree)] = []
            for (key, member) in object {
                members.append((key, try TemplateTree(member, path: path.appending(key), compile: compile)))
            }
            self = .object(members)
        default:
            self = .literal(value)
        }
    }

    public init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer().decode(WidgetValue.self)
        try self.init(
            decoded: value, cache: TemplateCache.of(decoder),
            filters: decoder.userInfo[FilterRegistry.userInfoKey] as? FilterRegistry ?? .standard, codingPath: decoder.codingPath)
    }

    /// What ``init(from:)`` makes of `value`, read at `codingPath`: compiled by `cache` when there is one,
    /// else with `filters`; a bad template becomes the same `DecodingError.dataCorrupted`.
    package init(
        decoded value: WidgetValue, cache: TemplateCache?, filters: @autoclosure () -> FilterRegistry,
        codingPath: @autoclosure () -> [any CodingKey]
    ) throws {
        do throws(TemplateTreeError) {
            if let cache {
                try self.init(value, path: .root, compile: cache.template)
            } else {
                try self.init(value, filters: filters())
            }
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath(), debugDescription: error.message, underlyingError: error)
            )
        }
    }

    /// Renders every template with `scope`.
    ///
    /// - Throws: `ExpressionError` from a filter that fails.
    public func render(_ scope: TemplateScope) throws(ExpressionError) -> WidgetValue {
        switch self {
        case .literal(let value):
            return value
        case .template(let template):
            return try template.render(scope)
        case .array(let trees):
            var values: [WidgetValue] = []
            values.reserveCapacity(trees.count)
            for tree in trees { values.append(try tree.render(scope)) }
            return .array(values)
        case .object(let members):
            var object = WidgetObject()
            for member in members { object.appendUnchecked(key: member.key, value: try member.value.render(scope)) }
            return .object(object)
        }
    }

    /// The root variable names the templates use.
    public var variables: Set<String> { names(\.variables) }

    /// The root names the templates read that they do not set themselves (see ``Template/freeVariables``).
    public var freeVariables: Set<String> { names(\.freeVariables) }

    /// The union of `names` over every template of the tree.
    private func names(_ names: (Template) -> Set<String>) -> Set<String> {
        switch self {
        case .literal: []
        case .template(let template): names(template)
        case .array(let trees): trees.reduce(into: []) { $0.formUnion($1.names(names)) }
        case .object(let members): members.reduce(into: []) { $0.formUnion($1.value.names(names)) }
        }
    }

    public static func == (lhs: TemplateTree, rhs: TemplateTree) -> Bool {
        switch (lhs, rhs) {
        case (.literal(let a), .literal(let b)): a == b
        case (.template(let a), .template(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .literal(let value): hasher.combine(value)
        case .template(let template): hasher.combine(template)
        case .array(let trees): hasher.combine(trees)
        case .object(let members):
            for member in members {
                hasher.combine(member.key)
                hasher.combine(member.value)
            }
        }
    }
}

/// A template of a ``TemplateTree`` that does not compile, with its place in the tree.
public struct TemplateTreeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where the bad template is, relative to the tree's root.
    public var path: ValuePath
    /// What is wrong with the template, and the column in it.
    public var error: ExpressionError

    /// Creates an error for the template at `path`.
    public init(path: ValuePath, error: ExpressionError) {
        self.path = path
        self.error = error
    }

    /// What is wrong and what would work, as a sentence without the path.
    public var message: String { error.description }

    public var description: String { "\(path): \(message)" }
}
