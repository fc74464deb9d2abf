import Foundation
import WidgetCore
import WidgetJSON
import WidgetObjectStorage
import WidgetRuntime
import WidgetStages

extension RunCommand {
    /// How long a graceful stop waits for a bucket's pending uploads before it lets go of the lease.
    static let drainTimeout = 10.0
    /// How long a bucket daemon's stop may take: the refreshes' 1.5 s, the drain and the lease's DELETE.
    static let bucketStopGrace = 15.0
    /// How long `run --once` waits for its uploads before it lets go of the lease.
    static let onceDrainTimeout = 60.0

    /// The store of the bucket `output` names, with its configuration; nil, with the error printed, when
    /// the configuration is incomplete or wrong (the command then exits 2).
    static func bucketStore(
        _ output: OutputOption, secrets: SecretsOption, environment: CommandEnvironment
    ) -> (S3Configuration, S3Client)? {
        // Secret files are read from the same folder as {{ secret.NAME }}: --secrets, else systemd's.
        let folder = secrets.folder ?? environment.variables["CREDENTIALS_DIRECTORY"].flatMap { $0.isEmpty ? nil : $0 }
        let flags = S3Configuration.Flags(
            out: output.out, endpoint: output.endpoint, region: output.region, pathStyle: output.pathStyle ? true : nil)
        do {
            let configuration = try S3Configuration.resolve(
                environment: environment.variables, secretsFolders: folder.map { [URL(fileURLWithPath: $0, isDirectory: true)] } ?? [],
                flags: flags)
            return (configuration, S3Client(configuration: configuration, httpClient: HTTPClient(maximumConnectionsPerHost: 16)))
        } catch {
            environment.printError("Error: \(error)")
            return nil
        }
    }

    /// Why the bucket cannot be used at start, as a sentence with the store's code and a fix; nil when it
    /// answers, or when its failure may pass (the lease's wait tries again).
    static func bucketProblem(_ error: ObjectStoreError, configuration: S3Configuration) -> String? {
        let bucket = "s3://\(configuration.bucket)/\(configuration.prefix)"
        let code = error.code.map { " (\($0))" } ?? ""
        switch error.kind {
        case .denied:
            return "the bucket \(bucket) at \(configuration.endpoint.absoluteString) refused these credentials\(code): \(error.message); "
                + "check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or their files in the secrets folder) and the key's "
                + "permissions on the bucket"
        case .noSuchBucket:
            return "the bucket \(configuration.bucket) does not exist at \(configuration.endpoint.absoluteString)\(code); create it, or "
                + "correct --out, --s3-endpoint or AWS_ENDPOINT_URL"
        case .other(let status):
            return "the bucket \(bucket) at \(configuration.endpoint.absoluteString) answered \(status)\(code): \(error.message); "
                + "check --s3-endpoint, --s3-region and --s3-path-style"
        case .preconditionFailed, .throttled, .server, .unreachable:
            return nil
        }
    }

    /// `run` with a bucket output: check the bucket, lock the working folder, wait for the shard's lease,
    /// restore (the daemon's first step), run; on a stop, drain the uploads (bounded) and let go of the
    /// lease.
    func runBucket(
        _ environment: CommandEnvironment, printLine: @escaping @Sendable (String) -> Void, log: @escaping @Sendable (LogRecord) -> Void,
        notifier: ServiceNotifier
    ) async -> Int32 {
        guard let (configuration, client) = RunCommand.bucketStore(output, secrets: secrets, environment: environment) else { return 2 }
        let work = output.localFolder
        let workURL = URL(fileURLWithPath: work, isDirectory: true)
        let bucketName = "s3://\(configuration.bucket)/\(configuration.prefix)"
        do {
            try await client.checkBucket()
        } catch {
            if let problem = RunCommand.bucketProblem(error, configuration: configuration) {
                environment.printError("Error: \(problem)")
                return 2
            }
            log(
                LogRecord(
                    .warning, "store-unreachable", "the bucket \(bucketName) does not answer now (\(error)); waiting for it",
                    error: error.message))
        }
        let pid = Int(ProcessInfo.processInfo.processIdentifier)
        let label = shard.map { "shard \($0)" } ?? bucketName
        let lease = LeaseKeeper(
            store: client, key: Lease.key(prefix: configuration.prefix, shard: shard), label: label, ttl: leaseTTL, log: log,
            onChange: { status in try? LeaseStatus(status: status, label: label, pid: pid).write(in: work) })
        // Shards share the prefix: each restores only its own widgets' state and snapshots.
        let shard = shard
        let output = BucketOutput(
            store: client, bucket: configuration.bucket, prefix: configuration.prefix, workFolder: workURL,
            mayWrite: { lease.mayWrite },
            restores: { key in
                guard BucketOutput.restoresByDefault(key) else { return false }
                guard let shard else { return true }
                let name = key.hasPrefix(".state/") ? String(key.dropFirst(".state/".count)) : key
                // A widget's history, `<id>.history.json`, goes with its widget.
                let id =
                    name.hasSuffix(WidgetHistory.fileSuffix) ? name.dropLast(WidgetHistory.fileSuffix.count) : name.dropLast(".json".count)
                return shard.owns(String(id))
            })
        let store = SnapshotStore(output: output)
        var settings = daemonConfiguration(store: store, environment: environment, log: log, notifier: notifier)
        let lock: DaemonLock
        do {
            lock = try DaemonLock(store: store, recordingPID: !once)
        } catch {
            environment.printError("Error: \(error)")
            return 1
        }
        defer { lock.release() }
        try? LeaseStatus(status: .idle, label: label, pid: pid).write(in: work)
        settings.outputCheck = {
            try lock.check()
            try lease.checkHeld()
        }
        let daemon = WidgetDaemon(configuration: settings)
        // The daemon's run() prepares the output (restores the shard's state) once the lease is held.
        let before: @Sendable () async throws -> Void = { try await lease.acquire() }
        do {
            if once {
                try await before()
                let report = try await withThrowingTaskGroup(of: WidgetDaemon.OnceReport?.self) { group in
                    group.addTask {
                        try await lease.keep()
                        return nil
                    }
                    group.addTask {
                        await output.run()
                        return nil
                    }
                    group.addTask { try await daemon.runOnce() }
                    var report: WidgetDaemon.OnceReport?
                    while report == nil, let next = try await group.next() { report = next }
                    // The uploads go on while the lease is kept, for a bounded time.
                    let drained = await output.drain(timeout: RunCommand.onceDrainTimeout)
                    group.cancelAll()
                    if !drained.isComplete {
                        log(LogRecord(.warning, "drain-incomplete", "widgetd: \(drained.summary); the next start writes them"))
                    }
                    return report
                }
                await lease.release()
                guard let report else { return 1 }
                return summarize(report, environment: environment, printLine: printLine)
            }
            var watchdog: (@Sendable () async -> Void)?
            if let interval = notifier.watchdogInterval {
                watchdog = {
                    while !Task.isCancelled {
                        notifier.send(["WATCHDOG=1"])
                        try? await Task.sleep(for: interval)
                    }
                }
            }
            try await SignalHandling.run(
                daemon, watching: config, beside: watchdog, before: before,
                alongside: [{ try await lease.keep() }, { await output.run() }], grace: RunCommand.bucketStopGrace, log: log
            ) {
                let part = shard.map { ", shard \($0)" } ?? ""
                log(
                    LogRecord(
                        .notice, "started",
                        "widgetd running: definitions in \(config), snapshots in \(bucketName)\(part), working folder \(work) (pid \(pid))",
                        details: [
                            "config": .string(config), "out": .string(bucketName), "work": .string(work),
                            "pid": .number(WidgetNumber(pid)), "version": .string(BuildInfo.release),
                        ]))
            }
            if lease.mayWrite {
                let drained = await output.drain(timeout: RunCommand.drainTimeout)
                log(LogRecord(drained.isComplete ? .info : .warning, "drained", "widgetd: \(drained.summary)"))
            }
            await lease.release()
            return 0
        } catch let error as ObjectStoreError {
            environment.printError("Error: \(RunCommand.bucketProblem(error, configuration: configuration) ?? error.description)")
            return 2
        } catch is CancellationError {
            return 0
        } catch {
            environment.printError("Error: \(error)")
            return 1
        }
    }
}
