import Foundation
import WidgetCore
import WidgetRuntime
import WidgetStages
import WidgetTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Loading and validating 1,000 definitions from a folder.
func runDefinitionBenchmarks() {
    Benchmarks.section("definitions: load and validate 1,000 files")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("widgetd-bench-\(getpid())")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    // Every 15 minutes is 96 refreshes a day: with maxPerDay raised to fit, as validate's warning asks.
    let schedules = [
        #"{"every": "15m", "maxPerDay": 96}"#, #"{"at": ["08:00", "12:00", "16:00", "20:00"]}"#, #"{"cron": "0 */4 * * *"}"#, #""atEnd""#,
    ]
    var totalBytes = 0
    for index in 0..<1_000 {
        let text = """
            {
              "title": "Widget \(index)",
              "timeZone": "America/New_York",
              "inputs": { "daily": { "url": "https://api.example.com/daily/{{ 'now' | date: '%Y-%m-%d' }}.json" } },
              "source": { "url": "https://api.example.com/items/{{ inputs.daily.id }}?page=\(index)", "headers": { "Accept": "application/json" }, "timeout": "10s" },
              "parser": "json",
              "transforms": [
                { "type": "select", "path": "$.items[?@.price > 10 && @.image != null]" },
                { "type": "sort", "by": "$.published", "order": "descending" },
                { "type": "limit", "count": 4 },
                { "type": "map", "fields": { "title": "{{ title | strip | truncate: 40 }}", "price": "{{ price | times: 1.2 | round: 2 }}", "image": "{{ image.url }}" } }
              ],
              "timeline": { "type": "each", "at": ["08:00", "12:00", "16:00", "20:00"], "relevance": "{{ price | divided_by: 100.0 }}" },
              "schedule": \(schedules[index % schedules.count]),
              "staleAfter": "24h",
              "fallback": { "keep": 20, "pick": "daily" },
              "placeholder": { "title": "Loading…" }
            }
            """
        totalBytes += text.utf8.count
        try? Data(text.utf8).write(to: folder.appendingPathComponent(String(format: "w%04d.json", index)))
    }
    let reader = DefinitionReader(registry: .builtIn)
    let directory = DefinitionDirectory(path: folder.path)
    let check = directory.load(reader: reader)
    emit(
        "  \(check.widgets.count) widgets valid, \(check.diagnostics.count) problems\(check.diagnostics.first.map { " (first: \($0))" } ?? "")"
    )
    let load = Benchmarks.measure(name: "load + validate 1,000 definitions", bytes: totalBytes, iterations: 10, warmups: 2) {
        directory.load(reader: reader).widgets.count
    }
    emit(
        "  \(String(format: "%.1f", load.median * 1e3)) ms for 1,000 files in process; "
            + "\(String(format: "%.1f", load.median * 1e6 / 1_000)) µs a definition")

    // The whole process, as a user runs it: start-up, reading the folder, checking, printing, exiting.
    let widgetd = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("widgetd")
    guard FileManager.default.isExecutableFile(atPath: widgetd.path) else {
        emit("  whole process: skipped; widgetd is not built beside this program (swift build -c release --product widgetd)")
        return
    }
    // An earlier build of widgetd, timed in the same rounds, when one is named: the figure before a change.
    var before = ProcessInfo.processInfo.environment["WIDGETD_BENCH_BEFORE"].map { URL(fileURLWithPath: $0) }
    if let earlier = before, !FileManager.default.isExecutableFile(atPath: earlier.path) {
        emit("  earlier build: skipped; WIDGETD_BENCH_BEFORE names no executable at \(earlier.path)")
        before = nil
    }
    // Each run's CPU time (user and system) too: on a busy machine it moves less than the wall time.
    var cpu: [[Double]] = []
    func run(_ program: URL, _ arguments: [String]) -> () throws -> Any {
        let index = cpu.count
        cpu.append([])
        return {
            let start = cpuSeconds(children: true)
            let status = try runToEnd(program, arguments, expecting: 0)
            cpu[index].append(cpuSeconds(children: true) - start)
            return status
        }
    }
    var runs: [(name: String, body: () throws -> Any)] = [
        ("widgetd validate, 1,000 files (process)", run(widgetd, ["validate", "--config", folder.path]))
    ]
    if let before { runs.append(("earlier widgetd validate (process)", run(before, ["validate", "--config", folder.path]))) }
    runs.append(("widgetd --help (process)", run(widgetd, ["--help"])))
    // 30 runs of each, whatever they take: the goal is a median of 30.
    let warmups = 2
    guard let results = Benchmarks.measureInTurn(runs, bytes: totalBytes, iterations: 30, warmups: warmups, budget: .infinity),
        let validate = results.first, let help = results.last
    else { return }
    let milliseconds = { (seconds: Double) in String(format: "%.1f ms", seconds * 1e3) }
    let cpuMedians = cpu.map { times in
        let sorted = times.dropFirst(warmups).sorted()
        return sorted.isEmpty ? Double.nan : sorted[sorted.count / 2]
    }
    emit(
        "  CPU time a run (user and system, median): "
            + zip(results, cpuMedians).map { "\($0.name.replacingOccurrences(of: " (process)", with: "")) \(milliseconds($1))" }
            .joined(separator: "; "))
    emit(
        "  widgetd validate of 1,000 files: \(milliseconds(validate.median)) median of \(validate.iterations) runs as a whole "
            + "process, fastest \(milliseconds(validate.fastest)) (goal: under 100 ms median, "
            + "\(validate.median < 0.1 ? "met" : "missed")); \(milliseconds(validate.median - help.median)) more than "
            + "widgetd --help (\(milliseconds(help.median))); \(milliseconds(load.median)) for the same files in process")
    if before != nil, results.count == 3 {
        let earlier = results[1]
        emit(
            "  earlier build: \(milliseconds(earlier.median)) median, fastest \(milliseconds(earlier.fastest)); "
                + "this build takes \(String(format: "%.2f", validate.median / earlier.median))× its time")
    }
    emit("  \(widgetd.lastPathComponent) links the Swift runtime \(linksSwiftRuntimeStatically(widgetd) ? "statically" : "dynamically")")
}

/// Whether `program` was built with the Swift runtime inside it (`swift build --static-swift-stdlib`):
/// it then names no `libswiftCore.so` to load.
private func linksSwiftRuntimeStatically(_ program: URL) -> Bool {
    guard let bytes = try? Data(contentsOf: program, options: .alwaysMapped) else { return false }
    return bytes.range(of: Data("libswiftCore.so".utf8)) == nil
}

/// Runs `program` with `arguments`, its input and output `/dev/null`, and waits for it to exit.
///
/// Spawned and reaped directly (`posix_spawn`, `waitpid`): Foundation's `Process.waitUntilExit` polls its
/// run loop every 50 ms, which would hide a short program's time.
///
/// - Throws: when it cannot start or exits with another status than `expecting`.
private func runToEnd(_ program: URL, _ arguments: [String], expecting status: Int32) throws -> Int32 {
    #if canImport(Glibc)
    var actions = posix_spawn_file_actions_t()
    #else
    var actions: posix_spawn_file_actions_t?
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for descriptor: Int32 in 0...2 {
        posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    let argv: [UnsafeMutablePointer<CChar>?] = ([program.path] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, program.path, &actions, nil, argv, envp)
    guard spawned == 0 else { throw StageError("\(program.path) could not be started: error \(spawned)") }
    var wait: Int32 = 0
    while waitpid(pid, &wait, 0) == -1 && errno == EINTR {}
    let exited = wait & 0x7f == 0 ? (wait >> 8) & 0xff : -1
    guard exited == status else {
        throw StageError("\(program.lastPathComponent) \(arguments.joined(separator: " ")) exited with \(exited)")
    }
    return exited
}

/// One refresh of a widget with a 20 KB JSON payload from a local server: CPU time per refresh.
func runRefreshBenchmarks() {
    Benchmarks.section("refresh: one widget, 20 KB JSON from a local server")
    let server: BenchmarkServer
    do {
        server = try BenchmarkServer()
    } catch {
        emit("  skipped: the local test server did not start (\(error))")
        return
    }
    defer { server.stop() }
    let definition = """
        {
          "source": { "url": "\(server.url("/json?size=280").absoluteString)" },
          "transforms": [
            { "type": "select", "path": "$.items[?@.score > 10]" },
            { "type": "sort", "by": "$.score", "order": "descending" },
            { "type": "limit", "count": 10 },
            { "type": "map", "fields": { "title": "{{ title | upcase }}", "score": "{{ score | times: 2 }}" } }
          ],
          "schedule": { "every": "15m" }
        }
        """
    let read = DefinitionReader(registry: .builtIn).read(Data(definition.utf8), file: "bench.json")
    guard let pipeline = read.widgets.first else {
        emit("  Error: \(read.diagnostics.map(\.description).joined(separator: "; "))")
        return
    }
    let refresher = WidgetRefresher(secrets: SecretStore())
    let semaphore = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var lines: [String] = []
    Task {
        let now = Date()
        for _ in 0..<20 { _ = await refresher.refresh(pipeline, state: WidgetState(), now: now, respectBudget: false) }
        let count = 300
        let cpuBefore = cpuSeconds()
        let clock = ContinuousClock()
        let start = clock.now
        var fresh = 0
        var last: WidgetRefresher.Outcome?
        for _ in 0..<count {
            let outcome = await refresher.refresh(pipeline, state: WidgetState(), now: now, respectBudget: false)
            if outcome.snapshot.status == .fresh { fresh += 1 }
            last = outcome
        }
        let wall = clock.now - start
        let cpu = cpuSeconds() - cpuBefore
        let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) * 1e-18
        let entries = last?.snapshot.entries.count ?? 0
        lines.append(
            "  \(count) refreshes, \(fresh) fresh; payload \(last?.fetchBytes ?? 0) bytes fetched, "
                + "\(entries) entr\(entries == 1 ? "y" : "ies")"
        )
        if fresh != count { lines.append("  Error: \(count - fresh) refreshes were not fresh: \(last?.error?.description ?? "?")") }
        lines.append("  CPU time per refresh (this process): \(String(format: "%.3f", cpu / Double(count) * 1e3)) ms")
        lines.append("  wall time per refresh: \(String(format: "%.3f", wallSeconds / Double(count) * 1e3)) ms")
        semaphore.signal()
    }
    semaphore.wait()
    for line in lines { emit(line) }
}

/// User plus system CPU time of this process, or of its children that have ended, in seconds.
func cpuSeconds(children: Bool = false) -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &usage)
    #endif
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return user + system
}
