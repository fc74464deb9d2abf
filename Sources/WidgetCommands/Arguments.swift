import WidgetCore
import WidgetJSON
import WidgetRuntime

/// The arguments of one command, consumed as the command reads its options.
///
/// Options are `--name value` or `--name=value`; flags are `--name`. Whatever is left when the command
/// calls ``finish()`` is a usage error, with a "did you mean" hint for misspelt options.
public struct Arguments: Sendable {
    private var remaining: [String]
    private var known: [String] = ["--help"]
    /// The environment variables options may fall back on.
    private let variables: [String: String]

    /// Arguments to read, without the program and command names; `variables` are the environment
    /// variables that ``configFolder()`` and ``outputFolder()`` fall back on.
    public init(_ arguments: some Sequence<String>, variables: [String: String] = [:]) {
        remaining = Array(arguments)
        self.variables = variables
    }

    /// The definitions folder: `--config`, else `$WIDGETD_CONFIG`, else `$CONFIGURATION_DIRECTORY` (set by
    /// systemd's `ConfigurationDirectory=`), else `widgets.d`; with where it came from, for messages.
    ///
    /// - Throws: ``UsageError`` when `--config` is given without a value, or twice.
    public mutating func configFolder() throws(UsageError) -> (path: String, origin: String) {
        try folder("--config", variables: ["WIDGETD_CONFIG", "CONFIGURATION_DIRECTORY"], default: "widgets.d")
    }

    /// The output folder: `--out`, else `$WIDGETD_OUT`, else `$STATE_DIRECTORY` (set by systemd's
    /// `StateDirectory=`), else `out`; with where it came from, for messages.
    ///
    /// - Throws: ``UsageError`` when `--out` is given without a value, or twice.
    public mutating func outputFolder() throws(UsageError) -> (path: String, origin: String) {
        try folder("--out", variables: ["WIDGETD_OUT", "STATE_DIRECTORY"], default: "out")
    }

    /// The option `name`, else the first of `names` that is set (systemd's directory variables, named
    /// `…_DIRECTORY`, may list several paths separated by `:`; the first is taken; others are taken
    /// whole, so `WIDGETD_OUT=s3://…` stays a URL), else `fallback`.
    private mutating func folder(
        _ name: String, variables names: [String], default fallback: String
    ) throws(UsageError) -> (path: String, origin: String) {
        if let given = try option(name) { return (given, name) }
        for variable in names {
            guard let value = variables[variable] else { continue }
            let first = variable.hasSuffix("_DIRECTORY") ? value.split(separator: ":").first.map(String.init) : value
            if let first, !first.isEmpty { return (first, "$\(variable)") }
        }
        return (fallback, "the default")
    }

    /// The environment variable `name`, as the command was given it.
    public func variable(_ name: String) -> String? {
        variables[name]
    }

    /// Whether `--help` or `-h` was given.
    public mutating func wantsHelp() -> Bool {
        let before = remaining.count
        remaining.removeAll { $0 == "--help" || $0 == "-h" }
        return remaining.count != before
    }

    /// The value of `--name`, if given.
    ///
    /// - Throws: ``UsageError`` when the option is given without a value, or twice.
    public mutating func option(_ name: String) throws(UsageError) -> String? {
        let values = try options(name)
        guard values.count <= 1 else { throw UsageError("\(name) is given twice") }
        return values.first
    }

    /// The value of `--name`, which must be one of `choices`; `fallback` when not given.
    ///
    /// - Throws: ``UsageError`` naming the choices when the value is another, or the option is given twice.
    public mutating func choice(_ name: String, among choices: [String], default fallback: String) throws(UsageError) -> String {
        let value = try option(name) ?? fallback
        guard choices.contains(value) else {
            let list = choices.map { "'\($0)'" }
            let listed = list.count == 2 ? "\(list[0]) or \(list[1])" : list.dropLast().joined(separator: ", ") + " or \(list.last!)"
            throw UsageError("\(name) takes \(listed), not '\(value)'")
        }
        return value
    }

    /// Every value of a repeatable option `--name`, in order.
    ///
    /// - Throws: ``UsageError`` when the option is given without a value.
    public mutating func options(_ name: String) throws(UsageError) -> [String] {
        known.append(name)
        var values: [String] = []
        var index = 0
        while index < remaining.count {
            let argument = remaining[index]
            if argument == name {
                guard index + 1 < remaining.count, !remaining[index + 1].hasPrefix("--") else {
                    throw UsageError("\(name) needs a value")
                }
                values.append(remaining[index + 1])
                remaining.removeSubrange(index...(index + 1))
            } else if argument.hasPrefix(name + "=") {
                values.append(String(argument.dropFirst(name.count + 1)))
                remaining.remove(at: index)
            } else {
                index += 1
            }
        }
        return values
    }

    /// Whether the flag `--name` was given.
    public mutating func flag(_ name: String) -> Bool {
        known.append(name)
        let before = remaining.count
        remaining.removeAll { $0 == name }
        return remaining.count != before
    }

    /// The next positional argument, if any.
    public mutating func positional() -> String? {
        guard let index = remaining.firstIndex(where: { !$0.hasPrefix("-") || $0 == "-" }) else { return nil }
        return remaining.remove(at: index)
    }

    /// Checks that every argument was used.
    ///
    /// - Throws: ``UsageError`` naming the first unknown argument.
    public func finish() throws(UsageError) {
        guard let first = remaining.first else { return }
        if first.hasPrefix("-") {
            let name = String(first.split(separator: "=", maxSplits: 1)[0])
            let hint = Suggestion.hint(for: name, among: known).map { "; \($0)" } ?? ""
            throw UsageError("unknown option '\(first)'\(hint)")
        }
        throw UsageError("unexpected argument '\(first)'")
    }
}

/// A command line that does not fit the command; exit code 2.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    public var description: String

    /// A usage error with the message `description`.
    public init(_ description: String) {
        self.description = description
    }
}
