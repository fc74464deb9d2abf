import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts programs with `posix_spawn`, which Foundation's `Process` does not expose fully: an exact
/// environment, and a process group of the child's own (so it can be killed with every process it starts).
enum ChildProcess {
    /// How a child ended.
    enum Status: Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    /// Why a program could not be started.
    struct SpawnError: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts `executable` (looked up in `PATH` when it has no `/`) with `arguments` (the first is its
    /// name), exactly `environment` (`NAME=value`), in `folder`, with the three descriptors as its standard
    /// streams, in a new process group whose id is the returned pid.
    static func spawn(
        _ executable: String, arguments: [String], environment: [String], folder: String?,
        stdin: Int32, stdout: Int32, stderr: Int32
    ) throws -> pid_t {
        #if canImport(Glibc)
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #else
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        // Nothing else of widgetd's reaches the program: no open file, socket or lock.
        #if canImport(Glibc)
        if let addCloseFrom = Self.addCloseFrom {
            _ = addCloseFrom(&actions, 3)
        } else {
            let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            for descriptor in open.compactMap(Int32.init) where descriptor > 2 {
                posix_spawn_file_actions_addclose(&actions, descriptor)
            }
        }
        #endif
        if let folder {
            guard let addChdir = Self.addChdir else {
                throw SpawnError(description: "this system's posix_spawn cannot start a program in a folder")
            }
            let changed = addChdir(&actions, folder)
            if changed != 0 { throw SpawnError(description: String(cString: strerror(changed)).lowercased()) }
        }
        // A group of its own; signals as they are by default, none blocked (widgetd blocks some).
        var defaults = sigset_t()
        sigfillset(&defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        var flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
        #if canImport(Darwin)
        flags |= POSIX_SPAWN_CLOEXEC_DEFAULT
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result: Int32
        if executable.contains("/") {
            result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        } else {
            // posix_spawnp searches the PATH of widgetd, which the child's environment passes on too.
            result = posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
        }
        guard result == 0 else {
            throw SpawnError(description: result == ENOENT ? "no such program" : String(cString: strerror(result)).lowercased())
        }
        return pid
    }

    #if canImport(Glibc)
    private typealias FileActions = posix_spawn_file_actions_t
    #else
    private typealias FileActions = posix_spawn_file_actions_t?
    #endif

    /// `posix_spawn_file_actions_addchdir_np` (glibc 2.29, macOS 10.15), which the C module does not export.
    private static let addChdir: (@convention(c) (UnsafeMutablePointer<FileActions>, UnsafePointer<CChar>) -> Int32)? = {
        #if canImport(Glibc)
        let handle = dlopen(nil, RTLD_NOW)
        #else
        let handle = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #endif
        guard let symbol = dlsym(handle, "posix_spawn_file_actions_addchdir_np") else { return nil }
        return unsafeBitCast(
            symbol,
            to: (@convention(c) (UnsafeMutablePointer<FileActions>, UnsafePointer<CChar>) -> Int32).self)
    }()

    /// A pipe whose two ends close on exec, so that no child inherits them by accident (a child that held
    /// the writing end of its own input would wait for ever): `(reading, writing)` handles.
    static func pipe() throws -> (reading: FileHandle, writing: FileHandle) {
        var descriptors: [Int32] = [0, 0]
        #if canImport(Glibc)
        let made = Glibc.pipe(&descriptors)
        #else
        let made = Darwin.pipe(&descriptors)
        #endif
        if made == 0 {
            _ = fcntl(descriptors[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptors[1], F_SETFD, FD_CLOEXEC)
        }
        guard made == 0 else { throw SpawnError(description: "no pipe: \(String(cString: strerror(errno)).lowercased())") }
        return (
            FileHandle(fileDescriptor: descriptors[0], closeOnDealloc: true),
            FileHandle(fileDescriptor: descriptors[1], closeOnDealloc: true)
        )
    }

    #if canImport(Glibc)
    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34); without it the open descriptors are listed.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<FileActions>, Int32) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<FileActions>, Int32) -> Int32).self)
    }()
    #endif

    #if os(Linux)
    /// Makes this process the child subreaper of its descendants (`PR_SET_CHILD_SUBREAPER`): a process
    /// whose parent ends is given to this process instead of to init, so it can still be found and killed.
    /// Returns whether the system agreed.
    static func becomeSubreaper() -> Bool {
        // prctl is variadic, which Swift cannot call; its first argument and one more are all it needs.
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "prctl") else { return false }
        let prctl = unsafeBitCast(symbol, to: (@convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32).self)
        let setChildSubreaper: Int32 = 36
        return prctl(setChildSubreaper, 1, 0, 0, 0) == 0
    }

    /// A child of this process as `/proc` shows it.
    struct Child {
        var pid: pid_t
        /// Its process group.
        var group: pid_t
        /// Whether it has ended and waits to be reaped.
        var zombie: Bool
    }

    /// The processes whose parent is this process, from `/proc/PID/stat`.
    static func children() -> [Child] {
        let me = getpid()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name -> Child? in
            guard let pid = pid_t(name), pid != me,
                let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { return nil }
            // After "PID (name)": state, parent, group, …
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            guard fields.count > 2, pid_t(fields[1]) == me, let group = pid_t(fields[2]) else { return nil }
            return Child(pid: pid, group: group, zombie: fields[0] == "Z")
        }
    }
    #endif

    /// Waits for `pid` to end without reaping it: until ``wait(_:)`` its pid stays taken.
    static func waitForExit(_ pid: pid_t) {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0, errno == EINTR {}
    }

    /// Waits for `pid` to end and reaps it.
    @discardableResult
    static func wait(_ pid: pid_t) -> Status {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return .exited(-1) }
        }
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }
}
