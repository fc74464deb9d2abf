import Foundation
import WidgetCore
import WidgetRuntime
import WidgetStages

// A reader that goes away (`widgetd list | head`) must not end the daemon or a command with SIGPIPE.
_ = signal(SIGPIPE, SIG_IGN)
// Response bodies near their cap must not stay in the allocator's arenas once freed.
ProcessMemory.returnLargeBuffersToTheSystem()
// `buildCommit` is written at build time by the package's BuildInfoPlugin.
let environment = CommandEnvironment(registry: .builtIn, build: BuildInfo(commit: buildCommit))
exit(await WidgetCommandLine.main(CommandLine.arguments.dropFirst(), environment: environment))
