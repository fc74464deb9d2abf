// Runs the benchmark suites: `widgetd-bench` runs them all, `widgetd-bench json` only those whose name
// contains one of the arguments. Build with `-c release` for meaningful figures.

let suites: [Benchmarks.Suite] = [
    Benchmarks.Suite(name: "json", run: runJSONBenchmarks),
]

let filters = CommandLine.arguments.dropFirst().map { $0.lowercased() }
let selected = suites.filter { suite in filters.isEmpty || filters.contains { suite.name.contains($0) } }
if selected.isEmpty {
    emit("Error: no benchmark suite matches \(filters.joined(separator: " ")); the suites are "
        + suites.map(\.name).joined(separator: ", ") + ".")
}
for suite in selected {
    suite.run()
}
