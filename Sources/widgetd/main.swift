import Foundation
import WidgetCore
import WidgetRuntime
import WidgetStages

// A reader that goes away (`widgetd list | head`) must not end the daemon or a command with SIGPIPE.
_ = signal(SIGPIPE, SIG_IGN)
// `buildCommit` is written at build time by the package's BuildInfoPlugin.
let environment = CommandEnvironment(registry: .builtIn, build: BuildInfo(commit: buildCommit))
exit(await WidgetCommandLine.main(CommandLine.arguments.dropFirst(), environment: environment))
