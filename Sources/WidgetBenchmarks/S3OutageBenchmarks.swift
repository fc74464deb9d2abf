import Foundation
import WidgetCore
import WidgetObjectStorage
import WidgetRuntime
import WidgetStages
import WidgetTestSupport

/// The bucket output against a real S3 server (SeaweedFS on 127.0.0.1) under the writes of 1,000
/// widgets — each wave a snapshot, a state and a page per widget, as the daemon writes them: how fast a
/// first wave is uploaded, how many PUTs a wave costs when nothing changed (goal 0), and, with the store
/// stopped for 60 s while a wave is written every 5 s, the pending objects, the peak resident memory above
/// the start, and the catch-up time once the store is back.
func runS3OutageBenchmarks() {
    let widgets = 1_000
    let outage = 60.0
    Benchmarks.section("s3-outage: \(widgets) widgets' writes (3 objects each) to SeaweedFS, the store stopped for \(Int(outage)) s")
    guard SeaweedFS.isAvailable else {
        emit("  skipped: \(SeaweedFS.missingMessage)")
        return
    }
    let server: SeaweedFS
    do {
        server = try SeaweedFS(buckets: ["widgets"])
    } catch {
        emit("  skipped: SeaweedFS did not start (\(error))")
        return
    }
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("widgetd-s3-outage-\(getpid())")
    defer { try? FileManager.default.removeItem(at: work) }
    let client = S3Client(
        endpoint: server.endpoint, region: server.region, bucket: "widgets",
        credentials: S3Credentials(accessKeyID: server.accessKeyID, secretAccessKey: server.secretAccessKey, sessionToken: nil),
        httpClient: HTTPClient(maximumConnectionsPerHost: 8))
    let output = BucketOutput(store: client, bucket: "widgets", prefix: "bench", workFolder: work)
    let prepared = blocking { () async -> String? in
        do {
            try await output.prepare()
            return nil
        } catch {
            return "\(error)"
        }
    }
    if let prepared {
        emit("  Error: \(prepared)")
        return
    }
    let uploader = Task { await output.run() }
    defer {
        uploader.cancel()
        _ = blocking { await uploader.value }
    }

    let snapshot = String(repeating: "a headline of the day, ", count: 60)
    func wave(_ number: Int) {
        for id in 0..<widgets {
            let name = String(format: "w%04d", id)
            do {
                try output.write(
                    Data(#"{"id":"\#(name)","wave":\#(number),"entries":[{"content":{"text":"\#(snapshot)"}}]}"#.utf8), to: "\(name).json",
                    as: OutputObject(contentType: "application/json", cacheControl: "public, max-age=60", flush: .later))
                try output.write(
                    Data(#"{"etag":"\"\#(number)\"","lastSuccessAt":"2026-11-29T05:00:00Z"}"#.utf8), to: ".state/\(name).json",
                    as: OutputObject(contentType: "application/json", cacheControl: "no-store", flush: .later))
                try output.write(
                    Data("<!doctype html><title>\(name)</title><p>\(number) \(snapshot)</p>".utf8), to: "\(name).html",
                    as: OutputObject(
                        contentType: "text/html; charset=utf-8", cacheControl: "public, max-age=60", durability: .rebuildable, flush: .later
                    ))
            } catch {
                emit("  Error: \(error)")
            }
        }
        output.flush()
    }
    func drain() -> (seconds: Double, result: BucketOutput.DrainResult) {
        let began = Date()
        let result = blocking { await output.drain(timeout: 600) }
        return (Date().timeIntervalSince(began), result)
    }

    // A first wave, then the same bytes again.
    var began = Date()
    wave(1)
    let writeSeconds = Date().timeIntervalSince(began)
    let first = drain()
    let firstPuts = output.health.puts
    let firstSeconds = Date().timeIntervalSince(began)
    emit(
        "  first wave: \(firstPuts) PUTs in \(String(format: "%.2f", firstSeconds)) s, \(String(format: "%.0f", Double(firstPuts) / firstSeconds)) PUTs/s"
            + " (writing the 3,000 copies: \(String(format: "%.2f", writeSeconds)) s)"
            + (first.result.isComplete ? "" : "; \(first.result.summary)"))
    wave(1)
    _ = drain()
    emit("  a wave with nothing changed: \(output.health.puts - firstPuts) PUTs (goal 0)")

    // The outage: a wave every 5 s while the store is stopped.
    releaseFreedMemory()
    let startResident = residentBytes()
    resetPeakResident()
    let putsBefore = output.health.puts
    server.stop()
    began = Date()
    var waves = 1
    while Date().timeIntervalSince(began) < outage {
        waves += 1
        wave(waves)
        Thread.sleep(forTimeInterval: 5)
    }
    let down = output.health
    emit(
        "  store stopped \(String(format: "%.0f", Date().timeIntervalSince(began))) s, \(waves - 1) waves written: \(down.pendingObjects) objects pending"
            + " (one per key), oldest \(String(format: "%.0f", down.oldestPendingAge(at: Date()))) s, \(down.failuresTotal) failed requests"
    )
    do {
        try server.start()
    } catch {
        emit("  Error: SeaweedFS did not start again: \(error)")
        return
    }
    let back = drain()
    let peak = peakResidentBytes() - startResident
    let caughtUp = output.health
    emit(
        "  back: caught up in \(String(format: "%.1f", back.seconds)) s (backoff cap \(Int(BucketOutput.Settings().maximumRetryDelay)) s), "
            + "\(caughtUp.puts - putsBefore) PUTs" + (back.result.isComplete ? "" : "; \(back.result.summary)"))
    emit("  peak resident memory above the start during the outage and catch-up: \(megabytes(max(0, peak)))")
}

/// Runs `body` on a task and waits for it.
func blocking<Result: Sendable>(_ body: @escaping @Sendable () async -> Result) -> Result {
    nonisolated(unsafe) var result: Result?
    let done = DispatchSemaphore(value: 0)
    Task {
        result = await body()
        done.signal()
    }
    done.wait()
    return result!
}
