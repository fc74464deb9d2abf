import Foundation

/// The figures of one measured operation.
struct Measurement {
    /// What was measured, e.g. `read 1 MB (JSONReader)`.
    var name: String
    /// The bytes each iteration handles, for MB/s; zero when throughput means nothing.
    var bytes: Int
    /// The median wall-clock time of one iteration, in seconds.
    var median: Double
    /// The fastest iteration, in seconds.
    var fastest: Double
    /// How many iterations were timed.
    var iterations: Int

    /// Throughput in megabytes (10^6 bytes) per second at the median time.
    var megabytesPerSecond: Double { bytes > 0 && median > 0 ? Double(bytes) / median / 1e6 : 0 }
}

/// The tiny harness every suite uses: warm up, time a fixed number of iterations, print one table row.
///
/// A suite is a function that calls ``measure(name:bytes:iterations:warmups:body:)`` for each operation and
/// ``ratio(_:_:)`` to compare two of them:
///
/// ```swift
/// func runJSONBenchmarks() {
///     let ours = Benchmarks.measure(name: "JSONReader", bytes: data.count) { try JSONReader.read(data) }
///     let base = Benchmarks.measure(name: "JSONSerialization", bytes: data.count) {
///         try JSONSerialization.jsonObject(with: data)
///     }
///     Benchmarks.ratio(ours, base)
/// }
/// ```
enum Benchmarks {
    /// A benchmark suite: a name the command line can select and the function that runs it.
    struct Suite {
        var name: String
        var run: () -> Void
    }

    /// Prints a suite or section title and the table header.
    static func section(_ title: String) {
        emit("")
        emit("== \(title)")
        emit(
            pad("benchmark", 46) + padLeft("median", 12) + padLeft("fastest", 12) + padLeft("MB/s", 10)
                + padLeft("iters", 7)
        )
    }

    /// Runs `body` `warmups` times untimed, then `iterations` times timed (fewer, but at least five, when
    /// they take longer than `budget` seconds), and prints the median, the fastest time and the
    /// throughput. The body's result is released outside the timed region, for ours and the baseline alike.
    @discardableResult
    static func measure<Result>(
        name: String,
        bytes: Int = 0,
        iterations: Int = 20,
        warmups: Int = 3,
        budget: Double = 3,
        body: () throws -> Result
    ) -> Measurement {
        do {
            for _ in 0..<warmups { blackHole(try body()) }
            var times: [Double] = []
            times.reserveCapacity(iterations)
            let clock = ContinuousClock()
            var total = 0.0
            for iteration in 0..<iterations {
                if iteration >= 5, total > budget { break }
                let start = clock.now
                let result = try body()
                let elapsed = clock.now - start
                blackHole(result)
                times.append(seconds(elapsed))
                total += times[times.count - 1]
            }
            times.sort()
            let median =
                times.count % 2 == 1
                ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
            let measurement = Measurement(
                name: name, bytes: bytes, median: median, fastest: times.first ?? 0, iterations: times.count)
            emit(
                pad(name, 46) + padLeft(format(time: median), 12) + padLeft(format(time: measurement.fastest), 12)
                    + padLeft(bytes > 0 ? String(format: "%.1f", measurement.megabytesPerSecond) : "-", 10)
                    + padLeft("\(times.count)", 7)
            )
            return measurement
        } catch {
            emit(pad(name, 46) + "  failed: \(error)")
            return Measurement(name: name, bytes: bytes, median: .nan, fastest: .nan, iterations: 0)
        }
    }

    /// Prints how many times faster `ours` is than `baseline`: `  JSONReader / JSONSerialization = 9.3×`.
    @discardableResult
    static func ratio(_ ours: Measurement, _ baseline: Measurement) -> Double {
        let factor = baseline.median / ours.median
        emit("  \(ours.name) / \(baseline.name) = \(String(format: "%.2f", factor))× faster")
        return factor
    }

    // MARK: - Formatting

    static func format(time seconds: Double) -> String {
        if seconds.isNaN { return "-" }
        if seconds >= 1 { return String(format: "%.2f s", seconds) }
        if seconds >= 1e-3 { return String(format: "%.3f ms", seconds * 1e3) }
        return String(format: "%.2f µs", seconds * 1e6)
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    static func padLeft(_ text: String, _ width: Int) -> String {
        text.count >= width ? " " + text : String(repeating: " ", count: width - text.count) + text
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}

/// Prints a line at once, even when standard output is a pipe.
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Keeps a value alive as far as the optimiser can tell.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
