public import WidgetCore
public import WidgetJSON
public import WidgetLiquid

/// Adds fields to each item from the first case whose test it passes: an if / else-if / else chain.
///
/// ```json
/// {"type": "choose", "cases": [
///   {"where": "@.costBasis > 0",
///    "fields": {"pnlPercentage": "{{ currentValue | divided_by: costBasis | minus: 1 | times: 100 }}"}},
///   {"fields": {"pnlPercentage": 0}}]}
/// ```
///
/// - A case tests each item as ``FilterTransform`` does, with `where` (an RFC 9535 filter expression, `@`
///   the item, `$` the whole value) or `if` (a template that passes unless it gives `nil`, `false` or an
///   empty string); a case with neither is the "otherwise" that every item passes, and must come last.
/// - Only the chosen case's `fields` are rendered, with the item's members as root names as in ``MapTransform``,
///   so a case can compute what would fail for the other items (divide by what its test made non-zero).
///   The fields are added to the item, which must be an object; an item that no case matches is kept
///   unchanged.
/// - The items are those of the value when it is a list, or the value itself. `each`, a JSONPath, picks
///   them inside the value instead, and the rest of the value is kept:
///   `{"type": "choose", "each": "$.torrents[*]", "cases": […]}` labels every torrent of
///   `{"session": {…}, "torrents": […]}` and leaves `session` as it was.
public struct ChooseTransform: Transformer {
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// The cases, tried in order.
        public var cases: [Case]
        /// A JSONPath to the items inside the value; default: the value's items, or the value itself.
        public var each: JSONPath?

        public enum CodingKeys: String, DescribedKey {
            case cases, each

            public var keyDescription: KeyDescription {
                switch self {
                case .cases:
                    KeyDescription(
                        "The cases, tried in order: the first whose test an item passes adds its fields; a case without a test (the otherwise case) comes last.",
                        .array(.object(Case.shape), minItems: 1), required: true,
                        fix: #"is empty; give at least one, e.g. [{"where": "@.price > 0", "fields": {"onSale": true}}]"#
                    )
                case .each:
                    KeyDescription(
                        "A JSONPath to the items inside the value; the rest is kept. By default the value's items, or the value itself.",
                        .jsonPath)
                }
            }
        }
    }

    /// One case: a test (or none) and the fields it adds.
    public struct Case: Decodable, Sendable, DescribedOptions {
        /// An RFC 9535 filter expression the item must pass, `@` the item and `$` the whole value; not with `if`.
        public var `where`: JSONPathFilter?
        /// A template that passes unless it gives `nil`, `false` or `""`, the item's members in scope; not with `where`.
        public var `if`: Template?
        /// Field name → template (or any JSON value, kept as written).
        public var fields: TemplateTree

        public enum CodingKeys: String, DescribedKey {
            case `where`, `if`, fields

            public var keyDescription: KeyDescription {
                switch self {
                case .where: ItemTest.whereDescription
                case .if: ItemTest.ifDescription
                case .fields:
                    KeyDescription(
                        "The fields this case adds: each name and template (or any JSON value, kept as written).", .map(.any),
                        required: true)
                }
            }
        }

        public static var atMostOneOf: [CodingKeys] { [.where, .if] }
    }

    public static let typeName = "choose"
    public static let summary = "Adds fields to each item from the first case whose test it passes (if / else if / else)."

    /// A case, checked.
    struct Rule: Sendable {
        /// `nil`: the "otherwise" case.
        var test: ItemTest?
        var fields: [(key: String, value: TemplateTree)]
    }

    let rules: [Rule]
    let each: JSONPath?

    /// Checks the cases.
    ///
    /// - Throws: A `StageError` when there are no cases, a case has both `where` and `if`, its `fields`
    ///   are not an object, or a case without a test comes before others (which could then never be chosen).
    public init(options: Options) throws {
        var rules: [Rule] = []
        for (index, option) in options.cases.enumerated() {
            let test: ItemTest?
            do {
                test = try ItemTest(where: option.where, if: option.if)
            } catch let error as StageError {
                throw StageError("case \(index): \(error.message)", option: Options.CodingKeys.cases)
            }
            guard case .object(let fields) = option.fields else {
                throw StageError(
                    "case \(index): \"fields\" must be an object of field names and templates, e.g. {\"label\": \"{{ name }}\"}",
                    option: Options.CodingKeys.cases)
            }
            if test == nil, index < options.cases.count - 1 {
                throw StageError(
                    "case \(index) has no \"where\" or \"if\", so every item takes it and the cases after it can never be chosen; move it last",
                    option: Options.CodingKeys.cases
                )
            }
            rules.append(Rule(test: test, fields: fields))
        }
        self.rules = rules
        each = options.each
    }

    public func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue {
        var scope = context.templateScope()
        func apply(_ item: WidgetValue, place: String) throws -> WidgetValue {
            scope.item = item
            for (index, rule) in rules.enumerated() {
                if let test = rule.test {
                    let passed: Bool
                    do {
                        passed = try test.passes(item, root: value, scope: scope)
                    } catch {
                        throw StageError("the \"if\" template of case \(index) failed on \(place): \(error)")
                    }
                    guard passed else { continue }
                }
                guard case .object(var object) = item else {
                    throw StageError("choose adds fields to objects, but \(place) is \(item.typeName)")
                }
                for field in rule.fields {
                    do {
                        object[field.key] = try field.value.render(scope)
                    } catch {
                        var failure = StageError("the \"\(field.key)\" field of case \(index) failed on \(place): \(error)")
                        failure.template = StageError.TemplatePlace(
                            path: ValuePath.root.appending("cases").appending(index: index).appending("fields").appending(field.key),
                            column: error.column)
                        throw failure
                    }
                }
                return .object(object)
            }
            return item
        }
        if let each {
            var replacements: [(path: ValuePath, value: WidgetValue)] = []
            for (location, item) in each.locate(value) {
                replacements.append((location, try apply(item, place: location.normalizedPath)))
            }
            return value.replacing(replacements)
        }
        if case .array(let items) = value {
            var result: [WidgetValue] = []
            result.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                try Task.checkCancellation()
                result.append(try apply(item, place: "item \(index)"))
            }
            return .array(result)
        }
        return try apply(value, place: "the value")
    }
}
