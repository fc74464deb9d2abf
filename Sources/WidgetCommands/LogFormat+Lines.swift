import Foundation
import WidgetCore
import WidgetRuntime

extension LogFormat {
    /// Whether `words` (a command line without the program name) ask for JSON logs, read before the
    /// command's options are parsed: so that even a usage error is a JSON line.
    static func asksForJSON(_ words: [String]) -> Bool {
        for (index, word) in words.enumerated() {
            if word == "--log-format=json" { return true }
            if word == "--log-format", index + 1 < words.count, words[index + 1] == "json" { return true }
        }
        return false
    }

    /// The JSON log line of a line printed outside a record (an `Error: …` of the command line): level
    /// `error`, event `error`, the line without its `Error: ` as the message.
    static func jsonErrorLine(_ line: String, at time: Date) -> String {
        let message = line.hasPrefix("Error: ") ? String(line.dropFirst("Error: ".count)) : line
        return LogFormat(style: .json, level: .debug).line(LogRecord(.error, "error", message, error: message), at: time) ?? message
    }

    /// `environment` with its standard error made of log lines: in `json`, every line printed there
    /// becomes one JSON object (see ``jsonErrorLine(_:at:)``); in `text`, `environment` itself.
    ///
    /// Records already formatted by this format go to the `environment` given here, not to the one
    /// returned, so that they are not wrapped twice.
    func wrappingErrors(of environment: CommandEnvironment) -> CommandEnvironment {
        guard style == .json else { return environment }
        var wrapped = environment
        let printError = environment.printError
        let clock = environment.clock
        wrapped.printError = { text in
            for line in text.split(separator: "\n") { printError(Self.jsonErrorLine(String(line), at: clock.now())) }
        }
        return wrapped
    }

    /// The line of a record a command prints whatever the level (a summary, a definition's problem):
    /// `text` as it is in `text` logs, the record as one object in `json` logs.
    func line(_ record: LogRecord, text: String, at time: Date) -> String {
        guard style == .json else { return text }
        return LogFormat(style: .json, level: .debug).line(record, at: time) ?? text
    }
}
