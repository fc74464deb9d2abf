/// One problem in a definition file, located precisely enough for an editor to jump to it.
///
/// Printed as `FILE:LINE:COL: PATH: MESSAGE`, for example
/// `widgets.d/news.json:7:14: $.schedule.every: "15 minutes" is not a duration; write e.g. "15m"`.
public struct Diagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file as the user named it.
    public var file: String
    /// Where in the file; `nil` when the problem is the file as a whole (it cannot be read).
    public var location: SourceLocation?
    /// The JSON path of the bad key or value; `nil` when the file is not JSON.
    public var path: ValuePath?
    /// What is wrong and what would work.
    public var message: String

    /// Creates a diagnostic from its parts.
    public init(file: String, location: SourceLocation?, path: ValuePath?, message: String) {
        self.file = file
        self.location = location
        self.path = path
        self.message = message
    }

    public var description: String {
        var text = file
        if let location { text += ":\(location.line):\(location.column)" }
        if let path { text += ": \(path)" }
        return text + ": " + message
    }

    /// The diagnostic as a JSON object: `file`, `line`, `column`, `path`, `message`.
    public var value: WidgetValue {
        var object: WidgetObject = ["file": .string(file)]
        object["line"] = location.map { .number(WidgetNumber($0.line)) } ?? .null
        object["column"] = location.map { .number(WidgetNumber($0.column)) } ?? .null
        object["path"] = path.map { .string($0.description) } ?? .null
        object["message"] = .string(message)
        return .object(object)
    }
}
