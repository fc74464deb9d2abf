/// A compiled RFC 9535 JSONPath query over ``WidgetValue``s.
///
/// The text is parsed and checked once, when the path is created: the grammar, integer ranges, string
/// escapes, function names and the well-typedness of function expressions (§2.4.3). Literal `match` and
/// `search` patterns (I-Regexp, RFC 9485) are compiled then too. Evaluation walks the document in place.
///
/// ```swift
/// let path = try JSONPath("$.store.book[?@.price < 10].title")
/// let titles = path.select(document)            // [WidgetValue]
/// let located = path.locate(document)           // [(path: ValuePath, value: WidgetValue)]
/// print(located.first?.path.normalizedPath ?? "") // $['store']['book'][0]['title']
/// ```
///
/// Two paths are equal when their texts are equal.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// The text the path was created from.
    public let text: String
    let query: JSONPathQuery

    /// Parses and checks a JSONPath query.
    ///
    /// ```swift
    /// let prices = try JSONPath("$..price")
    /// ```
    ///
    /// - Throws: ``ExpressionError`` with the 1-based column of the problem, e.g.
    ///   `expected ']' after a bracketed selector at column 9`; an unknown function name carries a
    ///   "did you mean" hint.
    public init(_ text: String) throws(ExpressionError) {
        var parser = JSONPathParser(text)
        self.query = try parser.parseQuery()
        self.text = text
    }

    /// The nodelist the query selects from `root`, in RFC 9535 order.
    ///
    /// ```swift
    /// try JSONPath("$.tags[*]").select(["tags": ["a", "b"]]) // ["a", "b"]
    /// ```
    public func select(_ root: WidgetValue) -> [WidgetValue] {
        if let steps = query.singularSteps {
            return JSONPathEvaluator.singular(steps, from: root).map { [$0] } ?? []
        }
        var result: [WidgetValue] = []
        JSONPathEvaluator(root: root, tracking: false).forEach(query, from: root, path: nil) { value, _ in
            result.append(value)
        }
        return result
    }

    /// The nodelist with the location of each node; ``ValuePath/normalizedPath`` writes a location as an
    /// RFC 9535 normalized path such as `$['items'][0]`.
    ///
    /// ```swift
    /// try JSONPath("$..id").locate(document).map(\.path.normalizedPath)
    /// ```
    public func locate(_ root: WidgetValue) -> [(path: ValuePath, value: WidgetValue)] {
        var result: [(path: ValuePath, value: WidgetValue)] = []
        JSONPathEvaluator(root: root, tracking: true).forEach(query, from: root, path: nil) { value, link in
            result.append((JSONPathLink.path(link), value))
        }
        return result
    }

    /// Whether this is a singular query (RFC 9535 §2.3.5.1): only child segments with a single name or
    /// index selector, so it selects at most one node.
    ///
    /// ```swift
    /// try JSONPath("$.items[0].title").isSingular // true
    /// try JSONPath("$.items[*]").isSingular       // false
    /// ```
    public var isSingular: Bool { query.isSingular }

    /// The text of the path.
    public var description: String { text }

    public static func == (lhs: JSONPath, rhs: JSONPath) -> Bool { lhs.text == rhs.text }

    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}

// MARK: - Decodable

extension JSONPath: Decodable {
    /// Decodes a path from a JSON string.
    ///
    /// ```swift
    /// struct Options: Decodable { var items: JSONPath }
    /// ```
    ///
    /// - Throws: `DecodingError.dataCorrupted` whose `underlyingError` is the ``ExpressionError`` (with its
    ///   column), or a type mismatch when the value is not a string.
    public init(from decoder: any Decoder) throws {
        self = try ExpressionError.decode(from: decoder, what: "JSONPath", JSONPath.init)
    }

    /// What ``init(from:)`` makes of `text`, read at `codingPath`: the same path or the same error.
    package static func decoded(_ text: String, codingPath: @autoclosure () -> [any CodingKey]) throws -> JSONPath {
        try ExpressionError.decode(text, codingPath: codingPath(), what: "JSONPath", JSONPath.init)
    }
}

extension ExpressionError {
    /// Decodes an expression written as a JSON string with `make`; a bad one becomes
    /// `DecodingError.dataCorrupted` whose `underlyingError` is the ``ExpressionError``, so a loader can
    /// show its column.
    static func decode<Expression>(
        from decoder: any Decoder,
        what: String,
        _ make: (String) throws(ExpressionError) -> Expression
    ) throws -> Expression {
        let text = try decoder.singleValueContainer().decode(String.self)
        return try decode(text, codingPath: decoder.codingPath, what: what, make)
    }

    /// Makes an expression of `text`, read as a JSON string at `codingPath`, with `make`; a bad one
    /// becomes the `DecodingError.dataCorrupted` of ``decode(from:what:_:)``.
    package static func decode<Expression>(
        _ text: String,
        codingPath: @autoclosure () -> [any CodingKey],
        what: String,
        _ make: (String) throws(ExpressionError) -> Expression
    ) throws -> Expression {
        do {
            return try make(text)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: codingPath(),
                    debugDescription: "'\(text)' is not a valid \(what): \(error)",
                    underlyingError: error))
        }
    }
}
