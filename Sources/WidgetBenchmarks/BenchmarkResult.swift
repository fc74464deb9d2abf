/// The figures of one measured operation.
struct BenchmarkResult {
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
