import Foundation
import WidgetCore
import WidgetJSON
public import WidgetRuntime
import WidgetStages

/// `widgetd run --config DIR [--out DIR] [--once]`: the daemon.
public struct RunCommand: WidgetCommand {
    public static let name = "run"
    public static let summary = "Keep every widget's snapshot fresh (the daemon); --once refreshes each once."
    public static let help = """
        Usage: widgetd run [--config DIR] [--out DIR] [--once] [--shard K/N] [--log-format text|json]
                           [--log-level LEVEL] [--allow-path DIR]… [--rewrite-origin FROM=TO]…
                           [--template-steps N]
                           [--out s3://BUCKET/PREFIX [--s3-endpoint URL] [--s3-region R]
                            [--s3-path-style] [--work DIR] [--lease-ttl DURATION]]

        Runs every widget defined in DIR and keeps OUT/<id>.json, OUT/index.json and OUT/widgetd.prom
        current, with the gallery: OUT/index.html shows every widget (its view, or a generic card) and
        OUT/<id>.html one. Each file is replaced atomically, so a reader never sees a half-written one.

        Options:
          --config DIR   the folder of widget definitions; without it $WIDGETD_CONFIG, else
                         $CONFIGURATION_DIRECTORY (systemd), else widgets.d. It must exist.
          --out DIR      the output folder; without it $WIDGETD_OUT, else $STATE_DIRECTORY
                         (systemd), else out. s3://BUCKET/PREFIX writes to a bucket of an
                         S3-compatible object store instead (see "A bucket" below)
          --secrets DIR  the folder {{ secret.NAME }} reads the file NAME from; without it
                         $CREDENTIALS_DIRECTORY (systemd's LoadCredential=)
          --once         refresh every widget once, write the snapshots and exit;
                         exit code 1 when a definition is invalid or a widget is not fresh
          --shard K/N    run only the widgets that shard K of N owns (K from 1 to N), so that N
                         daemons share one definitions folder without coordination (a
                         widget's owner follows from its id alone); each writes its part,
                         shards/K-of-N.json, which index.json lists; a folder is one
                         shard's, a bucket may be every shard's
          --log-format text|json
                         how log lines on standard error look: text (a timestamp and a sentence,
                         the default) or json (one object a line: time, level, event, message,
                         and widget, status, duration, entries, next, error when the event has them;
                         every line on standard error, --once's problems and summary and the
                         command's errors included)
          --log-level LEVEL
                         the least level logged: debug, info (the default), notice, warning, error
          --rewrite-origin FROM=TO
                         send HTTP requests whose URL starts with FROM to TO instead (repeatable),
                         e.g. to try definitions against a local server with recorded payloads
          --allow-path DIR
                         let "path" sources read files in DIR too (repeatable); by default they
                         may read only inside the folder of their definition
          --template-steps N
                         the steps templates may take (tags, loop iterations, filter calls): in
                         one refresh, one gallery card, or while one definition file loads;
                         default 10000000

        A bucket (--out s3://BUCKET/PREFIX) gets the same objects as the folder's files under PREFIX,
        and each widget's state as .state/<id>.json, so a daemon started on another machine goes on
        with its fallback data and conditional requests. Options and variables:
          --s3-endpoint URL
                         the store's URL (MinIO, R2, SeaweedFS, …); without it $AWS_ENDPOINT_URL_S3,
                         else $AWS_ENDPOINT_URL, else AWS S3 in the region
          --s3-region R  the region signed for; without it $AWS_REGION, else $AWS_DEFAULT_REGION,
                         else us-east-1
          --s3-path-style
                         address the bucket as ENDPOINT/BUCKET/KEY (the default with an endpoint;
                         AWS is addressed as BUCKET.ENDPOINT/KEY otherwise)
          --work DIR     the working folder: the lock, reload requests, images before they are
                         uploaded and a copy of what was written; without it $WIDGETD_WORK, else
                         $STATE_DIRECTORY, else .widgetd-work. It may start empty.
          --lease-ttl DURATION
                         how long the shard's lease counts without a renewal; default 30s
        Credentials: $AWS_ACCESS_KEY_ID, $AWS_SECRET_ACCESS_KEY and $AWS_SESSION_TOKEN, else files of
        those names in the secrets folder (--secrets, $CREDENTIALS_DIRECTORY). They are never
        written to an object, a log line, status or a trace. A wrong key or a missing bucket at start
        exits 2 with the store's code.

        One writer per shard: the daemon takes the lease object .state/lease.json (with --shard,
        .state/shards/K-of-N/lease.json) with If-None-Match: * and renews it every TTL/3 with
        If-Match. While another process holds it, the daemon waits, says so in its log and in
        'widgetd status', and takes it over once it saw it unchanged for a whole TTL on its own
        clock (or at once when the holder let it go). A holder whose last renewal is older than
        TTL - 5 s stops uploading until a renewal succeeds; a renewal answered 412 (another
        process took the lease) stops the daemon with exit code 1, for its supervisor to start it
        again, waiting. Writes never wait for the network: they go to the working folder and are
        uploaded a few at a time, retried with backoff; a stop uploads what is pending for up to
        10 s, then deletes the lease, so the next daemon takes it within 5 s.

        One process writes to OUT at a time (a lock on OUT/.state/daemon.lock, released when the
        process ends, however it ends): a second daemon, or --once while a daemon runs, exits 1.

        Each widget refreshes on its own schedule, on a thread of its own, within its "deadline"
        (default 1m); a snapshot whose data passes "staleAfter" is rewritten stale at that moment.

        Signals: SIGTERM and SIGINT stop the daemon within 1.5 s (15 s with a bucket); a refresh under way is abandoned
        (the programs of command transforms are killed) and its widget keeps its last snapshot. SIGHUP
        reloads the definitions (so does any change in DIR); a widget whose new definition is invalid
        keeps running its last valid one.

        Under systemd (Type=notify) the daemon reports READY=1 once the definitions are loaded,
        RELOADING=1 and READY=1 around reloads, STOPPING=1, and WATCHDOG=1 when WatchdogSec= is set.
        """

    /// `--config`: the folder of widget definitions, which must exist.
    public var config: String
    /// `--secrets`.
    public var secrets: SecretsOption
    /// Where ``config`` came from (`--config`, `$WIDGETD_CONFIG`, …), for messages.
    public var configOrigin: String
    /// `--allow-path` and `--rewrite-origin`.
    public var access: SourceAccessOptions
    /// `--out`: the folder (or `s3://` bucket) the snapshots, index, metrics and state are written to.
    public var out: String
    /// `--out` with the bucket's options (`--s3-endpoint`, `--work`, …).
    public var output: OutputOption
    /// `--lease-ttl`: how long a bucket shard's lease counts without a renewal, in seconds.
    public var leaseTTL: Double
    /// `--once`: refresh every widget once, write the snapshots and exit, instead of running as a daemon.
    public var once: Bool
    /// `--shard K/N`.
    public var shard: Shard?
    /// `--log-format` and `--log-level`.
    public var logFormat: LogFormat
    /// `--template-steps`, when given.
    public var templateSteps: Int?

    public init(arguments: inout Arguments) throws(UsageError) {
        (config, configOrigin) = try arguments.configFolder()
        secrets = try SecretsOption(arguments: &arguments)
        access = try SourceAccessOptions(arguments: &arguments)
        output = try OutputOption(arguments: &arguments)
        out = output.out
        if let text = try arguments.option("--lease-ttl") {
            guard let duration = WidgetDuration(text), (5...3600).contains(duration.seconds) else {
                throw UsageError("--lease-ttl takes a duration from 5s to 1h, e.g. 30s, not '\(text)'")
            }
            guard output.isBucket else { throw UsageError("--lease-ttl applies only to a bucket output (--out s3://BUCKET/PREFIX)") }
            leaseTTL = Double(duration.seconds)
        } else {
            leaseTTL = LeaseKeeper.defaultTTL
        }
        once = arguments.flag("--once")
        logFormat = try arguments.logFormat()
        templateSteps = try arguments.templateStepLimit()
        do {
            shard = try arguments.option("--shard").map { text throws(ShardError) in try Shard(parsing: text) }
        } catch {
            throw UsageError("--shard: \(error)")
        }
    }

    public func run(_ environment: CommandEnvironment) async -> Int32 {
        // Every line on standard error is a log line: in JSON logs, each is one object, whatever prints it.
        let printLine = environment.printError
        let logged = logFormat.wrappingErrors(of: environment)
        if let problem = RunCommand.configProblem(config, origin: configOrigin) {
            logged.printError("Error: \(problem)")
            return 2
        }
        guard let withSecrets = secrets.apply(to: logged),
            let environment = access.apply(to: withSecrets).limitingTemplateSteps(to: templateSteps).limitingHosts(folder: config)
        else { return 2 }
        let notifier = ServiceNotifier(variables: environment.variables)
        let format = logFormat
        let log: @Sendable (LogRecord) -> Void = { record in
            if let line = format.line(record, at: environment.clock.now()) { printLine(line) }
        }
        if output.isBucket {
            return await runBucket(environment, printLine: printLine, log: log, notifier: notifier)
        }
        let store = SnapshotStore(directory: URL(fileURLWithPath: out, isDirectory: true))
        var configuration = daemonConfiguration(store: store, environment: environment, log: log, notifier: notifier)
        if once {
            do {
                let lock = try DaemonLock(store: store, recordingPID: false)
                defer { lock.release() }
                configuration.outputCheck = { try lock.check() }
                let report = try await WidgetDaemon(configuration: configuration).runOnce()
                return summarize(report, environment: environment, printLine: printLine)
            } catch {
                environment.printError("Error: \(error)")
                return 1
            }
        }
        // The service manager's watchdog: a service beside the daemon, in the same task group.
        var watchdog: (@Sendable () async -> Void)?
        if let interval = notifier.watchdogInterval {
            watchdog = {
                while !Task.isCancelled {
                    notifier.send(["WATCHDOG=1"])
                    try? await Task.sleep(for: interval)
                }
            }
        }
        do {
            let lock = try DaemonLock(store: store)
            defer { lock.release() }
            configuration.outputCheck = { try lock.check() }
            try await SignalHandling.run(WidgetDaemon(configuration: configuration), watching: config, beside: watchdog, log: log) {
                // The first line: the folder is prepared and locked, and from here on every signal counts.
                let part = shard.map { ", shard \($0)" } ?? ""
                let pid = ProcessInfo.processInfo.processIdentifier
                log(
                    LogRecord(
                        .notice, "started", "widgetd running: definitions in \(config), snapshots in \(out)\(part) (pid \(pid))",
                        details: [
                            "config": .string(config), "out": .string(out), "pid": .number(WidgetNumber(Int(pid))),
                            "version": .string(BuildInfo.release),
                        ]))
            }
            return 0
        } catch {
            environment.printError("Error: \(error)")
            return 1
        }
    }

    /// Prints `run --once`'s definition problems and its summary; its exit code: 0 when every widget is
    /// fresh and every definition valid, else 1.
    func summarize(
        _ report: WidgetDaemon.OnceReport, environment: CommandEnvironment, printLine: @escaping @Sendable (String) -> Void
    ) -> Int32 {
        let format = logFormat
        for diagnostic in report.diagnostics {
            printLine(
                format.line(
                    LogRecord(
                        diagnostic.severity == .warning ? .warning : .error, "definition-invalid", "\(diagnostic)",
                        error: diagnostic.message, details: diagnostic.value.object ?? [:]),
                    text: "\(diagnostic)", at: environment.clock.now()))
        }
        let failed = report.outcomes.filter { $0.snapshot.status != .fresh }
        let summary =
            "\(report.outcomes.count) widget\(report.outcomes.count == 1 ? "" : "s") refreshed into \(out): "
            + "\(report.outcomes.count - failed.count) fresh, \(failed.count) not fresh"
            + (report.diagnostics.isEmpty
                ? "" : "; \(report.diagnostics.count) definition problem\(report.diagnostics.count == 1 ? "" : "s")")
        let counts: WidgetObject = [
            "out": .string(out), "widgets": .number(WidgetNumber(report.outcomes.count)),
            "fresh": .number(WidgetNumber(report.outcomes.count - failed.count)),
            "notFresh": .number(WidgetNumber(failed.count)), "problems": .number(WidgetNumber(report.diagnostics.count)),
        ]
        printLine(
            format.line(
                LogRecord(failed.isEmpty && report.diagnostics.isEmpty ? .notice : .warning, "once-done", summary, details: counts),
                text: summary, at: environment.clock.now()))
        return report.diagnostics.isEmpty && failed.isEmpty ? 0 : 1
    }

    /// Why the definitions folder cannot be used, in a sentence; nil when it can.
    static func configProblem(_ path: String, origin: String) -> String? {
        var isDirectory: ObjCBool = false
        let fix = "create it or pass --config DIR"
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return "the definitions folder \(path) (from \(origin)) does not exist; \(fix)."
        }
        guard isDirectory.boolValue else {
            return "the definitions folder \(path) (from \(origin)) is a file, not a folder; pass --config DIR."
        }
        guard FileManager.default.isReadableFile(atPath: path), FileManager.default.isExecutableFile(atPath: path) else {
            return "the definitions folder \(path) (from \(origin)) cannot be read by this user; fix its permissions or pass --config DIR."
        }
        return nil
    }

    /// `1 widget loaded`, `6 widgets loaded`.
    private static func loaded(_ count: Int) -> String {
        "\(count) widget\(count == 1 ? "" : "s") loaded"
    }

    /// Tells the service manager of a change in the daemon's state.
    static func notify(_ notifier: ServiceNotifier, of event: WidgetDaemon.LifecycleEvent) {
        guard notifier.isEnabled else { return }
        switch event {
        case .ready(let widgets):
            notifier.send(["READY=1", "MAINPID=\(ProcessInfo.processInfo.processIdentifier)", "STATUS=\(loaded(widgets))"])
        case .reloading:
            notifier.send(["RELOADING=1", ServiceNotifier.monotonicMicroseconds(), "STATUS=reloading the definitions"])
        case .reloaded(let widgets):
            notifier.send(["READY=1", "STATUS=\(loaded(widgets))"])
        case .stopping:
            notifier.send(["STOPPING=1", "STATUS=stopping"])
        }
    }
}

extension RunCommand {
    /// The daemon's configuration for `store`, whichever output it writes through: the definitions in
    /// `--config`, the environment's reader, refresher and clock, the shard, the log and the service
    /// manager's notifications.
    func daemonConfiguration(
        store: SnapshotStore, environment: CommandEnvironment, log: @escaping @Sendable (LogRecord) -> Void,
        notifier: ServiceNotifier
    ) -> WidgetDaemon.Configuration {
        WidgetDaemon.Configuration(
            definitions: DefinitionDirectory(path: config),
            store: store,
            reader: environment.reader,
            refresher: environment.refresher(assets: store.assetsDirectory, log: log),
            clock: environment.clock,
            shard: shard,
            log: log,
            lifecycle: { event in RunCommand.notify(notifier, of: event) }
        )
    }
}
