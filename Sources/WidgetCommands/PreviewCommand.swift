import Foundation
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages

/// `widgetd preview ID --config DIR [--trace [--format text|json]]`: runs one widget now and prints its
/// snapshot, or every stage of the refresh.
public struct PreviewCommand: WidgetCommand {
    public static let name = "preview"
    public static let summary = "Run one widget's pipeline now and print the snapshot; writes nothing but --html."
    public static let help = """
        Usage: widgetd preview ID [--config DIR] [--trace [--format text|json]] [--html FILE]
                                  [--allow-path DIR]… [--rewrite-origin FROM=TO]…
                                  [--template-steps N] [--out DIR]

        Runs the pipeline of widget ID now (fetch, parse, transforms, timeline) and prints the snapshot
        it would write to standard output. Nothing else is written and no state is used or changed, so
        a failure shows the placeholder with the error (with --out, OAuth2 tokens excepted). Exit code 1
        when the refresh fails.

        Options:
          --trace        print every stage instead, in order, with its time: each fetch (the request
                         with secrets masked, status, bytes, content type), the parsed value, the value
                         after each transform, the entries. Values are shortened (first items, long
                         strings cut, counts shown); a stage that empties the value is marked "!", as is
                         the stage that failed
                         For a widget with "notify" rules, then what each rule would decide and why,
                         compared with what it last saw in the output folder's outbox (--out, else
                         $WIDGETD_OUT, $STATE_DIRECTORY or out; nothing there: a first observation),
                         and for a rule that fires its request: method, URL, headers (secrets
                         masked as ***) and body. Nothing is sent or saved
          --format FORMAT
                         with --trace: text (default) or json, for tools: {"widget", "at", "stages":
                         [{"stage", "kind", "type", "seconds", "outcome", "fetch", "shape", "value",
                         "entries", "warning", "error"}], "snapshot", "notify": {"comparedWith",
                         "note", "rules": [{"rule", "watches", "fires", "reason", "request"}]}}
          --config DIR   the folder of widget definitions; without it $WIDGETD_CONFIG, else
                         $CONFIGURATION_DIRECTORY (systemd), else widgets.d
          --html FILE    also write the widget's gallery page to FILE (its view, or the generic
                         card): open it in a browser to see the widget before running the daemon.
                         Images stay remote, as nothing is downloaded
          --secrets DIR  the folder {{ secret.NAME }} reads the file NAME from; without it
                         $CREDENTIALS_DIRECTORY (systemd's LoadCredential=)
          --rewrite-origin FROM=TO
                         send HTTP requests whose URL starts with FROM to TO instead (repeatable),
                         e.g. to try definitions against a local server with recorded payloads
          --allow-path DIR
                         let "path" sources read files in DIR too (repeatable)
          --template-steps N
                         the steps templates may take (tags, loop iterations, filter calls): in the
                         refresh, the page, or while one definition file loads;
                         default 10000000
          --out DIR      use the OAuth2 tokens kept in DIR/.state/oauth2 by the daemon writing to DIR,
                         and keep a renewed one there, so that a refresh token the server rotates is not
                         lost; without it tokens are asked for afresh and kept in memory only. Templates
                         read the widget's history in DIR (not changed); without it, empty series
        """

    /// The widget's id, the positional argument.
    public var id: String
    /// `--config`: the folder of widget definitions.
    public var config: String
    /// `--secrets`.
    public var secrets: SecretsOption
    /// `--allow-path` and `--rewrite-origin`.
    public var access: SourceAccessOptions
    /// `--trace`: print every stage rather than the snapshot.
    public var trace: Bool
    /// `--format json` with `--trace`: the trace as JSON rather than text.
    public var json: Bool
    /// `--html`: where to write the widget's page, if anywhere.
    public var html: String?
    /// `--template-steps`, when given.
    public var templateSteps: Int?
    /// `--out`: the output folder whose OAuth2 tokens are used and kept, if any.
    public var out: String?
    /// The output whose notification outboxes `--trace` compares the rules with: `--out`, else
    /// `$WIDGETD_OUT`, `$STATE_DIRECTORY` or `out`.
    public var notifyOutput: String

    public init(arguments: inout Arguments) throws(UsageError) {
        config = try arguments.configFolder().path
        secrets = try SecretsOption(arguments: &arguments)
        access = try SourceAccessOptions(arguments: &arguments)
        html = try arguments.option("--html")
        out = try arguments.option("--out")
        // `--out` is read: the daemon's default output, as `run` would choose it.
        if let out { notifyOutput = out } else { notifyOutput = try arguments.outputFolder().path }
        trace = arguments.flag("--trace")
        let format = try arguments.option("--format")
        guard format == nil || trace else {
            throw UsageError("--format applies to --trace; the snapshot is always JSON (add --trace to see each stage)")
        }
        guard format == nil || format == "text" || format == "json" else {
            throw UsageError("--format takes 'text' or 'json', not '\(format ?? "")'")
        }
        json = format == "json"
        templateSteps = try arguments.templateStepLimit()
        guard let id = arguments.positional() else { throw UsageError("preview needs the id of a widget") }
        self.id = id
    }

    public func run(_ environment: CommandEnvironment) async -> Int32 {
        guard let withSecrets = secrets.apply(to: environment),
            let environment = access.apply(to: withSecrets).limitingTemplateSteps(to: templateSteps).limitingHosts(folder: config)
        else { return 2 }
        let result = DefinitionDirectory(path: config).load(reader: environment.reader)
        guard let widget = result.widgets.first(where: { $0.id == id }) else {
            return WidgetLookup.reportMissing(id, in: result, config: config, environment: environment)
        }
        let now = environment.clock.now()
        let recorder = trace ? PipelineTrace(clock: environment.clock) : nil
        var refresher = environment.refresher(log: { environment.printError($0.message) })
        if let out {
            let store = SnapshotStore(directory: URL(fileURLWithPath: out, isDirectory: true))
            refresher.resources.insert(OAuth2Tokens(storage: OAuth2TokenFiles(store: store)))
        }
        var history = HistoryCommand.history(of: widget.definition, out: out, now: now)
        let outcome = await refresher.refresh(
            widget, state: WidgetState(), now: now, respectBudget: false, trace: recorder, history: history?.templateValue.object ?? [:])
        if let block = widget.definition.history { history?.record(outcome.snapshot, definition: block) }
        if let recorder {
            let report = TraceReport(
                widget: id, at: now, steps: recorder.steps, snapshot: outcome.snapshot, error: outcome.error,
                mask: widget.definition.secretMask(secrets: environment.secrets),
                notify: notifyTrace(
                    widget.definition, snapshot: outcome.snapshot, history: history?.templateValue ?? .object([:]),
                    secrets: environment.secrets, now: now))
            let text = json ? JSONWriter.string(report.json, style: .pretty) : report.text
            // Values come from the sources; a server that repeats a request's secret must not show it here.
            environment.print(widget.definition.redact(text, secrets: environment.secrets))
        } else {
            environment.print(JSONWriter.string(outcome.snapshot.value, style: .pretty))
        }
        if let html {
            let page = GalleryPage.widgetPage(
                for: outcome.snapshot, definition: widget.definition, history: history?.templateValue ?? .object([:])
            ).page
            do {
                try Data(page.html.utf8).write(to: URL(fileURLWithPath: html))
            } catch {
                environment.printError(
                    "Error: cannot write the page \(html): \(error.localizedDescription); choose a file in a folder you can write to")
                return 1
            }
        }
        if let error = outcome.error {
            environment.printError("Error: \(id): \(error)")
            return 1
        }
        return 0
    }
}

extension PreviewCommand {
    /// What `definition`'s rules would do with `snapshot`, their bodies reading `history`; `nil` without rules.
    func notifyTrace(
        _ definition: WidgetDefinition, snapshot: Snapshot, history: WidgetValue, secrets: SecretStore, now: Date
    ) -> NotifyTrace? {
        guard !definition.notify.isEmpty else { return nil }
        let bucket = notifyOutput.hasPrefix("s3://")
        return NotifyTrace(
            snapshot: snapshot, definition: definition, folder: bucket ? nil : notifyOutput,
            note: bucket
                ? "the output \(notifyOutput) is a bucket, whose outboxes preview does not read: every rule observes for the first time"
                : nil,
            history: history, secrets: secrets, now: now)
    }
}

/// Finding a widget by id for the commands that take one.
enum WidgetLookup {
    /// Explains why `id` is not among the valid widgets; returns exit code 1.
    static func reportMissing(
        _ id: String,
        in result: DefinitionDirectory.LoadResult,
        config: String,
        environment: CommandEnvironment
    ) -> Int32 {
        let brokenFile = result.diagnostics.first { DefinitionReader.defaultID(forFile: $0.file) == id }
        if let brokenFile {
            environment.printError("Error: the definition of \(id) is invalid:")
            for diagnostic in result.diagnostics where diagnostic.file == brokenFile.file {
                environment.printError("\(diagnostic)")
            }
            return 1
        }
        let ids = result.widgets.map(\.id)
        let hint =
            Suggestion.hint(for: id, among: ids).map { "; \($0)" }
            ?? (ids.isEmpty ? "; the folder has no valid widget" : "; known: " + ids.sorted().joined(separator: ", "))
        environment.printError("Error: no widget '\(id)' in \(config)\(hint)")
        return 1
    }
}
