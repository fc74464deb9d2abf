public import WidgetCore
public import WidgetJSON
public import WidgetLiquid

/// Adds fields computed over the whole value — totals, counts, averages — in order, each template seeing
/// the value and the fields computed before it.
///
/// Where ``MapTransform`` builds each item of a list on its own, `compute` reads the value as a whole,
/// as an app's code would after its loop: `let totalValue = holdings.reduce(0) { $0 + $1.currentValue }`.
///
/// - When the value is an object, the fields are added to it, and its members are root names in the
///   templates.
/// - When the value is a list, the result is an object that holds the list under the name given by `as`
///   (default `items`), then the fields; templates read the list by that name.
/// - Fields are rendered in the order they are written, and each is added before the next is rendered, so
///   a later field may use an earlier one (`totalPnL` from `totalValue` and `totalCost`). A field that is
///   already a member is replaced. `item` names the object as built so far; `inputs`, `params`, `now` and
///   `widget` are in scope as everywhere.
///
/// ```json
/// {"type": "compute", "as": "holdings", "fields": {
///   "totalValue": "{{ holdings | sum: 'currentValue' }}",
///   "totalCost": "{{ holdings | sum: 'costBasis' }}",
///   "totalPnL": "{{ totalValue | minus: totalCost }}",
///   "count": "{{ holdings | size }}"}}
/// ```
///
/// turns `[{"currentValue": 10, "costBasis": 8}, {"currentValue": 5, "costBasis": 5}]` into
/// `{"holdings": […], "totalValue": 15, "totalCost": 13, "totalPnL": 2, "count": 2}`.
public struct ComputeTransform: Transformer {
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// Field name → template (or any JSON value, kept as written), rendered in order.
        public var fields: TemplateTree
        /// The name a list value is kept under in the result, and read by in the templates.
        public var `as`: String

        public enum CodingKeys: String, DescribedKey {
            case fields, `as`

            public var keyDescription: KeyDescription {
                switch self {
                case .fields:
                    KeyDescription(
                        "Each field's name and template (any other JSON value is kept as written), rendered in order; the value's members and the fields before are in scope.",
                        .map(.any), required: true)
                case .as:
                    KeyDescription(
                        "When the value is a list: the name it is kept under in the result, and read by in the templates.",
                        .string(pattern: ComputeTransform.namePattern, examples: ["holdings"]),
                        default: .string(ComputeTransform.defaultName))
                }
            }
        }
    }

    public static let typeName = "compute"
    public static let summary = "Adds fields computed over the whole value (totals, counts, averages), each seeing the ones before."

    /// The name a list is kept under when `as` is not given.
    public static let defaultName = "items"
    /// What `as` may be: a name templates can write bare (`holdings`, `open_orders`).
    static let namePattern = "^[A-Za-z_][A-Za-z0-9_]*$"

    /// The fields, in the order they are rendered.
    public let fields: [(key: String, value: TemplateTree)]
    /// The name a list value is kept under.
    public let name: String

    /// Checks the options.
    ///
    /// - Throws: A `StageError` when `fields` is not an object, or `as` is not a name templates can write.
    public init(options: Options) throws {
        guard case .object(let members) = options.fields else {
            throw StageError(
                "\"fields\" must be an object of field names and templates, e.g. {\"total\": \"{{ items | sum: 'price' }}\"}",
                option: Options.CodingKeys.fields)
        }
        fields = members
        name = options.as
        guard ValuePath.isIdentifier(name) else {
            throw StageError(
                "\"as\" is \"\(name)\", which a template cannot read as a name; use letters, digits and _, e.g. \"holdings\"",
                option: Options.CodingKeys.as)
        }
    }

    public func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue {
        var object: WidgetObject
        switch value {
        case .object(let members): object = members
        case .array: object = [name: value]
        default:
            throw StageError("compute needs an object or a list, but the value is \(value.typeName); select one first")
        }
        var scope = context.templateScope()
        for field in fields {
            try Task.checkCancellation()
            scope.item = .object(object)
            do {
                object[field.key] = try field.value.render(scope)
            } catch {
                throw StageError("the \"\(field.key)\" field failed: \(error)")
            }
        }
        return .object(object)
    }
}
