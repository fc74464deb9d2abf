import Foundation
import WidgetCommands
import WidgetRuntime
import WidgetStages

// `buildCommit` is written at build time by the package's BuildInfoPlugin.
// What `command` transforms' programs leave running outside their process group is given to widgetd, and
// killed when the program ends (Linux).
RunningPrograms.adoptOrphans()
let environment = CommandEnvironment(registry: .builtIn, build: BuildInfo(commit: buildCommit))
let status = await WidgetCommandLine.main(CommandLine.arguments.dropFirst(), environment: environment)
// A stop abandons refreshes still under way: their programs, and what those left behind, end with widgetd.
RunningPrograms.killAll()
exit(status)
