import Foundation
import WidgetCore
import WidgetRuntime
import WidgetStages
import WidgetTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Whether memory grows with the number of refreshes: 20,000 refreshes of one small JSON widget against a
/// local server, resident memory read after a warm-up and at the end, in bytes per refresh. The baseline,
/// in the same run, is the platform's own cost: the same number of requests through one plain URLSession,
/// the transport widgetd's HTTP client is built on.
func runSoakBenchmarks() {
    Benchmarks.section("soak: memory per refresh, 20,000 refreshes of a small JSON widget")
    guard residentBytes() > 0 else {
        emit("  skipped: resident memory is read from /proc, which this system does not have")
        return
    }
    let server: BenchmarkServer
    do {
        server = try BenchmarkServer()
    } catch {
        emit("  skipped: the local test server did not start (\(error))")
        return
    }
    defer { server.stop() }
    let url = server.url("/json?size=2")
    let count = 20_000
    let warmUp = 2_000

    // The baseline: one ephemeral URLSession, nothing cached, a request at a time, each on a connection of
    // its own as widgetd's are (a kept-alive connection to the test server waits out the peer's delayed
    // acknowledgement, 40 ms a request).
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    let session = URLSession(configuration: configuration)
    var request = URLRequest(url: url)
    request.setValue("close", forHTTPHeaderField: "Connection")
    let baseline = soak(count: count, warmUp: warmUp) {
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: request) { _, _, _ in done.signal() }
        task.resume()
        done.wait()
    }
    session.invalidateAndCancel()

    // widgetd's HTTP client alone, through each transport.
    func sends(_ client: HTTPClient) -> (bytesPerRun: Double, seconds: Double) {
        soak(count: count, warmUp: warmUp) {
            let done = DispatchSemaphore(value: 0)
            Task {
                _ = try? await client.send(HTTPRequest(url: url))
                done.signal()
            }
            done.wait()
        }
    }
    let clientOnly = sends(HTTPClient())
    let clientOverURLSession = sends(HTTPClient(transport: .urlSession))

    let definition = #"{"source": {"url": "\#(url.absoluteString)"}, "parser": "json", "timeline": "single"}"#
    let read = DefinitionReader(registry: .builtIn).read(Data(definition.utf8), file: "soak.json")
    guard let pipeline = read.widgets.first else {
        emit("  Error: \(read.diagnostics.map(\.description).joined(separator: "; "))")
        return
    }
    let refresher = WidgetRefresher(secrets: SecretStore())
    nonisolated(unsafe) var fresh = 0
    let ours = soak(count: count, warmUp: warmUp) {
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome = await refresher.refresh(pipeline, state: WidgetState(), now: Date(), respectBudget: false)
            if outcome.snapshot.status == .fresh { fresh += 1 }
            done.signal()
        }
        done.wait()
    }
    if fresh != count { emit("  Error: \(count - fresh) of \(count) refreshes were not fresh") }

    func line(_ name: String, _ result: (bytesPerRun: Double, seconds: Double)) -> String {
        Benchmarks.pad(name, 46) + Benchmarks.padLeft(String(format: "%.0f B", result.bytesPerRun), 12)
            + Benchmarks.padLeft(String(format: "%.2f ms", result.seconds / Double(count) * 1e3), 12)
    }
    emit(Benchmarks.pad("(after \(warmUp) to warm up)", 46) + Benchmarks.padLeft("growth/run", 12) + Benchmarks.padLeft("time/run", 12))
    emit(line("URLSession request (baseline)", baseline))
    emit(line("widgetd HTTPClient.send", clientOnly))
    emit(line("widgetd HTTPClient.send over URLSession", clientOverURLSession))
    emit(line("widgetd refresh (HTTP client + pipeline)", ours))
    emit("  widgetd above the baseline: \(String(format: "%+.0f", ours.bytesPerRun - baseline.bytesPerRun)) B per refresh")

    endlessBodies(server)
}

/// What endless bodies cost: rounds of 8 requests at once to a server that sends without end, as fast as
/// the loopback carries it, each capped at 1 MiB. The peak resident memory above the start, and what is
/// still held afterwards, for widgetd's transport and for URLSession (the baseline), in the same run.
private func endlessBodies(_ server: BenchmarkServer) {
    let rounds = 5
    let width = 8
    Benchmarks.section("soak: \(rounds) rounds of \(width) endless bodies at once, 1 MiB cap each")
    let url = server.url("/huge?bytes=100000000000&chunked=1")
    func measure(_ transport: HTTPClient.Transport) -> (peak: Int, held: Int, seconds: Double, capped: Int) {
        let client = HTTPClient(maximumConnectionsPerHost: width, transport: transport)
        releaseFreedMemory()
        let start = residentBytes()
        resetPeakResident()
        let clock = ContinuousClock()
        let began = clock.now
        nonisolated(unsafe) var capped = 0
        for _ in 0..<rounds {
            let done = DispatchSemaphore(value: 0)
            Task {
                await withTaskGroup(of: Bool.self) { group in
                    for _ in 0..<width {
                        group.addTask {
                            do {
                                _ = try await client.send(HTTPRequest(url: url, maxBytes: 1 << 20))
                                return false
                            } catch {
                                return (error as? HTTPClientError)?.kind == .tooLarge
                            }
                        }
                    }
                    for await wasCapped in group where wasCapped { capped += 1 }
                }
                done.signal()
            }
            done.wait()
        }
        let seconds = durationSeconds(clock.now - began)
        // What a cancelled transfer still receives arrives after the caller has its answer.
        Thread.sleep(forTimeInterval: 2)
        let peak = peakResidentBytes()
        releaseFreedMemory()
        return (peak - start, residentBytes() - start, seconds, capped)
    }
    // widgetd's first: the process's peak can only be reset, not lowered, by what came before.
    let ours = measure(.automatic)
    let baseline = measure(.urlSession)
    emit(
        Benchmarks.pad("", 30) + Benchmarks.padLeft("peak above start", 18) + Benchmarks.padLeft("held after", 12)
            + Benchmarks.padLeft("time", 10) + Benchmarks.padLeft("capped", 9))
    for (name, result) in [("URLSession (baseline)", baseline), ("widgetd HTTPClient", ours)] {
        emit(
            Benchmarks.pad(name, 30) + Benchmarks.padLeft(megabytes(result.peak), 18)
                + Benchmarks.padLeft(megabytes(result.held), 12) + Benchmarks.padLeft(String(format: "%.2f s", result.seconds), 10)
                + Benchmarks.padLeft("\(result.capped)/\(rounds * width)", 9))
    }
    let ratio = Double(max(baseline.peak, 1)) / Double(max(ours.peak, 1))
    emit("  peak memory: widgetd \(String(format: "%.1f", ratio))x less than URLSession")
}

/// Resets the process's peak resident memory (`VmHWM`) to the current resident memory (Linux 4.0+).
func resetPeakResident() {
    try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
}

/// The process's peak resident memory since the last reset, in bytes (0 where /proc has none).
func peakResidentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kilobytes * 1024
}

/// Runs `body` `count` times and returns the growth of resident memory per run between the end of the
/// first `warmUp` runs and the end, and the total time.
private func soak(count: Int, warmUp: Int, _ body: () -> Void) -> (bytesPerRun: Double, seconds: Double) {
    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0..<warmUp { body() }
    releaseFreedMemory()
    let warm = residentBytes()
    for _ in warmUp..<count { body() }
    releaseFreedMemory()
    let end = residentBytes()
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    return (Double(end - warm) / Double(count - warmUp), seconds)
}
