import Foundation
import Synchronization
import WidgetCore
import WidgetJSON
import WidgetRuntime

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one machine carries: N HTTP widgets on 5-minute schedules (`"every": "5m"`) in one real
/// `widgetd run` against a local nginx, for 10,000 and then 100,000 widgets.
///
/// For each N, in one run:
/// 1. `widgetd validate` of the N definitions (one folder) and `widgetd run --once` into an empty
///    output folder: the baselines, timed as whole processes, with their CPU time.
/// 2. `widgetd run` into another empty folder until its first wave is complete (every widget `fresh`
///    in `index.json`; the time is the index's modification time): start-up time beside `--once`'s,
///    resident memory and CPU per refresh of that wave. Then it is stopped.
/// 3. Every widget's saved due time is moved so that the due times are spread evenly over the next 5
///    minutes (the daemon itself makes every widget without data due at once, and schedules the next
///    refresh 5 minutes after each: the waves would stay as bunched as the first), and `widgetd run` is
///    started again on that folder for the duration: ~N/300 refreshes are due each second from the
///    first spread due time on. Over that steady part: the CPU time of the daemon per refresh, beside
///    `--once`'s, its resident memory at the end, and the lateness of each refresh (start − due time,
///    the `late` of its `refreshed` record in the daemon's JSON log, read from its standard error),
///    p50, p99 and max; widgets still waiting at the end are counted apart ("missed").
///
/// The definitions and nginx's documents are in `/dev/shm` when there is one (creating 100,000 files on
/// this disk takes minutes); the output folders are on disk. Every wait is bounded (the first wave at
/// 5× `--once`'s time, 3 minutes at least, or `WIDGETD_BENCH_SCALE_WAVE_LIMIT` seconds): a daemon that cannot keep up is reported as such ("missed"),
/// never waited for without end.
/// `WIDGETD_BENCH_SCALE=10000` (or `10000,100000`) picks N, `WIDGETD_BENCH_SCALE_MINUTES=2` the duration
/// of the steady part (10 minutes by default). Needs nginx and `widgetd` built beside this program.
func runScaleBenchmarks() {
    let environment = ProcessInfo.processInfo.environment
    let counts =
        environment["WIDGETD_BENCH_SCALE"].map { $0.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) } }
        ?? [10_000, 100_000]
    let minutes = environment["WIDGETD_BENCH_SCALE_MINUTES"].flatMap(Double.init) ?? 10
    emit("")
    emit(
        "== scale: \(counts.map(String.init).joined(separator: " and ")) HTTP widgets every 5 minutes in one daemon, "
            + "\(String(format: "%g", minutes)) minutes each")
    guard residentKiB(of: getpid()) != nil else {
        emit("  skipped: the daemon's memory and CPU are read from /proc, which this system does not have")
        return
    }
    guard let (nginx, widgetd) = nginxAndWidgetd() else { return }
    guard !counts.isEmpty, counts.allSatisfy({ $0 > 0 }), minutes > 0 else {
        emit("  Error: WIDGETD_BENCH_SCALE must list widget counts (10000,100000) and WIDGETD_BENCH_SCALE_MINUTES be positive.")
        return
    }
    emit("  open files: \(raiseOpenFileLimit()) for the daemon (the hard limit)")
    for count in counts {
        ScaleRun(count: count, steadySeconds: minutes * 60, nginx: nginx, widgetd: widgetd).run()
    }
}

/// One N of the `scale` suite (see `runScaleBenchmarks()`).
private struct ScaleRun {
    let count: Int
    let steadySeconds: Double
    let nginx: String
    let widgetd: URL
    /// The schedule's interval.
    static let interval: Double = 300
    /// How many documents nginx serves; widget i reads document i mod this, with `?w=i` (distinct URLs,
    /// so no two widgets share a fetch).
    static let documents = 500

    func run() {
        emit("")
        emit("  -- \(count) widgets")
        // The definitions and nginx's documents in memory when there is a RAM disk (creating 100,000 files
        // on a disk takes minutes); the daemon's output on disk, as in use.
        let shared = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        let inputs = FileManager.default.isWritableFile(atPath: shared.path) ? shared : FileManager.default.temporaryDirectory
        let folder = inputs.appendingPathComponent("widgetd-scale-bench-\(getpid())-\(count)")
        let outputs = FileManager.default.temporaryDirectory.appendingPathComponent("widgetd-scale-bench-\(getpid())-\(count)-out")
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: outputs)
        }
        guard let server = LocalNginx.start(in: folder, nginx: nginx) else { return }
        defer { server.stop() }
        let defs = folder.appendingPathComponent("defs")
        let written = Date()
        do {
            try writeDefinitions(in: folder, port: server.port)
        } catch {
            emit("  skipped: cannot prepare \(folder.path): \(error)")
            return
        }
        emit("  \(count) definitions written in \(seconds(Date().timeIntervalSince(written)))")

        // The baselines: validate, then run --once, as whole processes.
        let validate = runBounded(
            widgetd.path, ["validate", "--config", defs.path], log: folder.appendingPathComponent("validate.log"), limit: 600)
        emit(
            "  widgetd validate of \(count) definitions: \(seconds(validate.seconds)), CPU \(seconds(validate.cpu))"
                + (validate.status == 0 ? "" : " (exit \(validate.status): \(validate.lastLine))"))
        let once = runBounded(
            widgetd.path, ["run", "--once", "--config", defs.path, "--out", outputs.appendingPathComponent("once").path],
            log: folder.appendingPathComponent("once.log"), limit: max(600, Double(count) / 20))
        emit(
            "  run --once: \(seconds(once.seconds)), CPU \(seconds(once.cpu)) = \(microseconds(once.cpu / Double(count))) a refresh"
                + (once.status == 0 ? "" : "; Error: exit \(once.status): \(once.lastLine)"))

        // The first wave of the daemon, from an empty output folder.
        let out = outputs.appendingPathComponent("daemon")
        guard let first = DaemonUnderWatch.start(widgetd, config: defs, out: out, log: folder.appendingPathComponent("daemon-1.log"))
        else { return }
        let waveLimit =
            ProcessInfo.processInfo.environment["WIDGETD_BENCH_SCALE_WAVE_LIMIT"].flatMap(Double.init) ?? max(180, 5 * once.seconds)
        let wave = first.waitForFirstWave(of: count, index: out.appendingPathComponent("index.json"), limit: waveLimit)
        let waveCPU = first.daemonCPU()
        let waveResident = first.daemonResident()
        first.stop()
        if let loaded = first.loadedAfter {
            emit("  daemon loaded its \(count) widgets \(seconds(loaded)) after its start")
        }
        if let waveSeconds = wave.seconds {
            emit(
                "  first wave: every widget fresh in index.json \(seconds(waveSeconds)) after the start, "
                    + "\(String(format: "%.2f", waveSeconds / once.seconds))× run --once's \(seconds(once.seconds)) (goal: at most 1.2×)")
        } else {
            emit(
                "  missed: the first wave was not complete within \(seconds(waveLimit)): \(wave.fresh) of \(count) widgets fresh "
                    + "(\(String(format: "%.2f", waveLimit / once.seconds))× run --once's time and more)")
        }
        if let waveCPU {
            let refreshes = max(1, wave.fresh)
            emit(
                "  first wave CPU: \(seconds(waveCPU)) = \(microseconds(waveCPU / Double(refreshes))) a refresh, "
                    + "\(String(format: "%.2f", (waveCPU / Double(refreshes)) / (once.cpu / Double(count))))× run --once's")
        }
        if let waveResident {
            emit(
                "  resident \(wave.seconds == nil ? "at that limit" : "after the first wave"): \(mebibytes(waveResident)), "
                    + "\(kibibytesPerWidget(waveResident)) a widget")
        }

        // The steady part: due times spread over 5 minutes, from a moment the restarted daemon has loaded by.
        let lead = 10 + 2 * (first.loadedAfter ?? 10)
        let steadyStart = Date().addingTimeInterval(lead)
        let dueTimes: [String: Date]
        do {
            dueTimes = try spreadDueTimes(in: out, from: steadyStart)
        } catch {
            emit("  Error: the due times could not be spread: \(error)")
            return
        }
        guard
            let second = DaemonUnderWatch.start(
                widgetd, config: defs, out: out, log: folder.appendingPathComponent("daemon-2.log"), dueTimes: dueTimes,
                leftOut: wave.notFresh)
        else { return }
        let steady = second.measureSteadyPart(from: steadyStart, seconds: steadySeconds)
        second.stop()
        report(steady, once: once)
    }

    /// Prints the figures of the steady part.
    private func report(_ steady: SteadyPart, once: ProcessRun) {
        let done = steady.lateness.count
        emit(
            "  steady part: \(seconds(steady.wallSeconds)), \(done) refreshes measured "
                + "(\(String(format: "%.1f", Double(done) / steady.wallSeconds)) a second; "
                + "\(String(format: "%.1f", Double(count) / Self.interval)) due a second), \(steady.failed) not fresh")
        if let cpu = steady.cpuSeconds, done > 0 {
            let perRefresh = cpu / Double(done)
            emit(
                "  CPU per refresh: \(microseconds(perRefresh)) (\(seconds(cpu)) in all, "
                    + "\(String(format: "%.1f", cpu / steady.wallSeconds * 100))% of a core), run --once: "
                    + "\(microseconds(once.cpu / Double(count))); \(String(format: "%.2f", perRefresh / (once.cpu / Double(count))))× (goal: at most 1.5×)"
            )
        }
        if !steady.lateness.isEmpty {
            let sorted = steady.lateness.sorted()
            func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)] }
            emit(
                "  lateness against the due time: p50 \(milliseconds(percentile(0.5))), p99 \(milliseconds(percentile(0.99))), "
                    + "max \(milliseconds(sorted.last!)) over \(sorted.count) refreshes (goal at 100,000: p99 at most 1 s)")
        } else {
            emit("  lateness: no refresh measured in the steady part")
        }
        if steady.waiting > 0 {
            emit(
                "  missed: at the end \(steady.waiting) refreshes due more than 1 s before had not been refreshed, "
                    + "the oldest due \(seconds(steady.oldestWaiting)) before (the lateness above leaves them out)")
        }
        if steady.excluded > 0 {
            emit("  (\(steady.excluded) refreshes of widgets not fresh after the first wave, due at the start, are left out)")
        }
        if let resident = steady.residentKiB {
            emit("  resident at the end: \(mebibytes(resident)), \(kibibytesPerWidget(resident)) a widget")
        }
        if let problem = steady.problem { emit("  last error the daemon logged: \(problem)") }
    }

    /// Writes `documents` JSON documents for nginx and `count` definitions in `folder/defs`, each on a
    /// 5-minute schedule with the `maxPerDay` that takes (so that `validate` has nothing to say).
    private func writeDefinitions(in folder: URL, port: Int) throws {
        let manager = FileManager.default
        let www = folder.appendingPathComponent("www")
        let defs = folder.appendingPathComponent("defs")
        for sub in [www, defs] {
            try manager.createDirectory(at: sub, withIntermediateDirectories: true)
        }
        for index in 0..<Self.documents {
            let items = (0..<10).map { item in
                #"{"id": \#(item), "name": "thing \#(item) of \#(index)", "price": \#(Double(item) * 1.25), "tags": ["a", "b"]}"#
            }
            let document = #"{"id": \#(index), "title": "Item \#(index)", "items": [\#(items.joined(separator: ", "))]}"#
            try Data(document.utf8).write(to: www.appendingPathComponent(String(format: "d%03d.json", index)))
        }
        for index in 0..<count {
            let url = "http://127.0.0.1:\(port)/\(String(format: "d%03d.json", index % Self.documents))?w=\(index)"
            let definition = """
                {
                  "title": "Widget \(index)",
                  "source": { "url": "\(url)" },
                  "parser": "json",
                  "transforms": [
                    { "type": "select", "path": "$.items[?@.price > 2]" },
                    { "type": "map", "fields": { "name": "{{ name | upcase }}", "price": "{{ price | times: 2 }}" } }
                  ],
                  "schedule": { "every": "5m", "maxPerDay": 288 }
                }
                """
            try Data(definition.utf8).write(to: defs.appendingPathComponent(String(format: "w%06d.json", index)))
        }
    }

    /// Moves every widget's saved due time in `out` so that they are spread evenly over the 5 minutes
    /// from `start`, in the order of their ids; returns them.
    private func spreadDueTimes(in out: URL, from start: Date) throws -> [String: Date] {
        let store = SnapshotStore(directory: out)
        let ids = (0..<count).map { String(format: "w%06d", $0) }
        let states = store.states(for: ids)
        var due: [String: Date] = [:]
        for (position, id) in ids.enumerated() {
            var state = states[id] ?? WidgetState()
            let time = start.addingTimeInterval(Self.interval * Double(position) / Double(count))
            state.nextDueAt = time
            try store.writeState(state, for: id, syncsFolder: false)
            due[id] = time
        }
        store.syncFolders()
        return due
    }

    private func kibibytesPerWidget(_ kib: Int) -> String {
        String(format: "%.2f KiB", Double(kib) / Double(count))
    }
}

/// The steady part's figures (see ``DaemonUnderWatch/measureSteadyPart(from:seconds:)``).
private struct SteadyPart {
    var wallSeconds: Double
    /// The lateness of each refresh measured, in seconds.
    var lateness: [Double]
    /// Refreshes measured that did not end fresh.
    var failed: Int
    /// Refreshes left out: the first of each widget not fresh after the first wave.
    var excluded: Int
    /// Widgets due more than a second before the end and not started by then, and the oldest's wait.
    var waiting: Int
    var oldestWaiting: Double
    var cpuSeconds: Double?
    var residentKiB: Int?
    var problem: String?
}

/// A whole process run to its end (or stopped at its limit).
private struct ProcessRun {
    var status: Int32
    var seconds: Double
    var cpu: Double
    var lastLine: String
}

/// Runs a program with its standard error in `log`, killed when it runs past `limit` seconds.
private func runBounded(_ path: String, _ arguments: [String], log: URL, limit: Double) -> ProcessRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    guard let handle = try? FileHandle(forWritingTo: log) else { return ProcessRun(status: -1, seconds: .nan, cpu: .nan, lastLine: "") }
    defer { try? handle.close() }
    process.standardError = handle
    let before = cpuSeconds(children: true)
    let started = Date()
    do {
        try process.run()
    } catch {
        return ProcessRun(status: -1, seconds: .nan, cpu: .nan, lastLine: "\(error)")
    }
    var killed = false
    while process.isRunning {
        if Date().timeIntervalSince(started) > limit, !killed {
            kill(process.processIdentifier, SIGKILL)
            killed = true
        }
        usleep(10_000)
    }
    process.waitUntilExit()
    let seconds = Date().timeIntervalSince(started)
    let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    let last = text.split(separator: "\n").last.map(String.init) ?? ""
    return ProcessRun(
        status: killed ? -9 : process.terminationStatus, seconds: seconds, cpu: cpuSeconds(children: true) - before,
        lastLine: killed ? "killed after \(Int(limit)) s" : last)
}

/// A `widgetd run` with JSON logs at `info`, whose refresh records a thread reads as they come.
///
/// Unchecked: the process is only used from the benchmark's thread; what the log told is in a `Mutex`.
private final class DaemonUnderWatch: @unchecked Sendable {
    /// What the log has told so far.
    struct Seen {
        var loadedAt: Date?
        var fresh: Set<String> = []
        /// Each widget's next due time, from the seeded ones on (see ``start(_:config:out:log:dueTimes:leftOut:)``).
        var nextDue: [String: Date] = [:]
        /// The widgets whose next refresh is left out of the figures.
        var leftOut: Set<String> = []
        /// From the start of the steady part on.
        var measuring = false
        var lateness: [Double] = []
        var failed = 0
        var excluded = 0
        var problem: String?
        var logEnded = false
    }

    let process: Process
    let started: Date
    private let seen: Mutex<Seen>

    private init(process: Process, started: Date, seen: Seen) {
        self.process = process
        self.started = started
        self.seen = Mutex(seen)
    }

    /// Starts `widgetd run`, its standard error read by a thread (and copied to `log`); `dueTimes` are the
    /// widgets' due times when they were set before the start, `leftOut` the widgets whose first refresh
    /// the figures leave out.
    static func start(
        _ widgetd: URL, config: URL, out: URL, log: URL, dueTimes: [String: Date] = [:], leftOut: Set<String> = []
    ) -> DaemonUnderWatch? {
        let process = Process()
        process.executableURL = widgetd
        process.arguments = ["run", "--config", config.path, "--out", out.path, "--log-format", "json", "--log-level", "info"]
        process.standardOutput = FileHandle.nullDevice
        let pipe = Pipe()
        process.standardError = pipe
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let copy = try? FileHandle(forWritingTo: log)
        let started = Date()
        do {
            try process.run()
        } catch {
            emit("  Error: widgetd did not start: \(error)")
            return nil
        }
        let watch = DaemonUnderWatch(process: process, started: started, seen: Seen(nextDue: dueTimes, leftOut: leftOut))
        let errors = pipe.fileHandleForReading
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let chunk = errors.availableData
                if chunk.isEmpty { break }
                try? copy?.write(contentsOf: chunk)
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    watch.take(pending[pending.startIndex..<newline])
                    pending = Data(pending[(newline + 1)...])
                }
            }
            try? copy?.close()
            watch.seen.withLock { $0.logEnded = true }
        }
        return watch
    }

    /// Takes in one log line.
    private func take(_ line: Data) {
        guard let record = try? JSONReader.read(line), let event = record["event"]?.string else { return }
        switch event {
        case "loaded":
            seen.withLock { $0.loadedAt = Date() }
        case "refreshed", "refresh-failed", "write-failed":
            guard let widget = record["widget"]?.string else { return }
            let fresh = event == "refreshed" && record["status"]?.string == "fresh"
            let late = record["late"]?.number?.double
            let next = record["next"]?.string.flatMap(Timestamp.date)
            let error = record["error"]?.string
            seen.withLock { seen in
                if fresh { seen.fresh.insert(widget) }
                if let error { seen.problem = "\(widget): \(error)" }
                seen.nextDue[widget] = next
                if seen.leftOut.remove(widget) != nil {
                    if seen.measuring { seen.excluded += 1 }
                    return
                }
                guard seen.measuring, let late else { return }
                seen.lateness.append(late)
                if !fresh { seen.failed += 1 }
            }
        case _ where record["level"]?.string == "error":
            seen.withLock { $0.problem = record["message"]?.string }
        default:
            break
        }
    }

    /// How long after the start the daemon logged that its definitions were loaded.
    var loadedAfter: Double? {
        seen.withLock { $0.loadedAt }.map { $0.timeIntervalSince(started) }
    }

    /// Waits until `count` widgets are fresh in the log and then in `index`, at most `limit` seconds
    /// after the start; the time is the index's modification time.
    func waitForFirstWave(of count: Int, index: URL, limit: Double) -> (seconds: Double?, fresh: Int, notFresh: Set<String>) {
        let deadline = started.addingTimeInterval(limit)
        var checked: Date?
        while Date() < deadline, process.isRunning {
            usleep(100_000)
            guard seen.withLock({ $0.fresh.count }) >= count,
                let modified = (try? FileManager.default.attributesOfItem(atPath: index.path))?[.modificationDate] as? Date,
                modified != checked
            else { continue }
            checked = modified
            if let data = try? Data(contentsOf: index), let value = try? JSONReader.read(data),
                (value["widgets"]?.array ?? []).filter({ $0["status"]?.string == "fresh" }).count >= count
            {
                return (modified.timeIntervalSince(started), count, [])
            }
        }
        let fresh = seen.withLock { $0.fresh }
        let all = Set((0..<count).map { String(format: "w%06d", $0) })
        return (nil, fresh.count, all.subtracting(fresh))
    }

    /// Measures from `start` for `seconds`: the refreshes' lateness, the CPU time and, at the end, the
    /// resident memory and the widgets still waiting.
    func measureSteadyPart(from start: Date, seconds: Double) -> SteadyPart {
        while Date() < start, process.isRunning { usleep(20_000) }
        let cpuBefore = daemonCPU()
        seen.withLock { $0.measuring = true }
        let begun = Date()
        let end = begun.addingTimeInterval(seconds)
        while Date() < end, process.isRunning { usleep(100_000) }
        let cpuAfter = daemonCPU()
        let resident = daemonResident()
        let now = Date()
        let wall = now.timeIntervalSince(begun)
        var cpu: Double?
        if let cpuBefore, let cpuAfter { cpu = cpuAfter - cpuBefore }
        let running = process.isRunning
        return seen.withLock { seen in
            seen.measuring = false
            let overdue = seen.nextDue.values.filter { now.timeIntervalSince($0) > 1 }
            return SteadyPart(
                wallSeconds: wall, lateness: seen.lateness, failed: seen.failed, excluded: seen.excluded, waiting: overdue.count,
                oldestWaiting: overdue.map { now.timeIntervalSince($0) }.max() ?? 0, cpuSeconds: cpu, residentKiB: resident,
                problem: running ? seen.problem : "the daemon exited early")
        }
    }

    /// The daemon's CPU time so far (user + system), from `/proc/PID/stat`.
    func daemonCPU() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After the command's name come the state (field 3) … utime and stime (fields 14 and 15).
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The daemon's resident memory, in KiB.
    func daemonResident() -> Int? {
        residentKiB(of: process.processIdentifier)
    }

    /// Stops the daemon (SIGTERM; SIGKILL after 20 s) and waits (5 s at most) for the end of its log.
    func stop() {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning {
                emit("  (the daemon did not stop within 20 s of SIGTERM: killed)")
                kill(process.processIdentifier, SIGKILL)
            }
        }
        process.waitUntilExit()
        let deadline = Date().addingTimeInterval(5)
        while !seen.withLock({ $0.logEnded }), Date() < deadline { usleep(10_000) }
    }
}

/// Raises this process's limit of open files to its hard limit (the daemon started from here inherits
/// it); returns the limit.
private func raiseOpenFileLimit() -> String {
    var limit = rlimit()
    #if canImport(Glibc)
    let resource = Int32(RLIMIT_NOFILE.rawValue)
    #else
    let resource = RLIMIT_NOFILE
    #endif
    guard getrlimit(resource, &limit) == 0 else { return "unknown" }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(resource, &limit)
    _ = getrlimit(resource, &limit)
    return "\(limit.rlim_cur)"
}

private func seconds(_ value: Double) -> String {
    value.isNaN ? "-" : String(format: "%.2f s", value)
}

private func milliseconds(_ value: Double) -> String {
    String(format: "%.0f ms", value * 1000)
}

private func microseconds(_ value: Double) -> String {
    value.isNaN ? "-" : String(format: "%.0f µs", value * 1e6)
}

private func mebibytes(_ kib: Int) -> String {
    String(format: "%.1f MiB", Double(kib) / 1024)
}
