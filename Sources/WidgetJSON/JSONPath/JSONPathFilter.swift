/// A standalone RFC 9535 logical expression — what goes inside `[?…]` — tested against one item.
///
/// `@` is the item and `$` the document it came from. The expression is parsed and type-checked once.
/// A leading `?` and surrounding whitespace are accepted.
///
/// ```swift
/// let filter = try JSONPathFilter("@.image != null && @.price > 10")
/// let kept = items.filter { filter.matches($0, root: document) }
/// ```
///
/// Two filters are equal when their texts are equal.
public struct JSONPathFilter: Sendable, Hashable, CustomStringConvertible {
    /// The text the filter was created from.
    public let text: String
    let expression: FilterExpression

    /// Parses and checks a logical expression such as `length(@.tags) > 0` or `?match(@.id, '[a-z]+')`.
    ///
    /// - Throws: ``ExpressionError`` with the 1-based column of the problem.
    public init(_ text: String) throws(ExpressionError) {
        var parser = JSONPathParser(text)
        self.expression = try parser.parseFilter()
        self.text = text
    }

    /// Whether the expression holds with `item` as `@` and `root` as `$`.
    ///
    /// ```swift
    /// try JSONPathFilter("@.a == 1.0").matches(["a": 1], root: .null) // true
    /// ```
    public func matches(_ item: WidgetValue, root: WidgetValue) -> Bool {
        JSONPathEvaluator(root: root, tracking: false).test(expression, current: item)
    }

    /// The text of the filter.
    public var description: String { text }

    public static func == (lhs: JSONPathFilter, rhs: JSONPathFilter) -> Bool { lhs.text == rhs.text }

    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}

// MARK: - Decodable

extension JSONPathFilter: Decodable {
    /// Decodes a filter from a JSON string.
    ///
    /// - Throws: `DecodingError.dataCorrupted` whose `underlyingError` is the ``ExpressionError``.
    public init(from decoder: any Decoder) throws {
        self = try ExpressionError.decode(from: decoder, what: "JSONPath filter", JSONPathFilter.init)
    }
}
