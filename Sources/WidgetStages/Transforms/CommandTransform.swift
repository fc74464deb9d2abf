public import Foundation
import Synchronization
public import WidgetCore
public import WidgetJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs an external program on the value: JSON on its standard input, JSON on its standard output.
///
/// ```json
/// {"type": "command", "run": ["python3", "split_joke.py"], "timeout": "5s", "passEnvironment": ["LANG"]}
/// ```
///
/// `run` is the program and its arguments (no shell); a program path with a `/` is relative to the
/// definition's folder, a bare name is looked up in `PATH`. The program runs in the definition's folder
/// with the value as compact JSON on standard input and must print one JSON document on standard output
/// and exit 0 within `timeout` (default 10 s); its output may be at most `maxBytes` (default 1 MiB).
/// Otherwise the transform fails, naming the exit status or the first line of standard error.
///
/// The program does not see widgetd's environment, where secrets live: only `PATH`, `HOME`, `LANG`,
/// `LC_ALL`, `TZ` (those that are set) and the variables named in `passEnvironment`. It runs in a process
/// group of its own, killed whole (its children too) at the timeout, when the refresh is stopped at its
/// deadline, and when it exits leaving children behind. A program that exits without reading its input is
/// fine: the write to it fails without a SIGPIPE.
public struct CommandTransform: Transformer {
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// The program and its arguments.
        public var run: [String]
        /// The longest the program may run.
        public var timeout: WidgetDuration
        /// The most bytes it may print.
        public var maxBytes: Int
        /// Variables of widgetd's environment the program sees besides the basic ones.
        public var passEnvironment: [String]

        public enum CodingKeys: String, DescribedKey {
            case run, timeout, maxBytes, passEnvironment

            /// What `run` needs, for an empty list and for an empty program name alike.
            static let runFix = #"needs the program and its arguments, e.g. ["python3", "script.py"]"#

            public var keyDescription: KeyDescription {
                switch self {
                case .run:
                    KeyDescription(
                        "The program (relative to the definition's folder when it has a '/') and its arguments; no shell.",
                        .array(.string(), minItems: 1), required: true, fix: Self.runFix)
                case .timeout:
                    KeyDescription(
                        "The longest the program may run.", .duration,
                        default: .string(WidgetDuration(seconds: Int(CommandTransform.defaultTimeout)).description))
                case .maxBytes:
                    KeyDescription(
                        "The most bytes the program may print.", .integer(minimum: 1),
                        default: .number(WidgetNumber(CommandTransform.defaultMaxBytes)))
                case .passEnvironment:
                    KeyDescription(
                        "Variables of widgetd's environment the program also sees, beside PATH, HOME, LANG, LC_ALL and TZ.",
                        .array(.string()), default: [])
                }
            }
        }
    }

    /// The default ``timeout``, in seconds.
    public static let defaultTimeout: TimeInterval = 10
    /// The default ``maxBytes``: 1 MiB.
    public static let defaultMaxBytes = 1_048_576

    public static let typeName = "command"
    public static let summary = "Runs a program with the value as JSON on stdin and takes JSON from its stdout."

    /// The variables every program sees when widgetd has them set.
    public static let basicEnvironment = ["PATH", "HOME", "LANG", "LC_ALL", "TZ"]

    /// The `run` option: the program, then its arguments, passed as they are (no shell).
    public let arguments: [String]
    /// The longest the program may run, in seconds; at the limit its process group is killed.
    public let timeout: TimeInterval
    /// The most bytes the program may print on standard output.
    public let maxBytes: Int
    /// The variables of widgetd's environment passed on besides ``basicEnvironment``; empty by default.
    public let passEnvironment: [String]

    public init(options: Options) throws {
        guard let program = options.run.first, !program.isEmpty else {
            throw StageError("\"run\" " + Options.CodingKeys.runFix, option: Options.CodingKeys.run)
        }
        arguments = options.run
        timeout = Double(options.timeout.seconds)
        maxBytes = options.maxBytes
        passEnvironment = options.passEnvironment
        guard timeout > 0 else { throw StageError("\"timeout\" must be above 0s", option: Options.CodingKeys.timeout) }
        for name in passEnvironment where name.isEmpty || name.contains("=") || name.contains("\0") {
            throw StageError("\"\(name)\" is not an environment variable name", option: Options.CodingKeys.passEnvironment)
        }
    }

    /// The environment the program gets, as `NAME=value` strings, from widgetd's `environment`.
    public func programEnvironment(from environment: [String: String]) -> [String] {
        var names = Self.basicEnvironment
        for name in passEnvironment where !names.contains(name) { names.append(name) }
        return names.compactMap { name in environment[name].map { "\(name)=\($0)" } }
    }

    public func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue {
        let input = JSONWriter.data(value)
        let arguments = self.arguments
        let folder = context.baseDirectory
        let timeout = self.timeout
        let maxBytes = self.maxBytes
        let environment = programEnvironment(from: ProcessInfo.processInfo.environment)
        let name = (arguments[0] as NSString).lastPathComponent
        let group = ProcessGroup()
        let result = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
                // Blocking work runs on its own thread, never on the cooperative pool.
                Thread.detachNewThread {
                    continuation.resume(
                        with: Result {
                            try CommandTransform.runProgram(
                                arguments, input: input, folder: folder, environment: environment,
                                timeout: timeout, maxBytes: maxBytes, group: group)
                        })
                }
            }
        } onCancel: {
            // The refresh was stopped (its deadline, or the daemon's stop): the program and its children end.
            group.kill()
        }
        do {
            return try ValueLimits(bodyCap: maxBytes).readJSON(result, "the output of \(name)")
        } catch let error as StageError {
            throw error
        } catch {
            throw StageError("the output of \(name) is not JSON: \(error)")
        }
    }

    static func runProgram(
        _ arguments: [String], input: Data, folder: URL?, environment: [String], timeout: TimeInterval,
        maxBytes: Int, group: ProcessGroup
    ) throws -> Data {
        let program = arguments[0]
        let name = (program as NSString).lastPathComponent
        var executable = program
        if program.contains("/"), !program.hasPrefix("/"), let folder {
            executable = folder.appendingPathComponent(program).path
        }
        let pid: pid_t
        let stdin: (reading: FileHandle, writing: FileHandle)
        let stdout: (reading: FileHandle, writing: FileHandle)
        let stderr: (reading: FileHandle, writing: FileHandle)
        do {
            (stdin, stdout, stderr) = (try ChildProcess.pipe(), try ChildProcess.pipe(), try ChildProcess.pipe())
            pid = try ProcessGroup.spawn {
                try ChildProcess.spawn(
                    executable, arguments: arguments, environment: environment, folder: folder?.path,
                    stdin: stdin.reading.fileDescriptor,
                    stdout: stdout.writing.fileDescriptor,
                    stderr: stderr.writing.fileDescriptor)
            }
        } catch {
            throw StageError("\(name) cannot be started: \(error)")
        }
        group.started(pid)
        // The child has its copies; ours would keep the pipes open after it ends.
        try? stdin.reading.close()
        try? stdout.writing.close()
        try? stderr.writing.close()
        // Whatever happens below, the whole group ends and the program is reaped — in that order: until it
        // is reaped its pid, and so its group's id, cannot be given to another process.
        var reaped = false
        defer {
            if !reaped {
                group.kill()
                group.end()
                ChildProcess.wait(pid)
                ProcessGroup.reaped(pid)
            }
        }
        let writer = Thread {
            // A program that exits without reading its input must not kill us with SIGPIPE: blocked in this
            // thread, the signal stays pending here (and dies with the thread) and the write fails with EPIPE.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            try? stdin.writing.write(contentsOf: input)
            try? stdin.writing.close()
        }
        writer.start()
        let deadline = DispatchTime.now() + timeout
        // Standard output and error are read on their own threads; this thread waits for both to end, or for
        // the deadline (a program's children may keep the pipes open after it is killed).
        final class Collected: @unchecked Sendable {
            var output = Data()
            var errors = Data()
            var tooLarge = false
        }
        let collected = Collected()
        let finished = DispatchSemaphore(value: 0)
        let outputEnded = DispatchSemaphore(value: 0)
        let stdoutReader = Thread {
            let reader = stdout.reading
            while let chunk = try? reader.read(upToCount: 65_536), !chunk.isEmpty {
                collected.output.append(chunk)
                if collected.output.count > maxBytes {
                    collected.tooLarge = true
                    group.kill()
                    break
                }
            }
            outputEnded.signal()
        }
        let stderrReader = Thread {
            collected.errors = (try? stderr.reading.read(upToCount: 65_536)) ?? Data()
            finished.signal()
        }
        stdoutReader.start()
        stderrReader.start()
        let outputInTime = outputEnded.wait(timeout: deadline) == .success
        if outputInTime, collected.tooLarge { throw StageError("\(name) printed more than the \(maxBytes)-byte limit") }
        guard outputInTime, finished.wait(timeout: deadline) == .success else {
            if group.wasKilled, !collected.tooLarge { throw CancellationError() }
            throw StageError("\(name) did not finish within \(Int(timeout)) s")
        }
        // It has exited (not reaped yet): what it left running in its group goes, then it is reaped.
        ChildProcess.waitForExit(pid)
        group.killLeftovers()
        group.end()
        let status = ChildProcess.wait(pid)
        ProcessGroup.reaped(pid)
        reaped = true
        let tooLarge = collected.tooLarge
        let output = collected.output
        let errors: Data? = collected.errors
        if tooLarge { throw StageError("\(name) printed more than the \(maxBytes)-byte limit") }
        if group.wasKilled { throw CancellationError() }
        switch status {
        case .exited(0):
            return output
        case .exited(let code):
            let firstLine =
                errors.flatMap { String(decoding: $0, as: UTF8.self).split(separator: "\n").first }
                .map { ": \($0)" } ?? ""
            throw StageError("\(name) exited with status \(code)\(firstLine)")
        case .signalled(let signal):
            throw StageError("\(name) was ended by signal \(signal)")
        }
    }
}

/// The process group of one program run: its pid (also its group's id) from its start until just before
/// it is reaped. Signals are sent under the lock, so none can reach a group whose id was given to another
/// process after the reaping.
final class ProcessGroup: Sendable {
    private let state = Mutex<(pid: pid_t?, killed: Bool)>((nil, false))

    /// The programs the `command` transform started, for ``RunningPrograms``.
    fileprivate struct Registry {
        /// The groups of the programs running now, for ``RunningPrograms/killAll()``.
        var groups: Set<pid_t> = []
        /// The programs started and not reaped yet: every other child of this process is an orphan it
        /// adopted as their subreaper.
        var children: Set<pid_t> = []
        /// Whether this process adopts orphans (``RunningPrograms/adoptOrphans()``) and so reaps them.
        var adopting = false
        /// The children this process had when it began adopting (a shell's `helper & exec widgetd`):
        /// they are not orphans of programs, and are left alone while they run.
        var inherited: Set<pid_t> = []
    }

    fileprivate static let registry = Mutex(Registry())

    /// Starts a program with `spawn` under the registry's lock, so that no sweep for orphans takes it
    /// for one before it is recorded.
    static func spawn(_ spawn: () throws -> pid_t) throws -> pid_t {
        try registry.withLock { registry in
            let pid = try spawn()
            registry.children.insert(pid)
            return pid
        }
    }

    /// Called once `pid`, a program started with ``spawn(_:)``, is reaped: it is no longer a child of
    /// ours, and the orphans its run left behind (processes that escaped its group) are killed and reaped.
    static func reaped(_ pid: pid_t) {
        registry.withLock { registry in
            registry.children.remove(pid)
            if registry.adopting { sweepOrphans(&registry, all: false) }
        }
    }

    /// Records the program's pid. A kill that came first is applied now.
    func started(_ pid: pid_t) {
        state.withLock { state in
            state.pid = pid
            ProcessGroup.registry.withLock { _ = $0.groups.insert(pid) }
            if state.killed { killGroup(pid) }
        }
    }

    /// Ends the program and everything in its group (or does so as soon as it starts).
    func kill() {
        state.withLock { state in
            state.killed = true
            if let pid = state.pid { killGroup(pid) }
        }
    }

    /// Ends what the program left running in its group once it exited on its own.
    func killLeftovers() {
        state.withLock { state in
            if let pid = state.pid { killGroup(pid) }
        }
    }

    /// Called just before the program is reaped: no signal is sent to its group after this.
    func end() {
        state.withLock { state in
            if let pid = state.pid { ProcessGroup.registry.withLock { _ = $0.groups.remove(pid) } }
            state.pid = nil
        }
    }

    /// Whether ``kill()`` was called: the program did not end on its own.
    var wasKilled: Bool { state.withLock { $0.killed } }

    /// Kills and reaps the children of this process that it did not start: orphans of programs' runs,
    /// given to it as their subreaper. Those still in the group of a running program are left to that
    /// program's end, unless `all`. Repeated while killing one gives up more (its own children).
    fileprivate static func sweepOrphans(_ registry: inout Registry, all: Bool) {
        #if os(Linux)
        for _ in 0..<16 {
            let orphans = ChildProcess.children().filter {
                !registry.children.contains($0.pid)
                    && ($0.zombie || (!registry.inherited.contains($0.pid) && (all || !registry.groups.contains($0.group))))
            }
            if orphans.isEmpty { return }
            for orphan in orphans where !orphan.zombie {
                // A group of its own (setsid, setpgid) goes whole; the orphan's pid is not free for reuse
                // until it is reaped below, so neither is its group's id.
                if orphan.group == orphan.pid { killGroup(orphan.pid) }
                _ = Glibc.kill(orphan.pid, SIGKILL)
            }
            for orphan in orphans {
                ChildProcess.wait(orphan.pid)
                // Reaped, its pid may be given to a new process, which is no longer inherited.
                registry.inherited.remove(orphan.pid)
            }
        }
        #endif
    }
}

/// The programs the `command` transform has running.
public enum RunningPrograms {
    /// Kills every program the `command` transform started and has not reaped yet, with everything in
    /// its process group, and the orphans this process adopted: for a process about to end without
    /// waiting for its refreshes, so that it leaves nothing running behind it.
    ///
    /// - Parameter waiting: Whether to wait for each killed program to end before the orphans are swept
    ///   (so that the kernel has handed its children over); a process that must end at a deadline passes
    ///   `false`, since a process stuck in the kernel could hold it.
    public static func killAll(waiting: Bool = true) {
        // A group leaves this set before its program is reaped, under this lock: no signal can reach a
        // process that was given the id of a reaped one.
        ProcessGroup.registry.withLock { registry in
            for group in registry.groups { killGroup(group) }
            guard registry.adopting else { return }
            // Each program leads its own group, whose id stays in `groups` until just before the program
            // is reaped. Once a killed program has ended, the kernel has already given its children to
            // this process: the sweep then finds them, however busy the machine.
            for program in registry.children where waiting && registry.groups.contains(program) {
                ChildProcess.waitForExit(program)
            }
            ProcessGroup.sweepOrphans(&registry, all: true)
        }
    }

    /// Makes this process adopt what programs leave behind outside their process group (a process that
    /// called `setsid`, or moved to a group of its own, then lost its parent): on Linux it becomes their
    /// child subreaper, and each program's end kills and reaps every orphan it was given. Returns whether
    /// orphans are adopted (`false` on other systems).
    ///
    /// Call it once, at the start of a process that runs no other children than the `command`
    /// transform's (every other child it has counts as an orphan): `widgetd` does; a test process that
    /// starts programs of its own must not.
    @discardableResult
    public static func adoptOrphans() -> Bool {
        #if os(Linux)
        guard ChildProcess.becomeSubreaper() else { return false }
        let inherited = Set(ChildProcess.children().map(\.pid))
        ProcessGroup.registry.withLock { registry in
            registry.inherited = inherited
            registry.adopting = true
        }
        return true
        #else
        return false
        #endif
    }
}

/// SIGKILL to the process group `group`.
private func killGroup(_ group: pid_t) {
    _ = kill(-group, SIGKILL)
}
