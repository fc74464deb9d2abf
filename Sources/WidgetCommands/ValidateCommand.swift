import Foundation
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages

/// `widgetd validate --config DIR [--format json]`: checks every definition file.
public struct ValidateCommand: WidgetCommand {
    public static let name = "validate"
    public static let summary = "Check every definition file and report each problem with its place and a fix."
    public static let help = """
        Usage: widgetd validate [--config DIR] [--format text|json] [--template-steps N]

        Checks every *.json file in DIR: JSON syntax, unknown keys, durations, ids, schedules, stage
        names and options, JSONPaths and templates, instances and their overrides, the secrets
        templates read, and the files stages need: a "path" source's file must exist and be readable,
        a "command" program must exist and be executable (a bare name is looked for in PATH). Every
        problem of every file is reported in one pass, one line each:

          widgets.d/news.json:7:14: $.schedule.every: "15 minutes" is not a duration; write e.g. "15m"

        Warnings are definitions that run, but not as written; they do not change the exit code:

          widgets.d/news.json:7:14: $.schedule.every: warning: every 1m fires 1,440 times a day, but
          maxPerDay is 100: after 100 refreshes in a day the widget waits for the next day; …

        Options:
          --config DIR     the folder of widget definitions; without it $WIDGETD_CONFIG, else
                           $CONFIGURATION_DIRECTORY (systemd), else widgets.d
          --secrets DIR    the folder {{ secret.NAME }} reads the file NAME from; without it
                           $CREDENTIALS_DIRECTORY (systemd's LoadCredential=)
          --format FORMAT  text (default) or json (an array of {file, line, column, path, message};
                           a warning also has "severity": "warning")
          --template-steps N
                           the steps the templates rendered while one file is checked (titles,
                           placeholders, templates that read no data) may take; default 10000000

        Exit code 1 when any problem is found; warnings alone exit 0.
        """

    /// `--config`: the folder of widget definitions.
    public var config: String
    /// `--secrets`.
    public var secrets: SecretsOption
    /// Whether `--format json` was given; `text` otherwise.
    public var json: Bool
    /// `--template-steps`, when given.
    public var templateSteps: Int?

    public init(arguments: inout Arguments) throws(UsageError) {
        config = try arguments.configFolder().path
        secrets = try SecretsOption(arguments: &arguments)
        json = try arguments.choice("--format", among: ["text", "json"], default: "text") == "json"
        templateSteps = try arguments.templateStepLimit()
    }

    public func run(_ environment: CommandEnvironment) async -> Int32 {
        guard let environment = secrets.apply(to: environment)?.limitingTemplateSteps(to: templateSteps) else { return 2 }
        var reader = environment.reader
        // The files stages need are looked up as the daemon will, started in this environment.
        reader.localFiles = LocalFileCheck(searchPath: environment.variables["PATH"])
        var result = DefinitionDirectory(path: config).check(reader: reader)
        // The folder's host settings are checked with it (see HostSettings), as a problem of the folder.
        do {
            _ = try HostSettings.load(folder: config)
        } catch {
            result.diagnostics += error.diagnostics
        }
        let reported = ValidateCommand.inFileOrder(result.diagnostics + result.warnings, files: result.files)
        if json {
            environment.print(JSONWriter.string(.array(reported.map(\.value)), style: .pretty))
        } else {
            for diagnostic in reported { environment.print(diagnostic.description) }
            let files = result.files.count
            let problems = result.diagnostics.count
            let warnings = result.warnings.count
            environment.printError(
                "\(files) file\(files == 1 ? "" : "s") checked, \(result.widgetCount) widget\(result.widgetCount == 1 ? "" : "s") valid, "
                    + "\(problems) problem\(problems == 1 ? "" : "s")"
                    + (warnings == 0 ? "" : ", \(warnings) warning\(warnings == 1 ? "" : "s")")
            )
        }
        return result.diagnostics.isEmpty ? 0 : 1
    }

    /// `diagnostics` by file, in the order of `files` (a problem of the folder itself first); within a
    /// file in the order given: its problems, then its warnings.
    static func inFileOrder(_ diagnostics: [Diagnostic], files: [String]) -> [Diagnostic] {
        let rank = Dictionary(files.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
        return diagnostics.enumerated().sorted { a, b in
            (rank[a.element.file] ?? -1, a.offset) < (rank[b.element.file] ?? -1, b.offset)
        }.map(\.element)
    }
}
