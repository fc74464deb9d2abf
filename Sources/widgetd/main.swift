import Foundation
import WidgetCommands
import WidgetRuntime
import WidgetStages

// `buildCommit` is written at build time by the package's BuildInfoPlugin.
let environment = CommandEnvironment(registry: .builtIn, build: BuildInfo(commit: buildCommit))
exit(await WidgetCommandLine.main(CommandLine.arguments.dropFirst(), environment: environment))
