import Foundation
import WidgetCore
import WidgetJSON
import WidgetRuntime

/// `widgetd list --config DIR [--format json]`: a table of the widgets.
public struct ListCommand: WidgetCommand {
    public static let name = "list"
    public static let summary = "Show a table of the widgets: id, title, source, parser, schedule, next refresh."
    public static let help = """
        Usage: widgetd list [--config DIR] [--out DIR | --out s3://BUCKET/PREFIX [--work DIR]]
                            [--format text|json]

        Prints one line per valid widget: id, title (rendered with the instance's params), source,
        parser, schedule and next refresh. The next refresh comes from the daemon's state in OUT when
        there is one, else from the schedule. Invalid definitions are reported on standard error.

        Options:
          --config DIR   the folder of widget definitions; without it $WIDGETD_CONFIG, else
                         $CONFIGURATION_DIRECTORY (systemd), else widgets.d
          --secrets DIR  the folder {{ secret.NAME }} reads the file NAME from; without it
                         $CREDENTIALS_DIRECTORY (systemd's LoadCredential=)
          --out DIR      the daemon's output folder; without it $WIDGETD_OUT, else
                         $STATE_DIRECTORY (systemd), else out
          --work DIR     a bucket daemon's working folder, whose copy of the state is read;
                         without it $WIDGETD_WORK, else $STATE_DIRECTORY, else .widgetd-work
          --format FORMAT
                         text (default) or json: {"widgets": [{id, title, file, source, parser,
                         schedule, nextRefreshAt}], "problems": [{file, line, column, path, message}]}
        """

    /// `--config`: the folder of widget definitions.
    public var config: String
    /// `--secrets`.
    public var secrets: SecretsOption
    /// `--out`: the daemon's output folder (or bucket), read for the next refresh times in its state.
    public var out: String
    /// `--out` with a bucket's `--work`: the state is read from ``OutputOption/localFolder``.
    public var output: OutputOption
    /// Whether `--format json` was given; `text` otherwise.
    public var json: Bool

    public init(arguments: inout Arguments) throws(UsageError) {
        config = try arguments.configFolder().path
        secrets = try SecretsOption(arguments: &arguments)
        output = try OutputOption(arguments: &arguments)
        out = output.out
        json = try arguments.choice("--format", among: ["text", "json"], default: "text") == "json"
    }

    public func run(_ environment: CommandEnvironment) async -> Int32 {
        guard let environment = secrets.apply(to: environment) else { return 2 }
        let result = DefinitionDirectory(path: config).load(reader: environment.reader)
        let store = SnapshotStore(directory: URL(fileURLWithPath: output.localFolder, isDirectory: true))
        let now = environment.clock.now()
        var rows = [["ID", "TITLE", "SOURCE", "PARSER", "SCHEDULE", "NEXT REFRESH"]]
        var objects: [WidgetValue] = []
        let states = store.states(for: result.widgets.map(\.id))
        for widget in result.widgets.sorted(by: { $0.id < $1.id }) {
            let definition = widget.definition
            let source = ListCommand.describe(definition.source)
            let next = states[widget.id]?.nextDueAt ?? definition.refreshPolicy.nextRefresh(after: now)
            rows.append([
                widget.id, definition.title ?? "-", source, definition.parser.typeName, definition.schedule.summary,
                next.map(Timestamp.string) ?? "-",
            ])
            objects.append(
                .object([
                    "id": .string(widget.id), "title": definition.title.map(WidgetValue.string) ?? .null,
                    "file": .string(definition.file), "source": .string(source), "parser": .string(definition.parser.typeName),
                    "schedule": .string(definition.schedule.summary),
                    "nextRefreshAt": next.map { .string(Timestamp.string($0)) } ?? .null,
                ]))
        }
        if json {
            let report: WidgetObject = ["widgets": .array(objects), "problems": .array(result.diagnostics.map(\.value))]
            environment.print(JSONWriter.string(.object(report), style: .pretty))
        } else {
            environment.print(ListCommand.table(rows))
            for diagnostic in result.diagnostics { environment.printError("\(diagnostic)") }
        }
        return result.diagnostics.isEmpty ? 0 : 1
    }

    static func describe(_ source: StageSpec) -> String {
        switch source.typeName {
        case "http":
            guard let url = source.options["url"]?.string else { return "http" }
            // The host only: URLs may carry templates and secrets in their paths and queries.
            if let host = URLComponents(string: url)?.host, !host.contains("{") { return "http \(host)" }
            return "http"
        case "file":
            return "file \(source.options["path"]?.string ?? "")"
        default:
            return source.typeName
        }
    }

    static func table(_ rows: [[String]]) -> String {
        guard let columns = rows.first?.count else { return "" }
        let widths = (0..<columns).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == columns - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
