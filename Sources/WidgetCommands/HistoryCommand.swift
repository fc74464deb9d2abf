public import Foundation
import WidgetCore
import WidgetJSON
import WidgetRuntime

/// `widgetd history ID [--out DIR] [--format csv|json]`: a widget's kept series.
public struct HistoryCommand: WidgetCommand {
    public static let name = "history"
    public static let summary = "Print a widget's history: the values its definition keeps, one point per fresh refresh."
    public static let help = """
        Usage: widgetd history ID [--out DIR | --out s3://BUCKET/PREFIX [--work DIR]] [--format csv|json]

        Prints the series widget ID keeps (its definition's "history" block), read from
        DIR/ID.history.json, each point's time in UTC and its value exactly as fetched.

        Options:
          --out DIR        the daemon's output folder; without it $WIDGETD_OUT, else $STATE_DIRECTORY
                           (systemd), else out
          --work DIR       a bucket daemon's working folder; without it $WIDGETD_WORK, else
                           $STATE_DIRECTORY, else .widgetd-work
          --format FORMAT  csv (default): a header "series,at,value", then one line per point, oldest
                           first; json: {"id": ID, "series": {"NAME": [{"at": …, "value": …}, …]}}

        Exit code 1 when the widget has no history in DIR.
        """

    /// The widget's id, the positional argument.
    public var id: String
    /// `--out` (with a bucket's `--work`): the folder read is ``OutputOption/localFolder``.
    public var output: OutputOption
    /// Whether `--format json` was given; `csv` otherwise.
    public var json: Bool

    public init(arguments: inout Arguments) throws(UsageError) {
        output = try OutputOption(arguments: &arguments)
        json = try arguments.choice("--format", among: ["csv", "json"], default: "csv") == "json"
        guard let id = arguments.positional() else { throw UsageError("history needs the id of a widget") }
        self.id = id
    }

    public func run(_ environment: CommandEnvironment) async -> Int32 {
        let store = SnapshotStore(directory: URL(fileURLWithPath: output.localFolder, isDirectory: true))
        guard let history = store.history.saved(for: id) else {
            environment.printError("Error: \(missing(in: store))")
            return 1
        }
        environment.print(json ? JSONWriter.string(history.pointsValue, style: .pretty) : String(history.csv.dropLast()))
        return 0
    }

    /// The history `preview` shows `definition`'s templates: the one in the output folder `out` (read,
    /// never written), else empty series; `nil` for a definition without a `history` block.
    static func history(of definition: WidgetDefinition, out: String?, now: Date) -> WidgetHistory? {
        guard let block = definition.history else { return nil }
        let saved = out.flatMap {
            SnapshotStore(directory: URL(fileURLWithPath: $0, isDirectory: true)).history.history(for: definition, now: now)
        }
        return saved ?? WidgetHistory(id: definition.id, definition: block)
    }

    /// Why there is no history of ``id`` in `store`, naming the widgets that have one.
    func missing(in store: SnapshotStore) -> String {
        let known = store.output.names(in: "").filter { $0.hasSuffix(WidgetHistory.fileSuffix) && !$0.hasPrefix(".") }
            .map { String($0.dropLast(WidgetHistory.fileSuffix.count)) }.sorted()
        let out = output.out
        if store.snapshotIDs().contains(id) {
            return "the widget \(id) in \(out) has no history yet: a widget keeps one point per fresh refresh once its definition has "
                + "\"history\": {\"values\": {\"NAME\": \"$.…\"}}; run it again after adding one, or wait for its next fresh refresh"
        }
        guard !known.isEmpty else {
            return "no widget in \(out) keeps a history; add a \"history\" block to a definition and run 'widgetd run --out \(out)'"
        }
        let hint = Suggestion.hint(for: id, among: known).map { "\($0) " } ?? ""
        return "no widget \(id) has a history in \(out); \(hint)the widgets with one are \(known.joined(separator: ", "))"
    }
}
