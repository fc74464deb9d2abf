import Foundation
import WidgetCore
import WidgetRuntime
import WidgetStages

let environment = CommandEnvironment(registry: .builtIn)
exit(await WidgetCommandLine.main(CommandLine.arguments.dropFirst(), environment: environment))
