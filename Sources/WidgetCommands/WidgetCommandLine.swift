import Foundation
import WidgetCore
import WidgetJSON
import WidgetRuntime

/// The `widgetd` command line: finds the subcommand, reads its options and runs it.
///
/// A program that adds its own stages runs the same command line with its own registry:
///
/// ```swift
/// var builder = StageRegistry.Builder.builtIn()
/// builder.register(TransmissionFetcher.self)
/// let environment = CommandEnvironment(registry: try builder.build())
/// exit(await WidgetCommandLine.main(CommandLine.arguments.dropFirst(), environment: environment))
/// ```
public enum WidgetCommandLine {
    /// The subcommands, in the order `--help` lists them.
    public static let commands: [any WidgetCommand.Type] = [
        RunCommand.self, ValidateCommand.self, ListCommand.self, PreviewCommand.self, NextCommand.self,
        SchemaCommand.self, StatusCommand.self, ReloadCommand.self, HistoryCommand.self, VersionCommand.self,
    ]

    /// The text of `widgetd --help`.
    public static var help: String {
        let width = commands.map { $0.name.count }.max() ?? 0
        let lines = commands.map { "  " + $0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.summary }
        return """
            widgetd keeps widget snapshots fresh: it runs the pipelines defined in a folder of JSON files and \
            writes one snapshot file per widget.

            Usage: widgetd <command> [options]

            Commands:
            \(lines.joined(separator: "\n"))

            Run 'widgetd <command> --help' for a command's options, 'widgetd --version' for the version.
            Exit codes: 0 success, 1 a widget or definition failed, 2 wrong usage.
            """
    }

    /// Runs the command line `arguments` (without the program name) and returns the exit code.
    ///
    /// The first call also sets the process up for widgetd: SIGPIPE is ignored (a reader that goes away
    /// must not end the daemon), and freed response bodies go back to the system.
    public static func main(_ arguments: some Sequence<String>, environment: CommandEnvironment) async -> Int32 {
        ProcessSetup.done
        var words = Array(arguments)
        guard let name = words.first else {
            environment.printError(help)
            return 2
        }
        words.removeFirst()
        if name == "--version" {
            environment.print(environment.build.description)
            return 0
        }
        if name == "--help" || name == "-h" || name == "help" {
            if let topic = words.first, let command = commands.first(where: { $0.name == topic }) {
                environment.print(command.help)
            } else {
                environment.print(help)
            }
            return 0
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            let hint = Suggestion.hint(for: name, among: commands.map { $0.name }).map { "; \($0)" } ?? ""
            environment.printError("Error: unknown command '\(name)'\(hint)\nRun 'widgetd --help' for the list of commands.")
            return 2
        }
        var parsed = Arguments(words, variables: environment.variables)
        if parsed.wantsHelp() {
            environment.print(command.help)
            return 0
        }
        do {
            let instance = try command.init(arguments: &parsed)
            try parsed.finish()
            return await instance.run(environment)
        } catch {
            // Asked for JSON logs, even a usage error is one JSON line.
            let message = "Error: \(error)\nRun 'widgetd \(name) --help' for its options."
            if LogFormat.asksForJSON(words) {
                environment.printError(
                    LogFormat.jsonErrorLine(message.replacingOccurrences(of: "\n", with: " "), at: environment.clock.now()))
            } else {
                environment.printError(message)
            }
            return 2
        }
    }
}
