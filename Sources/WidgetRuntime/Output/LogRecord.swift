public import Foundation
import WidgetCore
public import WidgetJSON

/// How much the daemon says: each ``LogRecord`` has a level, and `--log-level` drops those below it.
public enum LogLevel: String, Sendable, Comparable, CaseIterable {
    /// What only a person chasing a problem wants: merged reload requests, deleted images.
    case debug
    /// The normal course of things: each refresh that succeeded, each reload asked for.
    case info
    /// Changes of the daemon's own state: started, definitions reloaded, stopping.
    case notice
    /// A widget that failed to refresh, an invalid definition.
    case warning
    /// What stops the daemon from doing its job: a write that failed, a folder that cannot be read.
    case error

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One thing the daemon reports: a sentence for people, and the same facts as fields for tools.
///
/// The text form is the ``message`` alone (it already names the widget and the figures); the JSON form
/// (`--log-format json`) is one object a line with `time`, `level`, `event`, `message` and whichever of
/// `widget`, `status`, `duration`, `entries`, `next`, `error` and ``details`` the event has.
public struct LogRecord: Sendable, Equatable {
    /// How important the event is; ``LogFormat`` drops records below its level.
    public var level: LogLevel
    /// A stable name for the kind of event (`refreshed`, `refresh-failed`, `reloaded`, …), for filters.
    public var event: String
    /// The sentence a person reads.
    public var message: String
    /// The widget the event is about.
    public var widget: String?
    /// The widget's status after a refresh.
    public var status: String?
    /// How long the refresh took, in seconds.
    public var duration: Double?
    /// The number of entries a refresh produced.
    public var entries: Int?
    /// When the widget refreshes next.
    public var next: Date?
    /// What went wrong.
    public var error: String?
    /// Further facts of the event (the ids a reload added, removed and changed, …).
    public var details: WidgetObject

    /// A record of `event` at `level` saying `message`; the other facts are optional.
    public init(
        _ level: LogLevel,
        _ event: String,
        _ message: String,
        widget: String? = nil,
        status: String? = nil,
        duration: Double? = nil,
        entries: Int? = nil,
        next: Date? = nil,
        error: String? = nil,
        details: WidgetObject = [:]
    ) {
        self.level = level
        self.event = event
        self.message = message
        self.widget = widget
        self.status = status
        self.duration = duration
        self.entries = entries
        self.next = next
        self.error = error
        self.details = details
    }
}

/// How log records are written: `--log-format` and `--log-level`.
public struct LogFormat: Sendable, Equatable {
    /// `text` (a timestamp and the sentence) or `json` (one object a line).
    public enum Style: String, Sendable, CaseIterable {
        /// `text`: the timestamp in whole seconds, a space and the ``LogRecord/message``; `json`: one
        /// object a line, with the time in milliseconds.
        case text, json
    }

    /// How each line looks: `--log-format`, `text` by default.
    public var style: Style
    /// Records below this level are dropped.
    public var level: LogLevel

    /// A format; by default `text` lines for records at `info` and above.
    public init(style: Style = .text, level: LogLevel = .info) {
        self.style = style
        self.level = level
    }

    /// The line for `record` at `time`, without a line break; nil when its level is below ``level``.
    ///
    /// A message carries text from outside (a server's error, a file's name), so no control character
    /// reaches the terminal or the log file as it is: in `text`, line feed and carriage return are
    /// written `\n` and `\r`, and every other C0 control but tab, DEL and the C1 controls as `\u{1B}`;
    /// in `json`, they are escaped as JSON escapes them (`\u001b`, `\u007f`, `\u009b`).
    public func line(_ record: LogRecord, at time: Date) -> String? {
        guard record.level >= level else { return nil }
        switch style {
        case .text:
            return "\(Timestamp.string(time)) \(Self.escapingControls(record.message))"
        case .json:
            var object = WidgetObject()
            object["time"] = .string(Timestamp.milliseconds(time))
            object["level"] = .string(record.level.rawValue)
            object["event"] = .string(record.event)
            object["message"] = .string(record.message)
            if let widget = record.widget { object["widget"] = .string(widget) }
            if let status = record.status { object["status"] = .string(status) }
            if let duration = record.duration, let number = WidgetNumber((duration * 1000).rounded() / 1000) {
                object["duration"] = .number(number)
            }
            if let entries = record.entries { object["entries"] = .number(WidgetNumber(entries)) }
            if let next = record.next { object["next"] = .string(Timestamp.string(next)) }
            if let error = record.error { object["error"] = .string(error) }
            for (key, value) in record.details where object[key] == nil { object[key] = value }
            return Self.escapingDeleteAndC1(JSONWriter.bytes(.object(object)))
        }
    }

    /// Whether `scalar` is written escaped in a text line: a C0 control other than tab, DEL, or a C1
    /// control.
    private static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar.value != 0x09) || (0x7F...0x9F).contains(scalar.value)
    }

    /// `text` with its control characters escaped (see ``line(_:at:)``); `text` itself when it has none.
    static func escapingControls(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isEscaped) else { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case _ where isEscaped(scalar): escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// A JSON line (whose C0 controls ``JSONWriter`` escaped already) with DEL and the C1 controls
    /// escaped as well: outside strings a JSON line is ASCII, so these bytes are all inside strings.
    private static func escapingDeleteAndC1(_ bytes: [UInt8]) -> String {
        guard bytes.contains(where: { $0 == 0x7F || $0 == 0xC2 }) else { return String(decoding: bytes, as: UTF8.self) }
        let hex = Array("0123456789abcdef".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x7F {
                output += Array("\\u007f".utf8)
            } else if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) {
                let code = bytes[index + 1]
                output += Array("\\u00".utf8) + [hex[Int(code >> 4)], hex[Int(code & 0xF)]]
                index += 1
            } else {
                output.append(byte)
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }
}
