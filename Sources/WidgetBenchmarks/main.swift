// Runs the benchmark suites: `widgetd-bench` runs them all, `widgetd-bench json` only the suite named
// `json` (an argument that names no suite exactly selects every suite whose name contains it).
// Build with `-c release` for meaningful figures.

let suites: [Benchmarks.Suite] = [
    Benchmarks.Suite(name: "json", run: runJSONBenchmarks),
    Benchmarks.Suite(name: "expressions", run: runExpressionBenchmarks),
    Benchmarks.Suite(name: "definitions", run: runDefinitionBenchmarks),
    Benchmarks.Suite(name: "refresh", run: runRefreshBenchmarks),
    Benchmarks.Suite(name: "feed", run: runFeedBenchmarks),
    Benchmarks.Suite(name: "scheduler", run: runSchedulerBenchmarks),
    Benchmarks.Suite(name: "soak", run: runSoakBenchmarks),
    Benchmarks.Suite(name: "io", run: runIOBenchmarks),
    Benchmarks.Suite(name: "filters", run: runFilterBenchmarks),
    Benchmarks.Suite(name: "memory", run: runMemoryBenchmarks),
    Benchmarks.Suite(name: "s3", run: runS3Benchmarks),
    Benchmarks.Suite(name: "s3-outage", run: runS3OutageBenchmarks),
    Benchmarks.Suite(name: "notify-crash", run: runNotifyCrashBenchmarks),
    Benchmarks.Suite(name: "scale", run: runScaleBenchmarks),
]

if CommandLine.arguments.dropFirst().first == BenchmarkServer.flag { BenchmarkServer.serve() }

let filters = CommandLine.arguments.dropFirst().map { $0.lowercased() }
let selected = suites.filter { suite in
    filters.isEmpty
        || filters.contains { filter in
            suites.contains { $0.name == filter } ? suite.name == filter : suite.name.contains(filter)
        }
}
if selected.isEmpty {
    emit(
        "Error: no benchmark suite matches \(filters.joined(separator: " ")); the suites are "
            + suites.map(\.name).joined(separator: ", ") + "."
    )
}
for suite in selected {
    suite.run()
}
