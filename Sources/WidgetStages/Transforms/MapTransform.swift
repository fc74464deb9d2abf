public import WidgetCore
public import WidgetJSON
public import WidgetLiquid

/// Builds new fields from templates, for each item of a list (or for a single value).
///
/// Each template sees the item's members as root names, and `inputs`, `now`, `widget`, `params` beside
/// them (`item` is the item itself). A field that is exactly one `{{ … }}` keeps the value's type;
/// missing data renders as nil or empty, as in Liquid. With `"merge": true` the new fields are added to
/// the item instead of replacing it.
///
/// ```json
/// {"type": "map", "fields": {
///   "title": "{{ title | strip }}",
///   "image": "https://cdn.example.com/{{ image.token }}/large.jpg",
///   "value": "{{ quantity | times: price }}"}}
/// ```
public struct MapTransform: Transformer {
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// Field name → template (or any JSON value, kept as written).
        public var fields: TemplateTree
        /// Add the fields to the item instead of replacing it.
        public var merge: Bool

        public enum CodingKeys: String, DescribedKey {
            case fields, merge

            public var keyDescription: KeyDescription {
                switch self {
                case .fields:
                    KeyDescription(
                        "Each field's name and template (any other JSON value is kept as written); the item's fields are in scope.",
                        .map(.any), required: true)
                case .merge: KeyDescription("Add the fields to the item instead of replacing it.", .boolean, default: false)
                }
            }
        }
    }

    public static let typeName = "map"
    public static let summary = "Builds each item's fields from templates."

    /// The fields to build, as an object of field names and templates, in the order they are written.
    public let fields: TemplateTree
    /// Whether the fields are added to an object item, replacing members of the same name, rather than
    /// replacing the item; `false` by default. An item that is not an object is replaced either way.
    public let merge: Bool
    /// The members of `fields`, rendered one by one so that a failure names its field.
    private let members: [(key: String, value: TemplateTree)]

    public init(options: Options) throws {
        guard case .object(let members) = options.fields else {
            throw StageError(
                "\"fields\" must be an object of field names and templates, e.g. {\"title\": \"{{ title }}\"}",
                option: Options.CodingKeys.fields)
        }
        fields = options.fields
        merge = options.merge
        self.members = members
    }

    public func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue {
        let base = context.templateScope()
        func apply(_ item: WidgetValue, index: Int?) throws -> WidgetValue {
            var scope = base
            scope.item = item
            var built = WidgetObject()
            for member in members {
                do {
                    built.appendUnchecked(key: member.key, value: try member.value.render(scope))
                } catch {
                    let place = index.map { "item \($0)" } ?? "the value"
                    var failure = StageError("the \"\(member.key)\" field failed on \(place): \(error)")
                    failure.template = StageError.TemplatePlace(
                        path: ValuePath.root.appending("fields").appending(member.key), column: error.column)
                    throw failure
                }
            }
            guard merge, case .object(var object) = item else { return .object(built) }
            for (key, field) in built { object[key] = field }
            return .object(object)
        }
        if case .array(let items) = value {
            var result: [WidgetValue] = []
            result.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                // A refresh stopped at its deadline stops here, not after the last item.
                try Task.checkCancellation()
                result.append(try apply(item, index: index))
            }
            return .array(result)
        }
        return try apply(value, index: nil)
    }
}
