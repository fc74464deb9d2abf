import WidgetRuntime

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a process running the command line sets up before its first command: `widgetd` itself and any
/// plugin package's executable get it from ``WidgetCommandLine/main(_:environment:)``.
enum ProcessSetup {
    /// Done once, on the first command line the process runs.
    static let done: Void = {
        // A reader that goes away (`widgetd list | head`) must not end the daemon or a command with SIGPIPE.
        _ = signal(SIGPIPE, SIG_IGN)
        // Response bodies near their cap must not stay in the allocator's arenas once freed.
        ProcessMemory.returnLargeBuffersToTheSystem()
    }()
}
