public import WidgetJSON

/// The filters a template may use: Liquid's standard set plus any a library user adds.
///
/// A registry is a value: ``adding(_:arguments:_:)`` returns a new registry and never changes the one it
/// was called on, so a registry built at start-up can be shared freely. Templates check filter names and
/// argument counts against the registry when they are parsed.
///
/// ```swift
/// let filters = FilterRegistry.standard.adding("permille", arguments: 0...1) { input, arguments, context in
///     let digits = arguments.first?.number?.int ?? 0
///     guard let number = input.number, let double = Double(number.text) else { return .null }
///     return .string(String(format: "%.\(digits)f‰", double * 1000))
/// }
/// let template = try Template("{{ ratio | permille: 1 }}", filters: filters)
/// ```
public struct FilterRegistry: Sendable {
    /// A filter's implementation: the input value, the positional arguments and the call's context.
    public typealias Body =
        @Sendable (WidgetValue, [WidgetValue], FilterContext) throws(ExpressionError)
        -> WidgetValue

    /// One registered filter.
    struct Filter: Sendable {
        var arguments: ClosedRange<Int>
        var body: Body
    }

    private var filters: [String: Filter]

    /// A registry with no filters at all; most users start from ``standard`` instead.
    public static let empty = FilterRegistry(filters: [:])

    /// Shopify Liquid's standard filters (`upcase`, `date`, `plus`, `where`, …) with decimal arithmetic,
    /// and the formatting filters `number`, `currency`, `percent`, `compact_number`, `bytes`, `relative_time` and
    /// `format_date` (exact on decimals, rounding half to even), and `sparkline`, which draws a list of numbers
    /// as a small inline SVG.
    public static let standard: FilterRegistry = StandardFilters.registry

    /// The key under which a decoder's `userInfo` may hold the registry ``Template``'s `Decodable`
    /// conformance uses; without it, templates are decoded with ``standard``.
    public static let userInfoKey = CodingUserInfoKey(rawValue: "widgetd.template.filterRegistry")!

    private init(filters: [String: Filter]) {
        self.filters = filters
    }

    /// The names of all filters, sorted.
    public var names: [String] { filters.keys.sorted() }

    /// A registry with one more filter (replacing a filter of the same name).
    ///
    /// - Parameters:
    ///   - name: The name templates use: `{{ value | name: arg }}`.
    ///   - arguments: How many positional arguments the filter accepts; templates with another count are
    ///     rejected when parsed. Keyword arguments (`name: value`) are not counted.
    ///   - body: The implementation. Throw an error made with ``FilterContext/error(_:hint:)`` for a genuine
    ///     failure (a throwing closure spells its error type: `{ input, arguments, context throws(ExpressionError) in … }`);
    ///     for missing data, return `.null` as Liquid does. Never put the input's value in an error message:
    ///     it may be a secret.
    public func adding(_ name: String, arguments: ClosedRange<Int>, _ body: @escaping Body) -> FilterRegistry {
        var copy = self
        copy.filters[name] = Filter(arguments: arguments, body: body)
        return copy
    }

    /// The filter named `name`, if registered.
    func filter(named name: String) -> Filter? { filters[name] }
}
