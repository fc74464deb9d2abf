public import WidgetJSON

/// A stage's options that cannot be used, with the place inside them.
public struct OptionsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where the problem is, relative to the stage's JSON object.
    public var path: ValuePath
    /// What is wrong and what would work, as a sentence without the path.
    public var message: String
    /// When the problem is inside an expression (a template or a JSONPath), the 1-based column in it.
    public var expressionColumn: Int?
    /// Whether the path names an object member's key rather than its value (an unknown key).
    public var pointsAtKey: Bool

    /// Creates an error from its parts; by default about a value, not inside an expression.
    public init(path: ValuePath, message: String, expressionColumn: Int? = nil, pointsAtKey: Bool = false) {
        self.path = path
        self.message = message
        self.expressionColumn = expressionColumn
        self.pointsAtKey = pointsAtKey
    }

    public var description: String { "\(path): \(message)" }
}
