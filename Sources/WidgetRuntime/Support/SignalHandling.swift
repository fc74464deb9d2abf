import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a daemon with the process's signals wired to it: SIGTERM and SIGINT cancel it (a graceful stop),
/// SIGHUP reloads the definitions, SIGUSR1 reads `widgetd reload` requests; a change in the definitions
/// folder reloads too.
enum SignalHandling {
    /// A Unix signal the daemon handles.
    struct UnixSignal: Sendable, Hashable {
        let rawValue: Int32
        static let terminate = UnixSignal(rawValue: SIGTERM)
        static let interrupt = UnixSignal(rawValue: SIGINT)
        static let hangup = UnixSignal(rawValue: SIGHUP)
        static let user1 = UnixSignal(rawValue: SIGUSR1)
    }

    static func run(_ daemon: WidgetDaemon, watching folder: String) async throws {
        let queue = DispatchQueue(label: "widgetd.signals")
        let task = Task { try await daemon.run() }
        var sources: [any DispatchSourceProtocol] = []
        for signal in [UnixSignal.terminate, .interrupt, .hangup, .user1] {
            ignoreDefaultAction(signal.rawValue)
            let source = DispatchSource.makeSignalSource(signal: signal.rawValue, queue: queue)
            source.setEventHandler {
                switch signal {
                case .terminate, .interrupt: task.cancel()
                case .hangup: Task { await daemon.reloadDefinitions() }
                default: Task { await daemon.checkReloadRequests() }
                }
            }
            source.resume()
            sources.append(source)
        }
        let watcher = DirectoryWatcher(path: folder, queue: queue) {
            Task { await daemon.reloadDefinitions() }
        }
        defer {
            watcher?.cancel()
            for source in sources { source.cancel() }
        }
        try await task.value
    }

    private static func ignoreDefaultAction(_ number: Int32) {
        _ = signal(number, SIG_IGN)
    }
}
