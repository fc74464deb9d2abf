/// A 1-based line and column in a text file; columns count Unicode scalars.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The line, counted from 1.
    public var line: Int
    /// The column, counted from 1 in Unicode scalars.
    public var column: Int

    /// Creates a location from its 1-based line and column.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }
}

/// Where the values of a parsed JSON document start, by ``ValuePath``.
///
/// Each object member has two locations: its key's (where a reader looks for a misspelt or unexpected
/// key) and its value's (where a reader looks for a bad value). Array elements and the root have a value
/// location only.
public struct SourceMap: Sendable {
    private var keys: [ValuePath: SourceLocation] = [:]
    private var values: [ValuePath: SourceLocation] = [:]

    /// Creates an empty map, where every lookup gives `nil`.
    public init() {}

    /// Records where the key of the member at `path` starts, replacing any earlier location.
    public mutating func recordKey(_ location: SourceLocation, for path: ValuePath) {
        keys[path] = location
    }

    /// Records where the value at `path` starts, replacing any earlier location.
    public mutating func recordValue(_ location: SourceLocation, for path: ValuePath) {
        values[path] = location
    }

    /// The location of the key of the member at `path`, else of its value, else of the nearest ancestor.
    public func keyLocation(of path: ValuePath) -> SourceLocation? {
        keys[path] ?? valueLocation(of: path)
    }

    /// The location of the value at `path`, or of its nearest recorded ancestor.
    public func valueLocation(of path: ValuePath) -> SourceLocation? {
        var components = path.components
        while true {
            let current = ValuePath(components: components)
            if let location = values[current] ?? keys[current] { return location }
            if components.isEmpty { return nil }
            components.removeLast()
        }
    }
}
