/// A JSONPath or template that could not be read or evaluated, with the column inside the expression.
///
/// ```
/// unknown filter 'upcse' at column 12; did you mean 'upcase'?
/// ```
public struct ExpressionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a sentence fragment without the column: `unknown filter 'upcse'`.
    public var reason: String
    /// The 1-based column inside the expression text, counted in Unicode scalars; `nil` when the error is
    /// not tied to one place.
    public var column: Int?
    /// A fix to suggest, appended after a semicolon: `did you mean 'upcase'?`.
    public var hint: String?

    /// Creates an error from its reason, and the column and hint when there are any.
    public init(_ reason: String, column: Int? = nil, hint: String? = nil) {
        self.reason = reason
        self.column = column
        self.hint = hint
    }

    /// The error with `column` when it has none of its own (and `column` is known, above 0).
    package func placed(at column: Int) -> ExpressionError {
        guard self.column == nil, column > 0 else { return self }
        var copy = self
        copy.column = column
        return copy
    }

    public var description: String {
        var text = reason
        if let column { text += " at column \(column)" }
        if let hint { text += "; \(hint)" }
        return text
    }
}
