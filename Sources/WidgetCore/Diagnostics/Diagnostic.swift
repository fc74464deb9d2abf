public import WidgetJSON

/// One problem in a definition file, located precisely enough for an editor to jump to it.
///
/// Printed as `FILE:LINE:COL: PATH: MESSAGE`, for example
/// `widgets.d/news.json:7:14: $.schedule.every: "15 minutes" is not a duration; write e.g. "15m"`.
/// A warning (a definition that works, but not as written) says so before its message:
/// `widgets.d/news.json:7:14: $.schedule.every: warning: "1m" fires 1,440 times a day, but …`.
public struct Diagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    /// How serious a diagnostic is.
    public enum Severity: String, Sendable, Hashable {
        /// The definition cannot run as written: its file makes no widget.
        case error
        /// The definition runs, but not as its author probably expects; its widgets still run.
        case warning
    }

    /// The file as the user named it.
    public var file: String
    /// Where in the file; `nil` when the problem is the file as a whole (it cannot be read).
    public var location: SourceLocation?
    /// The JSON path of the bad key or value; `nil` when the file is not JSON.
    public var path: ValuePath?
    /// What is wrong and what would work.
    public var message: String
    /// Whether the definition cannot run (an error, the default) or runs but deserves a look (a warning).
    public var severity: Severity

    /// Creates a diagnostic from its parts; an error unless `severity` says otherwise.
    public init(file: String, location: SourceLocation?, path: ValuePath?, message: String, severity: Severity = .error) {
        self.file = file
        self.location = location
        self.path = path
        self.message = message
        self.severity = severity
    }

    public var description: String {
        var text = file
        if let location { text += ":\(location.line):\(location.column)" }
        if let path { text += ": \(path)" }
        return text + (severity == .warning ? ": warning: " : ": ") + message
    }

    /// The diagnostic as a JSON object: `file`, `line`, `column`, `path`, `message`, and for a warning
    /// `"severity": "warning"`.
    public var value: WidgetValue {
        var object: WidgetObject = ["file": .string(file)]
        object["line"] = location.map { .number(WidgetNumber($0.line)) } ?? .null
        object["column"] = location.map { .number(WidgetNumber($0.column)) } ?? .null
        object["path"] = path.map { .string($0.description) } ?? .null
        object["message"] = .string(message)
        if severity == .warning { object["severity"] = .string(severity.rawValue) }
        return .object(object)
    }
}
