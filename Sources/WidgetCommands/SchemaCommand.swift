import Foundation
import WidgetCore
import WidgetJSON
import WidgetRuntime

/// `widgetd schema`: the JSON Schema of the definition format, or its top-level keys as a Markdown table.
public struct SchemaCommand: WidgetCommand {
    public static let name = "schema"
    public static let summary = "Print a JSON Schema (2020-12) of the definition format, for editors."
    public static let help = """
        Usage: widgetd schema [--format json|markdown]

        Prints a JSON Schema (draft 2020-12) of a widget definition. Point your editor at it (for
        example with "$schema" in each file, or your editor's JSON schema settings) to get completion,
        descriptions and defaults of every key, and the checks 'widgetd validate' makes that a schema
        can state: unknown keys, unknown stage types, each stage's options, durations and enums. Stage
        types are those registered in this build of widgetd.

        Options:
          --format json|markdown  json (the default) for the JSON Schema; markdown for a table of the
                                  top-level keys with their defaults and meanings.
        """

    /// What `--format` chooses.
    public enum Format: String, Sendable, CaseIterable {
        /// The JSON Schema.
        case json
        /// The top-level keys as a Markdown table (`DefinitionSchema.keyTable`).
        case markdown
    }

    /// What to print.
    public var format: Format

    public init(arguments: inout Arguments) throws(UsageError) {
        let chosen = try arguments.choice("--format", among: Format.allCases.map(\.rawValue), default: Format.json.rawValue)
        format = Format(rawValue: chosen) ?? .json
    }

    public func run(_ environment: CommandEnvironment) async -> Int32 {
        switch format {
        case .json: environment.print(JSONWriter.string(DefinitionSchema.make(registry: environment.registry), style: .pretty))
        case .markdown: environment.print(DefinitionSchema.keyTable)
        }
        return 0
    }
}
