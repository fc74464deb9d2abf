/// A JSON document that could not be read, with the place where reading stopped.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where the problem is.
    public var location: SourceLocation
    /// The byte offset of the problem from the start of the document.
    public var offset: Int
    /// What is wrong, as a sentence fragment: `expected ',' or '}' after an object member`.
    public var reason: String
    /// The limit the document passed (``ValueLimits``), when it is refused for that rather than for its
    /// syntax.
    public var exceededLimit: Limit?

    /// A limit of ``ValueLimits`` a document can pass.
    public enum Limit: Sendable, Hashable {
        /// Lists and objects nested deeper than the limit.
        case depth
        /// More values than the limit.
        case values
    }

    /// Creates an error from where reading stopped and why.
    public init(location: SourceLocation, offset: Int, reason: String) {
        self.location = location
        self.offset = offset
        self.reason = reason
    }

    public var description: String {
        "line \(location.line), column \(location.column): \(reason)"
    }
}
