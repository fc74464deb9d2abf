public import WidgetCore
public import WidgetJSON
public import WidgetLiquid

/// Keeps the items of a list that pass a test.
///
/// - `{"type": "filter", "where": "@.image != null && @.price > 10"}`: an RFC 9535 filter expression,
///   with `@` the item and `$` the whole list.
/// - `{"type": "filter", "if": "{{ image }}"}`: a template, true unless it gives `nil`, `false` or an
///   empty string (Liquid's truthiness, plus the empty string; `0` and `[]` are true).
public struct FilterTransform: Transformer {
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// An RFC 9535 filter expression, `@` the item and `$` the whole list; give this or `if`.
        public var `where`: JSONPathFilter?
        /// A template that keeps the item unless it gives `nil`, `false` or `""`; give this or `where`.
        public var `if`: Template?

        public enum CodingKeys: String, DescribedKey {
            case `where`, `if`

            public var keyDescription: KeyDescription {
                switch self {
                case .where: ItemTest.whereDescription
                case .if: ItemTest.ifDescription
                }
            }
        }

        public static var exactlyOneOf: [CodingKeys] { [.where, .if] }
    }

    public static let typeName = "filter"
    public static let summary = "Keeps the items of a list that pass a JSONPath filter or a template."

    let test: ItemTest

    public init(options: Options) throws {
        guard (options.where == nil) != (options.if == nil), let test = try ItemTest(where: options.where, if: options.if) else {
            throw StageError("a filter needs exactly one of \"where\" (a JSONPath filter such as \"@.price > 10\") or \"if\" (a template)")
        }
        self.test = test
    }

    public func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue {
        guard case .array(let items) = value else {
            throw StageError("filter needs a list, but the value is \(value.typeName); select a list first")
        }
        var scope = context.templateScope()
        var kept: [WidgetValue] = []
        for (index, item) in items.enumerated() {
            try Task.checkCancellation()
            scope.item = item
            do {
                if try test.passes(item, root: value, scope: scope) { kept.append(item) }
            } catch {
                throw StageError("the \"if\" template failed on item \(index): \(error)")
            }
        }
        return .array(kept)
    }
}
