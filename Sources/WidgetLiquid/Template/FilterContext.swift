public import Foundation
public import WidgetJSON

/// What a filter knows about the call besides its input and positional arguments.
///
/// A filter reads keyword arguments (`default: 'x', allow_false: true`) from ``keywordArguments`` and the
/// clock and time zone from ``now`` and ``timeZone``; it reports a failure with ``error(_:hint:)`` so the
/// message names the column of the filter in the template.
///
/// ```swift
/// let registry = FilterRegistry.standard.adding("shout", arguments: 0...0) { input, _, context in
///     .string((input.string ?? "").uppercased() + "!")
/// }
/// ```
public struct FilterContext: Sendable {
    /// The filter's name as written in the template.
    public var filterName: String
    /// Keyword arguments (`name: value`), in the order written.
    public var keywordArguments: WidgetObject
    /// The moment templates treat as now (`'now' | date: …`).
    public var now: Date
    /// The time zone dates are shown in.
    public var timeZone: TimeZone
    /// The 1-based column of the filter's name in the template source.
    public var column: Int?

    /// Creates a context; the engine makes one per filter call.
    public init(
        filterName: String,
        keywordArguments: WidgetObject = [:],
        now: Date = Date(),
        timeZone: TimeZone = TimeZone(identifier: "UTC")!,
        column: Int? = nil
    ) {
        self.filterName = filterName
        self.keywordArguments = keywordArguments
        self.now = now
        self.timeZone = timeZone
        self.column = column
    }

    /// An error from this filter call: `divided_by: cannot divide 10 by zero at column 9`.
    public func error(_ reason: String, hint: String? = nil) -> ExpressionError {
        ExpressionError("\(filterName): \(reason)", column: column, hint: hint)
    }
}
