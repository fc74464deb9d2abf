import Foundation
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages
import WidgetTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// 10,000 widgets scheduled by one daemon in this process (mixed `every`, `at`, `cron` and `atEnd`
/// rules, in-memory sources): the memory each scheduled widget holds and the CPU the daemon uses while
/// it waits for a due time far ahead, each beside the same daemon with no widget.
///
/// Every widget's state says it refreshed a moment ago and is next due in a day, so nothing refreshes
/// while the idle CPU is measured. The idle period is 60 s unless `--idle SECONDS` is given:
/// `widgetd-bench scheduler --idle 10`.
func runSchedulerBenchmarks() {
    let idle = schedulerIdleSeconds()
    let count = 10_000
    emit("")
    emit("== scheduler: \(count) widgets in one daemon, idle for \(Int(idle)) s (0 widgets beside)")
    // The 20,000 seeded snapshot and state files are written with fsync: a RAM disk keeps that quick.
    let shared = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
    let base = FileManager.default.isWritableFile(atPath: shared.path) ? shared : FileManager.default.temporaryDirectory
    let root = base.appendingPathComponent("widgetd-bench-scheduler-\(getpid())", isDirectory: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let emptyConfig = root.appendingPathComponent("config-0", isDirectory: true)
    let config = root.appendingPathComponent("config", isDirectory: true)
    let emptyOut = root.appendingPathComponent("out-0", isDirectory: true)
    let out = root.appendingPathComponent("out", isDirectory: true)

    var builder = StageRegistry.Builder.builtIn()
    builder.register(InMemoryFetcher.self)
    let reader: DefinitionReader
    do {
        try FileManager.default.createDirectory(at: emptyConfig, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        reader = DefinitionReader(registry: try builder.build(), defaultTimeZone: TimeZone(identifier: "UTC")!)
        try seedScheduledWidgets(count, config: config, store: SnapshotStore(directory: out), reader: reader)
    } catch {
        emit("  Error: the widgets could not be prepared: \(error)")
        return
    }
    let source = InMemorySource()
    var resources = StageResources()
    resources.insert(source)
    let refresher = WidgetRefresher(secrets: SecretStore(), resources: resources)

    let semaphore = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var phases: [SchedulerPhase] = []
    nonisolated(unsafe) var pipelinesOnly = 0
    Task {
        for (folder, output, widgets) in [(emptyConfig, emptyOut, 0), (config, out, count)] {
            let daemon = WidgetDaemon(
                configuration: .init(
                    definitions: DefinitionDirectory(path: folder.path),
                    store: SnapshotStore(directory: output),
                    reader: reader,
                    refresher: refresher,
                    clock: SystemClock()
                ))
            phases.append(await measureIdleDaemon(daemon, widgets: widgets, idle: idle))
        }
        // The loaded definitions alone, without a daemon: how much of a widget's memory is its pipeline.
        let loaded = DefinitionDirectory(path: config.path).load(reader: reader)
        releaseFreedMemory()
        pipelinesOnly = residentBytes()
        withExtendedLifetime(loaded) {}
        semaphore.signal()
    }
    semaphore.wait()

    for phase in phases {
        emit(
            "  \(Benchmarks.padLeft("\(phase.widgets)", 6)) widgets: started in \(String(format: "%.2f", phase.startSeconds)) s; "
                + "RSS \(megabytes(phase.residentBytes)); "
                + "idle CPU \(String(format: "%.3f", phase.idleCPUSeconds)) s in \(String(format: "%.1f", phase.idleWallSeconds)) s "
                + "= \(String(format: "%.4f", phase.idleCPUSeconds / phase.idleWallSeconds * 100))% of a core"
        )
    }
    guard phases.count == 2 else { return }
    let (empty, full) = (phases[0], phases[1])
    let residentPerWidget = Double(full.residentBytes - empty.residentBytes) / Double(count)
    emit("  memory per scheduled widget: \(String(format: "%.0f", residentPerWidget)) bytes of RSS (goal: at most 2,048)")
    emit(
        "    of which the loaded definition and pipeline alone (no daemon): "
            + "\(String(format: "%.0f", Double(pipelinesOnly - empty.residentBytes) / Double(count))) bytes")
    emit(
        "  idle CPU with \(count) widgets: \(String(format: "%.4f", full.idleCPUSeconds / full.idleWallSeconds * 100))% of a core "
            + "(goal: at most 0.1%); with none: \(String(format: "%.4f", empty.idleCPUSeconds / empty.idleWallSeconds * 100))%")
}

/// What one daemon cost: memory once it is idle, and CPU while it stays idle.
struct SchedulerPhase {
    var widgets: Int
    var startSeconds: Double
    var residentBytes: Int
    var idleCPUSeconds: Double
    var idleWallSeconds: Double
}

/// `--idle SECONDS` from the command line, or 60.
func schedulerIdleSeconds() -> Double {
    let arguments = CommandLine.arguments
    if let index = arguments.firstIndex(of: "--idle"), index + 1 < arguments.count, let seconds = Double(arguments[index + 1]), seconds > 0
    {
        return seconds
    }
    return 60
}

/// Writes `count` definitions with mixed rules to `config`, and for each a snapshot and state that say it
/// refreshed now and is next due in a day.
func seedScheduledWidgets(_ count: Int, config: URL, store: SnapshotStore, reader: DefinitionReader) throws {
    try FolderOutput(folder: store.directory).prepareFolder()
    let rules = [
        (#"{"every": "15m", "maxPerDay": 96}"#, #""single""#),
        (#"{"every": "1h"}"#, #""single""#),
        (#"{"at": ["08:00", "20:00"]}"#, #""single""#),
        (#"{"at": ["00:00"]}"#, #""single""#),
        (#"{"cron": "0 */4 * * *"}"#, #""single""#),
        (#"{"cron": "15 9 * * mon-fri"}"#, #""single""#),
        (#""atEnd""#, #"{"type": "each", "every": "1h"}"#),
        (#""atEnd""#, #"{"type": "each", "at": ["08:00", "12:00", "16:00", "20:00"]}"#),
    ]
    let zones = ["UTC", "America/New_York", "Europe/Berlin", "Australia/Sydney", "Asia/Tokyo"]
    let now = Date()
    let next = now.addingTimeInterval(86_400)
    for index in 0..<count {
        let id = String(format: "w%05d", index)
        let (schedule, timeline) = rules[index % rules.count]
        let text = """
            {"title": "Widget \(index)", "timeZone": "\(zones[index % zones.count])",
             "source": {"type": "memory", "key": "\(id)"}, "parser": "json",
             "transforms": [{"type": "limit", "count": 4}], "timeline": \(timeline),
             "schedule": \(schedule), "staleAfter": "48h", "placeholder": {"text": "…"}}
            """
        try Data(text.utf8).write(to: config.appendingPathComponent("\(id).json"))
        let entries = [TimelineEntry(date: now, content: ["text": .string("item \(index)")])]
        try store.write(
            Snapshot(
                id: id, title: "Widget \(index)", status: .fresh, generatedAt: now, lastSuccessAt: now,
                nextRefreshAt: next, entries: entries, error: nil
            ))
        var state = WidgetState()
        state.lastGoodEntries = entries
        state.lastSuccessAt = now
        state.nextDueAt = next
        try store.writeState(state, for: id)
    }
    // Check once that every definition is valid, so the daemon really schedules them all.
    let loaded = DefinitionDirectory(path: config.path).load(reader: reader)
    guard loaded.widgets.count == count else {
        throw StageError(
            "only \(loaded.widgets.count) of \(count) definitions are valid; first problem: \(loaded.diagnostics.first.map(\.description) ?? "none")"
        )
    }
}

/// Starts `daemon`, waits until it has loaded its widgets and gone idle, measures its memory, then the
/// CPU this process uses over `idle` seconds, and stops it.
func measureIdleDaemon(_ daemon: WidgetDaemon, widgets: Int, idle: Double) async -> SchedulerPhase {
    let clock = ContinuousClock()
    let started = clock.now
    let task = Task { try await daemon.run() }
    // The daemon writes the index once its widgets are loaded and scheduled, before it waits.
    let index = daemon.configuration.store.indexFile
    while !FileManager.default.fileExists(atPath: index.path) {
        try? await Task.sleep(for: .milliseconds(20))
    }
    let startSeconds = durationSeconds(clock.now - started)
    try? await Task.sleep(for: .seconds(1))
    releaseFreedMemory()
    let resident = residentBytes()
    let cpuBefore = cpuSeconds()
    let idleStart = clock.now
    try? await Task.sleep(for: .seconds(idle))
    let cpu = cpuSeconds() - cpuBefore
    let wall = durationSeconds(clock.now - idleStart)
    task.cancel()
    _ = try? await task.value
    return SchedulerPhase(
        widgets: widgets, startSeconds: startSeconds, residentBytes: resident,
        idleCPUSeconds: cpu, idleWallSeconds: wall
    )
}

/// The resident set size of this process, from `/proc/self/statm` (0 where there is none).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Gives memory malloc holds but does not use back to the system (glibc's `malloc_trim`, looked up at run
/// time because Swift's Glibc module leaves `malloc.h` out), so the RSS counts what is in use.
func releaseFreedMemory() {
    #if canImport(Glibc)
    typealias Trim = @convention(c) (Int) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
    _ = unsafeBitCast(symbol, to: Trim.self)(0)
    #endif
}

func durationSeconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

func megabytes(_ bytes: Int) -> String {
    String(format: "%.1f MB", Double(bytes) / 1_048_576)
}
