import Foundation

/// The tiny harness every suite uses: warm up, time a number of iterations, print one table row each.
///
/// A suite is a function that calls ``measure(name:bytes:iterations:warmups:budget:body:)`` for each
/// operation, ``compare(_:_:against:_:bytes:iterations:warmups:budget:)`` to time two operations in
/// alternation and print how many times faster the first is, or ``ratio(_:_:)`` on two measurements:
///
/// ```swift
/// func runJSONBenchmarks() {
///     Benchmarks.section("JSON read")
///     Benchmarks.compare(
///         "JSONReader.read", { try JSONReader.read(data) },
///         against: "JSONSerialization.jsonObject", { try JSONSerialization.jsonObject(with: data) },
///         bytes: data.count
///     )
/// }
/// ```
///
/// Register the function in `main.swift`'s list of suites under a short name.
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
    ) -> BenchmarkResult {
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
            let measurement = report(name, bytes: bytes, times: times)
            return measurement
        } catch {
            emit(pad(name, 46) + "  failed: \(error)")
            return BenchmarkResult(name: name, bytes: bytes, median: .nan, fastest: .nan, iterations: 0)
        }
    }

    /// Times `ours` and `baseline` in alternation, so that both see the same load on a busy machine,
    /// prints a row for each and the ratio of their medians, and returns that ratio.
    @discardableResult
    static func compare<Ours, Baseline>(
        _ oursName: String,
        _ ours: () throws -> Ours,
        against baselineName: String,
        _ baseline: () throws -> Baseline,
        bytes: Int,
        iterations: Int = 20,
        warmups: Int = 3,
        budget: Double = 6
    ) -> Double {
        guard
            let (oursMeasurement, baselineMeasurement) = measurePair(
                oursName, ours, against: baselineName, baseline,
                bytes: bytes, iterations: iterations, warmups: warmups, budget: budget)
        else { return .nan }
        return ratio(oursMeasurement, baselineMeasurement)
    }

    /// Times `ours` and `baseline` in alternation and prints a row for each; `nil` (after printing why)
    /// when either throws.
    static func measurePair<Ours, Baseline>(
        _ oursName: String,
        _ ours: () throws -> Ours,
        against baselineName: String,
        _ baseline: () throws -> Baseline,
        bytes: Int,
        iterations: Int = 20,
        warmups: Int = 3,
        budget: Double = 6
    ) -> (ours: BenchmarkResult, baseline: BenchmarkResult)? {
        // The bodies are only called while measuring: they do not escape.
        let results = withoutActuallyEscaping(ours) { ours in
            withoutActuallyEscaping(baseline) { baseline in
                measureInTurn(
                    [(oursName, { try ours() }), (baselineName, { try baseline() })], bytes: bytes, iterations: iterations,
                    warmups: warmups, budget: budget)
            }
        }
        return results.map { ($0[0], $0[1]) }
    }

    /// Times each of `bodies` in turn, one run of each per round, so that all see the same load on a busy
    /// machine, and prints a row for each, in their order; `nil` (after printing why) when one throws.
    /// Each body's result is released outside the timed region.
    static func measureInTurn(
        _ bodies: [(name: String, body: () throws -> Any)],
        bytes: Int,
        iterations: Int = 20,
        warmups: Int = 3,
        budget: Double = 6
    ) -> [BenchmarkResult]? {
        do {
            for _ in 0..<warmups {
                for entry in bodies { blackHole(try entry.body()) }
            }
            var times = [[Double]](repeating: [], count: bodies.count)
            var total = 0.0
            let clock = ContinuousClock()
            for iteration in 0..<iterations {
                if iteration >= 5, total > budget { break }
                for (index, entry) in bodies.enumerated() {
                    settleAllocator()
                    let start = clock.now
                    let result = try entry.body()
                    times[index].append(seconds(clock.now - start))
                    blackHole(result)
                    total += times[index][times[index].count - 1]
                }
            }
            return zip(bodies, times).map { report($0.name, bytes: bytes, times: $1) }
        } catch {
            emit(pad(bodies.map(\.name).joined(separator: " vs "), 46) + "  failed: \(error)")
            return nil
        }
    }

    /// Lets the allocator finish with what the last timed run freed (glibc merges freed small blocks only
    /// when a later allocation asks, and that later allocation is the next timed run's, whichever side it
    /// is), so that neither side of a comparison pays for the other's garbage. Untimed.
    static func settleAllocator() {
        releaseFreedMemory()
    }

    /// Prints how many times faster `ours` is than `baseline`, by median (and by fastest run):
    /// `  JSONReader.read / JSONSerialization.jsonObject = 9.31× (fastest 9.52×)`.
    @discardableResult
    static func ratio(_ ours: BenchmarkResult, _ baseline: BenchmarkResult) -> Double {
        let factor = baseline.median / ours.median
        let fastest = baseline.fastest / ours.fastest
        emit(
            "  \(ours.name) / \(baseline.name) = \(String(format: "%.2f", factor))×"
                + " (fastest \(String(format: "%.2f", fastest))×)"
        )
        return factor
    }

    // MARK: - Formatting

    /// Prints one table row for the timed iterations `times` and returns their figures.
    private static func report(_ name: String, bytes: Int, times: [Double]) -> BenchmarkResult {
        let times = times.sorted()
        let median =
            times.count % 2 == 1
            ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
        let measurement = BenchmarkResult(
            name: name, bytes: bytes, median: median, fastest: times.first ?? .nan, iterations: times.count)
        emit(
            pad(name, 46) + padLeft(format(time: median), 12) + padLeft(format(time: measurement.fastest), 12)
                + padLeft(bytes > 0 ? String(format: "%.1f", measurement.megabytesPerSecond) : "-", 10)
                + padLeft("\(times.count)", 7)
        )
        return measurement
    }

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
