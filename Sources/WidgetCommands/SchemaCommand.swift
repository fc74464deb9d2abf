import Foundation
import WidgetCore
import WidgetJSON
import WidgetRuntime

/// `widgetd schema`: the JSON Schema of the definition format.
public struct SchemaCommand: WidgetCommand {
    public static let name = "schema"
    public static let summary = "Print a JSON Schema (2020-12) of the definition format, for editors."
    public static let help = """
        Usage: widgetd schema

        Prints a JSON Schema (draft 2020-12) of a widget definition. Point your editor at it (for
        example with "$schema" in each file, or your editor's JSON schema settings) to get completion,
        descriptions and defaults of every key, and the checks 'widgetd validate' makes that a schema
        can state: unknown keys, unknown stage types, each stage's options, durations and enums. Stage
        types are those registered in this build of widgetd.
        """

    public init(arguments: inout Arguments) throws(UsageError) {}

    public func run(_ environment: CommandEnvironment) async -> Int32 {
        environment.print(JSONWriter.string(DefinitionSchema.make(registry: environment.registry), style: .pretty))
        return 0
    }
}
