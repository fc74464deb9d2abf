public import WidgetRuntime

extension Arguments {
    /// `--log-format text|json` and `--log-level debug|info|notice|warning|error`.
    ///
    /// - Throws: ``UsageError`` for a value that is not one of those.
    public mutating func logFormat() throws(UsageError) -> LogFormat {
        let style = try choice("--log-format", among: LogFormat.Style.allCases.map(\.rawValue), default: "text")
        let level = try choice("--log-level", among: LogLevel.allCases.map(\.rawValue), default: "info")
        return LogFormat(style: LogFormat.Style(rawValue: style)!, level: LogLevel(rawValue: level)!)
    }
}
