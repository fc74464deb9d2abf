import Foundation
import WidgetCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Refreshes near the I/O limit: `widgetd run --once` over 1,000 HTTP widgets against a local nginx,
/// timed as a whole process, in alternation with `curl --parallel --parallel-max 4` fetching the same
/// 1,000 URLs (the baseline: the transfers alone, nothing parsed or written). Each widgetd run starts
/// with an empty output folder, so every snapshot, page and state is written, and the snapshots
/// flushed. Then the same again with the output folder in memory (`/dev/shm`, when there is one), which
/// separates what the disk costs from what the process does. One more run on disk under `strace`
/// counts the flushes a file costs.
///
/// Needs `nginx` (Debian's package is fine), `curl`, and `widgetd` built beside this program
/// (`swift build -c release --product widgetd`); says what is missing otherwise.
func runIOBenchmarks() {
    Benchmarks.section("io: run --once of 1,000 HTTP widgets against a local nginx, beside curl --parallel")
    guard let (nginx, widgetd) = nginxAndWidgetd() else { return }
    guard let curl = findProgram("curl", extraFolders: []) else {
        emit("  skipped: curl not found")
        return
    }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("widgetd-io-bench-\(getpid())")
    defer { try? FileManager.default.removeItem(at: folder) }
    let count = 1_000
    guard let server = LocalNginx.start(in: folder, nginx: nginx) else { return }
    defer { server.stop() }
    do {
        try writeWidgets(in: folder, count: count, port: server.port, itemsPerDocument: 10)
    } catch {
        emit("  skipped: cannot prepare \(folder.path): \(error)")
        return
    }

    let onDisk = timeRunOnce(widgetd: widgetd, curl: curl, folder: folder, outputs: folder, count: count, label: "")
    countFlushes(widgetd: widgetd, folder: folder)
    let memory = URL(fileURLWithPath: "/dev/shm/widgetd-io-bench-\(getpid())")
    guard (try? FileManager.default.createDirectory(at: memory, withIntermediateDirectories: true)) != nil else {
        emit("  (no /dev/shm: the run with the output folder in memory is skipped)")
        return
    }
    defer { try? FileManager.default.removeItem(at: memory) }
    let inMemory = timeRunOnce(widgetd: widgetd, curl: curl, folder: folder, outputs: memory, count: count, label: ", OUT in /dev/shm")
    emit(
        "  the disk's share: \(String(format: "%.1f", onDisk))× curl with OUT on disk, "
            + "\(String(format: "%.1f", inMemory))× with OUT in memory")
}

/// Times `run --once` into a new folder in `outputs` at each run, beside curl, and prints the rows, the
/// CPU time and the ratio; returns how many times curl's time widgetd takes.
private func timeRunOnce(widgetd: URL, curl: String, folder: URL, outputs: URL, count: Int, label: String) -> Double {
    var runs = 0
    var lastStatus: Int32 = 0
    var lastOutput = ""
    var widgetdCPU: [Double] = []
    let ratio = Benchmarks.compare(
        "widgetd run --once (1,000 widgets\(label))",
        {
            runs += 1
            let out = outputs.appendingPathComponent("out-\(runs)")
            let before = cpuSeconds(children: true)
            let (status, output) = runProgram(
                widgetd.path, ["run", "--once", "--config", folder.appendingPathComponent("defs").path, "--out", out.path])
            widgetdCPU.append(cpuSeconds(children: true) - before)
            lastStatus = status
            lastOutput = output
            return status
        },
        against: "curl --parallel --parallel-max 4",
        {
            runProgram(curl, ["--silent", "--parallel", "--parallel-max", "4", "--config", folder.appendingPathComponent("curl.cfg").path])
                .status
        },
        bytes: 0, iterations: 9, warmups: 1, budget: 40)
    let summary = lastOutput.split(separator: "\n").last.map(String.init) ?? ""
    if lastStatus != 0 {
        emit("  Error: widgetd exited with \(lastStatus): \(summary)")
    } else {
        emit("  widgetd: \(summary)")
    }
    let cpu = widgetdCPU.sorted()[widgetdCPU.count / 2]
    emit(
        "  widgetd CPU time (user + system) per run: \(String(format: "%.3f", cpu)) s, "
            + "\(String(format: "%.0f", cpu / Double(count) * 1e6)) µs a widget")
    emit("  widgetd takes \(String(format: "%.1f", 1 / ratio))× curl's time\(label) (goal: at most 4×)")
    return 1 / ratio
}

/// Runs `run --once` into a new folder once more under `strace -f -c` (when there is one) and prints how
/// many files were renamed into place and how many calls flushed data or folders (`fsync`, `fdatasync`,
/// `syncfs`): the flushes a file costs.
private func countFlushes(widgetd: URL, folder: URL) {
    guard let strace = findProgram("strace", extraFolders: ["/usr/sbin"]) else {
        emit("  flushes: not counted (no strace)")
        return
    }
    let report = folder.appendingPathComponent("strace.txt")
    let out = folder.appendingPathComponent("out-strace")
    let (status, output) = runProgram(
        strace,
        [
            "-f", "-c", "-o", report.path, "-e", "trace=fsync,fdatasync,syncfs,rename,renameat,renameat2",
            widgetd.path, "run", "--once", "--config", folder.appendingPathComponent("defs").path, "--out", out.path,
        ])
    guard status == 0, let text = try? String(contentsOf: report, encoding: .utf8) else {
        emit("  flushes: not counted (strace exited with \(status): \(output.split(separator: "\n").last ?? ""))")
        return
    }
    // `strace -c`'s table: `% time  seconds  usecs/call  calls  [errors]  syscall`.
    var calls: [String: Int] = [:]
    for line in text.split(separator: "\n") {
        let fields = line.split(separator: " ")
        guard fields.count >= 5, let number = Int(fields[3]), let name = fields.last, name != "total" else { continue }
        calls[String(name), default: 0] += number
    }
    let files = calls["rename", default: 0] + calls["renameat", default: 0] + calls["renameat2", default: 0]
    let flushes = ["fsync", "fdatasync", "syncfs"].map { calls[$0, default: 0] }
    let total = flushes.reduce(0, +)
    emit(
        "  flushes (one run under strace): \(files) files renamed, \(total) flushes "
            + "(\(flushes[0]) fsync, \(flushes[1]) fdatasync, \(flushes[2]) syncfs), "
            + "\(String(format: "%.2f", Double(total) / Double(max(1, files)))) a file")
}

/// nginx serving `folder/www` on a free local port, with its configuration, temporary folders and logs
/// in `folder`; started by ``start(in:nginx:)``, which says why when it cannot.
struct LocalNginx {
    let process: Process
    let port: Int

    static func start(in folder: URL, nginx: String) -> LocalNginx? {
        guard let port = freePort() else {
            emit("  skipped: no free local port")
            return nil
        }
        let www = folder.appendingPathComponent("www")
        let temp = folder.appendingPathComponent("temp").path
        let configuration = """
            worker_processes 2;
            daemon off;
            pid \(folder.appendingPathComponent("nginx.pid").path);
            events { worker_connections 1024; }
            http {
              access_log off;
              client_body_temp_path \(temp)/body;
              proxy_temp_path \(temp)/proxy;
              fastcgi_temp_path \(temp)/fastcgi;
              uwsgi_temp_path \(temp)/uwsgi;
              scgi_temp_path \(temp)/scgi;
              types { application/json json; }
              server { listen 127.0.0.1:\(port); root \(www.path); keepalive_requests 100000; }
            }
            """
        do {
            for sub in [www, folder.appendingPathComponent("temp")] {
                try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            }
            try Data(configuration.utf8).write(to: folder.appendingPathComponent("nginx.conf"))
        } catch {
            emit("  skipped: cannot prepare \(folder.path): \(error)")
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = [
            "-p", folder.path + "/", "-c", folder.appendingPathComponent("nginx.conf").path,
            "-e", folder.appendingPathComponent("nginx-error.log").path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            emit("  skipped: nginx did not start: \(error)")
            return nil
        }
        guard waitForPort(port, seconds: 10) else {
            let log = (try? String(contentsOf: folder.appendingPathComponent("nginx-error.log"), encoding: .utf8)) ?? ""
            emit("  skipped: nginx did not listen on 127.0.0.1:\(port): \(log.split(separator: "\n").last ?? "")")
            process.terminate()
            process.waitUntilExit()
            return nil
        }
        return LocalNginx(process: process, port: port)
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// Writes `count` JSON documents of `itemsPerDocument` items (~125 bytes each) for nginx to serve, a
/// definition for each in `folder/defs` (keeping at most `limit` items, when given; every 15 minutes with
/// the `maxPerDay` that takes, so that `validate` has nothing to say), and curl's list of the same URLs.
func writeWidgets(in folder: URL, count: Int, port: Int, itemsPerDocument: Int, limit: Int? = nil) throws {
    let manager = FileManager.default
    let www = folder.appendingPathComponent("www")
    let defs = folder.appendingPathComponent("defs")
    for sub in [www, defs] {
        try manager.createDirectory(at: sub, withIntermediateDirectories: true)
    }
    var curlConfig = ""
    for index in 0..<count {
        let name = String(format: "w%04d", index)
        let items = (0..<itemsPerDocument).map { item in
            #"{"id": \#(item), "name": "thing \#(item) of \#(index)", "price": \#(Double(item) * 1.25), "tags": ["a", "b"]}"#
        }
        let document = #"{"id": \#(index), "title": "Item \#(index)", "items": [\#(items.joined(separator: ", "))]}"#
        try Data(document.utf8).write(to: www.appendingPathComponent("\(name).json"))
        let url = "http://127.0.0.1:\(port)/\(name).json"
        let definition = """
            {
              "title": "Widget \(index)",
              "source": { "url": "\(url)" },
              "parser": "json",
              "transforms": [
                { "type": "select", "path": "$.items[?@.price > 2]" },\(limit.map { #"{ "type": "limit", "count": \#($0) },"# } ?? "")
                { "type": "map", "fields": { "name": "{{ name | upcase }}", "price": "{{ price | times: 2 }}" } }
              ],
              "schedule": { "every": "15m", "maxPerDay": 96 }
            }
            """
        try Data(definition.utf8).write(to: defs.appendingPathComponent("\(name).json"))
        curlConfig += "url = \"\(url)\"\noutput = \"/dev/null\"\n"
    }
    try Data(curlConfig.utf8).write(to: folder.appendingPathComponent("curl.cfg"))
}

/// nginx and the `widgetd` built beside this program, which the suites that run the daemon need; `nil`,
/// saying which is missing, otherwise.
func nginxAndWidgetd() -> (nginx: String, widgetd: URL)? {
    guard let nginx = findProgram("nginx", extraFolders: ["/usr/sbin", "/usr/local/sbin", "/opt/homebrew/bin"]) else {
        emit("  skipped: nginx not found (Debian: apt-get install nginx)")
        return nil
    }
    let widgetd = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("widgetd")
    guard FileManager.default.isExecutableFile(atPath: widgetd.path) else {
        emit("  skipped: widgetd is not built beside this program; build it first: swift build -c release --product widgetd")
        return nil
    }
    return (nginx, widgetd)
}

/// The path of `name` in `PATH` or one of `extraFolders`.
func findProgram(_ name: String, extraFolders: [String]) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for folder in path.split(separator: ":").map(String.init) + extraFolders {
        let candidate = folder + "/" + name
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}

/// Runs a program to its end; returns its exit status and what it wrote to standard error.
private func runProgram(_ path: String, _ arguments: [String]) -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    let errors = Pipe()
    process.standardError = errors
    do {
        try process.run()
    } catch {
        return (-1, "\(error)")
    }
    let output = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}

/// A local TCP port nothing listens on now.
func freePort() -> Int? {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
            bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
        }
    }
    return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
}

/// Whether something accepts connections on 127.0.0.1:`port` within `seconds`.
func waitForPort(_ port: Int, seconds: Double) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        close(descriptor)
        if connected { return true }
        usleep(20_000)
    }
    return false
}
