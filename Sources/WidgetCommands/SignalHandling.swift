import Dispatch
import Foundation
import Synchronization
import WidgetRuntime
import WidgetStages

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a daemon with the process's signals wired to it: SIGTERM and SIGINT cancel it (a graceful stop),
/// SIGHUP reloads the definitions, SIGUSR1 reads `widgetd reload` requests; a change in the definitions
/// folder reloads too.
///
/// The handlers are installed with `sigaction` before anything else happens, and a handler only writes
/// the signal's number into a pipe that a dispatch source reads: no signal is lost, however early it
/// comes (a dispatch signal source arms itself later, on another thread, and a signal sent in between
/// was ignored).
enum SignalHandling {
    /// A Unix signal the daemon handles.
    struct UnixSignal: Sendable, Hashable {
        let rawValue: Int32
        static let terminate = UnixSignal(rawValue: SIGTERM)
        static let interrupt = UnixSignal(rawValue: SIGINT)
        static let hangup = UnixSignal(rawValue: SIGHUP)
        static let user1 = UnixSignal(rawValue: SIGUSR1)
        static let all: [UnixSignal] = [.terminate, .interrupt, .hangup, .user1]
    }

    /// How long a stop may take before the process ends without waiting for the rest.
    static let stopGrace = 1.5

    /// Whether ``exitAfterGrace(log:)`` has started its thread.
    private static let graceStarted = Atomic(false)

    /// Ends the process ``stopGrace`` seconds from now unless it ended by itself first: whatever a stage
    /// or the network library is doing, a stop is over soon. Snapshots are replaced atomically, so an
    /// interrupted write loses only itself; the programs of `command` transforms are killed first.
    ///
    /// The wait is on a thread of its own, not on a dispatch queue or a task: those share threads with the
    /// work that may be what makes the stop slow.
    ///
    /// - Parameter log: where the line saying so goes, in the daemon's log format.
    /// - Parameter grace: how long the stop may take; ``stopGrace`` unless the output needs longer (a
    ///   bucket drains its uploads and lets go of its lease).
    static func exitAfterGrace(log: @escaping @Sendable (LogRecord) -> Void, grace: Double = stopGrace) {
        guard !graceStarted.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread {
            Thread.sleep(forTimeInterval: grace)
            log(LogRecord(.warning, "stop-timeout", "widgetd: the stop took longer than \(grace) s; exiting now"))
            RunningPrograms.killAll(waiting: false)
            _exit(0)
        }
        thread.name = "widgetd.stop"
        thread.start()
    }

    /// What the process's signals and the folder watcher ask of the daemon.
    private enum Event: Sendable {
        /// SIGTERM or SIGINT.
        case stop
        /// SIGHUP, or a change in the definitions folder.
        case reload
        /// SIGUSR1: `widgetd reload` left requests.
        case requests
    }

    /// Installs the handlers, calls `ready` (from then on every signal counts), runs `daemon` until a
    /// stop signal, and returns when it has stopped.
    ///
    /// The daemon, the loop that hands it what the process is told, and `beside` (the service manager's
    /// watchdog) run as child tasks of one group (as a service group runs its services): a stop signal
    /// ends the loop, which cancels the others; the daemon ending on its own (with an error) ends the
    /// loop. `beside` runs until it is cancelled. The daemon's refreshes are child tasks of its own
    /// group, inside this one: nothing runs outside the group once this returns.
    ///
    /// `before` runs first, in the daemon's task, with signals already handled (a bucket's daemon waits
    /// for its lease there, and a stop signal ends the wait); `alongside` run beside the daemon until
    /// they are cancelled, and one that throws (the lease lost) stops everything with its error.
    ///
    /// - Throws: what the daemon, `before` or `alongside` throws, or ``StoreError`` when the signal pipe
    ///   cannot be made.
    /// `log` takes the daemon's own lines (a stop that outlasts `grace`, ``stopGrace`` by default).
    static func run(
        _ daemon: WidgetDaemon, watching folder: String, beside: (@Sendable () async -> Void)? = nil,
        before: (@Sendable () async throws -> Void)? = nil, alongside: [@Sendable () async throws -> Void] = [],
        grace: Double = stopGrace, log: @escaping @Sendable (LogRecord) -> Void, ready: () -> Void
    ) async throws {
        let queue = DispatchQueue(label: "widgetd.signals")
        let pipe = try SignalPipe.install(UnixSignal.all.map(\.rawValue))
        ready()
        // Signals are few; a flood of folder changes keeps only the newest, and a stop cannot be lost for
        // long: the grace timer ends the process whatever happens to the event.
        let (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(64))
        let source = DispatchSource.makeReadSource(fileDescriptor: pipe.readEnd, queue: queue)
        source.setEventHandler {
            for number in pipe.drain() {
                switch UnixSignal(rawValue: number) {
                case .terminate, .interrupt:
                    SignalHandling.exitAfterGrace(log: log, grace: grace)
                    continuation.yield(.stop)
                case .hangup: continuation.yield(.reload)
                case .user1: continuation.yield(.requests)
                default: break
                }
            }
        }
        source.resume()
        let watcher = DirectoryWatcher(path: folder, queue: queue) { continuation.yield(.reload) }
        defer {
            watcher?.cancel()
            source.cancel()
            continuation.finish()
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await before?()
                // Started only once `before` is done: a lease lost while the daemon starts is not missed,
                // and nothing renews a lease not yet taken.
                try await withThrowingTaskGroup(of: Void.self) { inner in
                    inner.addTask { try await daemon.run() }
                    for task in alongside { inner.addTask { try await task() } }
                    try await inner.next()
                    inner.cancelAll()
                    try await inner.waitForAll()
                }
            }
            if let beside { group.addTask { await beside() } }
            group.addTask {
                for await event in events {
                    switch event {
                    case .stop: return
                    case .reload: await daemon.reloadDefinitions()
                    case .requests: await daemon.checkReloadRequests()
                    }
                }
            }
            // Whichever of the daemon and the loop ends first, the others follow: a stop cancels the
            // daemon; a daemon that failed throws from here, and a group left by a throw cancels and
            // awaits the rest itself. `beside` never ends first.
            try await group.next()
            group.cancelAll()
            try await group.waitForAll()
        }
    }
}

/// The write end of the pipe the signal handler writes to. A C signal handler can reach nothing but
/// globals; this one is set once, before the handlers are installed, and only read afterwards.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// The signal handler: writes the signal's number into the pipe (async-signal-safe: `write` only).
private func forwardSignal(_ number: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalPipeWriteEnd, &byte, 1)
    errno = saved
}

/// The pipe between the signal handler and the daemon (the self-pipe trick).
private struct SignalPipe: Sendable {
    let readEnd: Int32

    /// Makes the pipe (both ends non-blocking and closed on exec) and installs `forwardSignal` for
    /// `signals`.
    static func install(_ signals: [Int32]) throws(StoreError) -> SignalPipe {
        if signalPipeWriteEnd < 0 {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else {
                throw StoreError("Cannot create the signal pipe: \(String(cString: strerror(errno)))")
            }
            for end in ends {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
            signalReadEnd = ends[0]
            signalPipeWriteEnd = ends[1]
        }
        for number in signals {
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = forwardSignal
            #else
            action.__sigaction_u.__sa_handler = forwardSignal
            #endif
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
        return SignalPipe(readEnd: signalReadEnd)
    }

    /// The signals received since the last call, in order.
    func drain() -> [Int32] {
        var numbers: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = read(readEnd, &buffer, buffer.count)
            if count > 0 {
                numbers += buffer[0..<count].map(Int32.init)
            } else if count < 0, errno == EINTR {
                continue
            } else {
                return numbers
            }
        }
    }
}

/// The read end of the signal pipe, kept for a second daemon run in the same process.
nonisolated(unsafe) private var signalReadEnd: Int32 = -1
