public import WidgetCore

/// Keeps the items of a list that pass a test.
///
/// - `{"type": "filter", "where": "@.image != null && @.price > 10"}`: an RFC 9535 filter expression,
///   with `@` the item and `$` the whole list.
/// - `{"type": "filter", "if": "{{ image }}"}`: a template, true unless it gives `nil`, `false` or an
///   empty string (Liquid's truthiness, plus the empty string; `0` and `[]` are true).
public struct FilterTransform: Transformer {
    public struct Options: Decodable, Sendable {
        public var `where`: JSONPathFilter?
        public var `if`: Template?
    }

    public static let typeName = "filter"
    public static let summary = "Keeps the items of a list that pass a JSONPath filter or a template."

    enum Test: Sendable {
        case path(JSONPathFilter)
        case template(Template)
    }

    let test: Test

    public init(options: Options) throws {
        switch (options.where, options.if) {
        case (let filter?, nil): test = .path(filter)
        case (nil, let template?): test = .template(template)
        default:
            throw StageError("a filter needs exactly one of \"where\" (a JSONPath filter such as \"@.price > 10\") or \"if\" (a template)")
        }
    }

    public func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue {
        guard case .array(let items) = value else {
            throw StageError("filter needs a list, but the value is \(value.typeName); select a list first")
        }
        switch test {
        case .path(let filter):
            return .array(items.filter { filter.matches($0, root: value) })
        case .template(let template):
            var scope = context.templateScope()
            var kept: [WidgetValue] = []
            for (index, item) in items.enumerated() {
                scope.item = item
                let result: WidgetValue
                do {
                    result = try template.render(scope)
                } catch {
                    throw StageError("the \"if\" template failed on item \(index): \(error)")
                }
                if result.isTruthy, result != .string("") { kept.append(item) }
            }
            return .array(kept)
        }
    }
}
