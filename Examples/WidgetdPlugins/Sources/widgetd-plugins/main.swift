import Foundation
import WidgetCommands
import WidgetCore
import WidgetRuntime
import WidgetStages
import WidgetdPlugins

// The standard widgetd command line, with two more stages registered beside the built-in ones.
var builder = StageRegistry.Builder.builtIn()
builder.register(TransmissionFetcher.self)
builder.register(RunwayPerformanceTransform.self)
do {
    let environment = CommandEnvironment(registry: try builder.build())
    exit(await WidgetCommandLine.main(CommandLine.arguments.dropFirst(), environment: environment))
} catch {
    FileHandle.standardError.write(Data("Error: the stages could not be registered: \(error)\n".utf8))
    exit(1)
}
