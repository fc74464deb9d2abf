import Foundation
import WidgetCore
import WidgetJSON
import WidgetRuntime

/// `widgetd status --out DIR [--format json]`: whether the daemon runs, and how every widget is doing.
public struct StatusCommand: WidgetCommand {
    public static let name = "status"
    public static let summary = "Show whether the daemon runs, and each widget's status, age, next refresh and last error."
    public static let help = """
        Usage: widgetd status [--out DIR | --out s3://BUCKET/PREFIX [--work DIR]] [--format text|json]

        Reads the snapshots and state in DIR. The first line says whether a daemon is writing to DIR
        (its pid, since when, and when its last wave of refreshes ended), and whether DIR's file
        system is read-only or full; then one line per widget: title, status ("unwritten" when the
        daemon could not write its last refresh, "refreshing" while its first refresh is under way,
        with when it started), age of the data, next refresh, refreshes used today, and the last
        error; then the warnings of fresh widgets (a filter that kept nothing, a path that matched
        nothing, a server read without verifying its certificate); then the problems of the
        definitions as the daemon last loaded them. Widgets with notify rules get a line each under
        "Notifications:": pending, sent, failed and dropped notifications, and for a target that keeps
        failing, "notify failing since …" with the last error (the JSON form has them as "notify").

        With a bucket output, status reads the copy in the daemon's working folder (run it where
        the daemon runs, with the same --work), and says when the daemon waits for its shard's
        lease, held by another process: "waiting for the lease of shard K/N, held by HOST pid P (ID)
        since …" (exit code 0: a daemon standing by is well).

        Options:
          --out DIR        the daemon's output folder; without it $WIDGETD_OUT, else $STATE_DIRECTORY
                           (systemd), else out
          --work DIR       a bucket daemon's working folder; without it $WIDGETD_WORK, else
                           $STATE_DIRECTORY, else .widgetd-work
          --format FORMAT  text (default) or json: {"daemon": {...}, "widgets": [...], "problems":
                           [{file, line, column, path, message}]}, problems as list and validate give them

        Exit code 1 when a widget is not fresh or unwritten, DIR cannot be written, or a definition has a
        problem; warnings alone leave it 0.
        """

    /// `--out`: the daemon's output folder (or bucket), whose snapshots and state are read.
    public var out: String
    /// `--out` with a bucket's `--work`: the folder read is ``OutputOption/localFolder``.
    public var output: OutputOption
    /// Whether `--format json` was given; `text` otherwise.
    public var json: Bool

    public init(arguments: inout Arguments) throws(UsageError) {
        output = try OutputOption(arguments: &arguments)
        out = output.out
        json = try arguments.choice("--format", among: ["text", "json"], default: "text") == "json"
    }

    public func run(_ environment: CommandEnvironment) async -> Int32 {
        let store = SnapshotStore(directory: URL(fileURLWithPath: output.localFolder, isDirectory: true))
        let ids = store.snapshotIDs()
        var daemon = StatusCommand.DaemonStatus(store: store)
        if output.isBucket, daemon.running { daemon.lease = LeaseStatus.read(in: output.localFolder) }
        if let lease = daemon.lease, case .waiting = lease.status, let line = lease.line(now: environment.clock.now()) {
            // A daemon standing by writes nothing: what it waits for is all there is to say.
            if json {
                environment.print(JSONWriter.string(.object(["daemon": daemon.value, "widgets": .array([])]), style: .pretty))
            } else {
                environment.print("daemon: running, pid \(lease.pid), \(line)")
            }
            return 0
        }
        guard !ids.isEmpty else {
            // What is known of the daemon is worth saying even before (or without) a snapshot.
            if !json, daemon.running || daemon.record != nil {
                environment.print(daemon.line(now: environment.clock.now()))
            }
            let running =
                daemon.running
                ? " (a daemon runs: pid \(daemon.record.map { "\($0.pid)" } ?? "unknown"); wait for its first refreshes)" : ""
            environment.printError("Error: no snapshots in \(out)\(running); run 'widgetd run --config DIR --out \(out)' first")
            return 1
        }
        let now = environment.clock.now()
        let states = store.states(for: ids)
        let snapshots = ids.compactMap { id in store.snapshot(for: id).map { ($0, states[id] ?? WidgetState()) } }
        // A running daemon's refreshes that could not be written: the files above are older than they say.
        let unwritten = daemon.running ? daemon.record?.unwritten ?? [:] : [:]
        let output = StatusCommand.outputProblem(of: store.directory.path)
        let allFresh = snapshots.allSatisfy { $0.0.status == .fresh } && unwritten.isEmpty && output == nil
        let problems = store.definitionProblems()
        let notifications = StatusCommand.notificationLines(of: ids, in: store)
        if json {
            let widgets = snapshots.map { snapshot, state -> WidgetValue in
                var object: WidgetObject = [
                    "id": .string(snapshot.id), "title": snapshot.title.map(WidgetValue.string) ?? .null,
                    "status": .string(snapshot.status.rawValue),
                    "lastSuccessAt": snapshot.lastSuccessAt.map { .string(Timestamp.string($0)) } ?? .null,
                ]
                object["ageSeconds"] = snapshot.lastSuccessAt.map { .number(WidgetNumber(max(0, Int(now.timeIntervalSince($0))))) } ?? .null
                object["nextRefreshAt"] = snapshot.nextRefreshAt.map { .string(Timestamp.string($0)) } ?? .null
                if let started = snapshot.refreshStartedAt { object["refreshStartedAt"] = .string(Timestamp.string(started)) }
                object["refreshesToday"] = .number(WidgetNumber(state.refreshesToday(at: now)))
                object["entries"] = .number(WidgetNumber(snapshot.entries.count))
                object["error"] = snapshot.error.map(WidgetValue.string) ?? .null
                object["writeError"] = unwritten[snapshot.id].map(WidgetValue.string) ?? .null
                object["warnings"] = .array(snapshot.warnings.map(WidgetValue.string))
                if let line = notifications.first(where: { $0.id == snapshot.id }) { object["notify"] = line.value }
                return .object(object)
            }
            let report: WidgetObject = [
                "daemon": daemon.value, "output": output.map(WidgetValue.string) ?? .null,
                "widgets": .array(widgets), "problems": .array(store.definitionProblemObjects()),
            ]
            environment.print(JSONWriter.string(.object(report), style: .pretty))
        } else {
            environment.print(daemon.line(now: now))
            if let output { environment.print("output: \(store.directory.path): \(output)") }
            environment.print("")
            var rows = [["ID", "TITLE", "STATUS", "AGE", "NEXT REFRESH", "TODAY", "LAST ERROR"]]
            for (snapshot, state) in snapshots {
                let age = snapshot.lastSuccessAt.map { StatusCommand.age(now.timeIntervalSince($0)) } ?? "-"
                let today = "\(state.refreshesToday(at: now))"
                let writeError = unwritten[snapshot.id].map { "its last refresh could not be written: \($0)" }
                let note = snapshot.refreshStartedAt.map { "first refresh under way since \(Timestamp.string($0))" }
                rows.append([
                    snapshot.id, snapshot.title ?? "-", writeError == nil ? snapshot.status.rawValue : "unwritten", age,
                    snapshot.nextRefreshAt.map(Timestamp.string) ?? "-", today, writeError ?? snapshot.error ?? note ?? "-",
                ])
            }
            environment.print(ListCommand.table(rows))
            let warned = snapshots.filter { !$0.0.warnings.isEmpty }
            if !warned.isEmpty {
                environment.print("\nWarnings (the refresh succeeded, but a stage left nothing or weakens something):")
                for (snapshot, _) in warned {
                    for warning in snapshot.warnings { environment.print("  \(snapshot.id): \(warning)") }
                }
            }
            if !notifications.isEmpty {
                environment.print("\nNotifications:")
                for line in notifications { environment.print("  \(line.text)") }
            }
            if !problems.isEmpty {
                environment.print("\nDefinition problems (the widgets they belong to keep running their last valid definition):")
                for problem in problems { environment.print("  \(problem)") }
            }
        }
        return allFresh && problems.isEmpty ? 0 : 1
    }

    /// Whether a daemon writes to the folder (by its lock) and what the last one recorded.
    struct DaemonStatus {
        var running: Bool
        var record: DaemonRecord?
        /// A bucket daemon's lease, as it last wrote it in its working folder.
        var lease: LeaseStatus?

        init(store: SnapshotStore) {
            running = DaemonLock.isHeld(store: store)
            record = store.daemonRecord()
        }

        /// `daemon: running, pid 4242, since 2026-11-24T08:00:00Z (3h10m), last wave 12s ago, 6 widgets`.
        func line(now: Date) -> String {
            guard let record else { return running ? "daemon: running (it has not recorded itself yet)" : "daemon: not running" }
            let shard = record.shard.map { ", shard \($0)" } ?? ""
            let wave = record.lastWaveAt.map { "last wave \(StatusCommand.age(now.timeIntervalSince($0))) ago" } ?? "no wave yet"
            if running, record.stoppedAt == nil {
                let lease = self.lease?.line(now: now).map { "; \($0)" } ?? ""
                return "daemon: running, pid \(record.pid)\(shard), since \(Timestamp.string(record.startedAt)) "
                    + "(\(StatusCommand.age(now.timeIntervalSince(record.startedAt)))), \(wave), \(record.widgets) widgets\(lease)"
            }
            if running { return "daemon: running (another process holds the folder's lock)" }
            if let stopped = record.stoppedAt {
                return "daemon: not running (pid \(record.pid) stopped at \(Timestamp.string(stopped)))"
            }
            return "daemon: not running (pid \(record.pid) ended without stopping cleanly; \(wave))"
        }

        var value: WidgetValue {
            var object: WidgetObject = ["running": .bool(running)]
            if let record, case .object(let fields) = record.value {
                for (key, value) in fields { object[key] = value }
            }
            if let lease { object["lease"] = lease.value }
            return .object(object)
        }
    }

    /// Why the daemon cannot write to `folder`, or nil: a read-only file system, or one with less than
    /// 1 MiB free.
    static func outputProblem(of folder: String) -> String? {
        var stats = statvfs()
        guard statvfs(folder, &stats) == 0 else { return nil }
        if stats.f_flag & UInt(ST_RDONLY) != 0 {
            return "the file system is read-only; nothing the daemon refreshes can be written"
        }
        let free = UInt64(stats.f_bavail) * UInt64(stats.f_frsize)
        if free < 1 << 20 {
            let state = free == 0 ? "full" : "nearly full (\(free) bytes free)"
            return "the file system is \(state); snapshots cannot be written until space is freed"
        }
        return nil
    }

    /// `42s`, `5m`, `3h10m`, `2d4h`.
    static func age(_ seconds: TimeInterval) -> String {
        let total = max(0, Int(seconds))
        switch total {
        case ..<60: return "\(total)s"
        case ..<3_600: return "\(total / 60)m"
        case ..<86_400: return "\(total / 3_600)h\(total % 3_600 / 60)m"
        default: return "\(total / 86_400)d\(total % 86_400 / 3_600)h"
        }
    }
}
