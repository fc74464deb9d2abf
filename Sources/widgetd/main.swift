import Foundation
import WidgetCommands
import WidgetRuntime
import WidgetStages

// `buildCommit` is written at build time by the package's BuildInfoPlugin.
// The commands that run pipelines (and so `command` transforms' programs) adopt what those programs leave
// running outside their process group, kill it when the program ends (Linux), and kill what a stop
// abandoned when they end. The others need not scan the process table.
let runsPipelines = [RunCommand.name, PreviewCommand.name].contains(CommandLine.arguments.dropFirst().first ?? "")
if runsPipelines { RunningPrograms.adoptOrphans() }
let environment = CommandEnvironment(registry: .builtIn, build: BuildInfo(commit: buildCommit))
let status = await WidgetCommandLine.main(CommandLine.arguments.dropFirst(), environment: environment)
if runsPipelines { RunningPrograms.killAll() }
exit(status)
