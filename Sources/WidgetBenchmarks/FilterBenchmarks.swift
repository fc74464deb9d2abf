import Foundation
import WidgetJSON
import WidgetLiquid

/// Liquid's string and number filters, a render of a one-tag template each, against python-liquid
/// rendering the same templates in the same run (when a Python with the `liquid` package is found:
/// `$WIDGETD_BENCH_PYTHON`, else `python3`). The goal is 10× python-liquid for each filter.
func runFilterBenchmarks() {
    Benchmarks.section("filters: one-tag templates, each filter against python-liquid")
    struct Case {
        var name: String
        var template: String
        var data: WidgetObject
        var python: String
    }
    let cases = [
        Case(name: "lookup", template: "{{ s }}", data: ["s": "Hello"], python: #"{"s": "Hello"}"#),
        Case(
            name: "strip", template: "{{ s | strip }}", data: ["s": "   Hello, widget world!   \n"],
            python: #"{"s": "   Hello, widget world!   \n"}"#),
        Case(
            name: "truncate", template: "{{ s | truncate: 20 }}", data: ["s": "The quick brown fox jumps over the lazy dog"],
            python: #"{"s": "The quick brown fox jumps over the lazy dog"}"#),
        Case(
            name: "times | round", template: "{{ price | times: 1.2 | round: 2 }}", data: ["price": 19.99],
            python: #"{"price": 19.99}"#),
        Case(
            name: "date", template: "{{ d | date: '%Y-%m-%d %H:%M' }}", data: ["d": "2026-11-25T08:30:00Z"],
            python: #"{"d": "2026-11-25T08:30:00Z"}"#),
    ]
    let python = pythonLiquid(cases.map { ($0.name, $0.template, $0.python) })
    if let problem = python.problem { emit("  python-liquid: \(problem)") }
    let calls = 20_000
    for benchmark in cases {
        let template: Template
        do {
            template = try Template(benchmark.template)
        } catch {
            emit("  Error: \(benchmark.template): \(error)")
            continue
        }
        let scope = TemplateScope(globals: benchmark.data, now: Date(timeIntervalSince1970: 1_800_000_000))
        let output = (try? template.renderString(scope)) ?? "(failed)"
        let result = Benchmarks.measure(name: "\(benchmark.name) (\(calls.formatted()) renders)", iterations: 15, warmups: 2) {
            var count = 0
            for _ in 0..<calls { count &+= ((try? template.render(scope)) != nil) ? 1 : 0 }
            return count
        }
        let perCall = result.median / Double(calls)
        var line = "  \(benchmark.template) → \"\(output)\": \(String(format: "%.3f", perCall * 1e6)) µs a render"
        if let theirs = python.results[benchmark.name] {
            line +=
                "; python-liquid \(String(format: "%.2f", theirs.seconds * 1e6)) µs (\"\(theirs.output)\") = "
                + "\(String(format: "%.1f", theirs.seconds / perCall))× (goal: 10×)"
            if theirs.output != output { line += "; Error: the outputs differ" }
        }
        emit(line)
    }
}

/// Times each template in python-liquid (the best of five runs of `timeit`); returns seconds a render
/// and the output by name, or why it could not.
private func pythonLiquid(_ cases: [(name: String, template: String, data: String)])
    -> (results: [String: (seconds: Double, output: String)], problem: String?)
{
    let script = """
        import json, sys, timeit
        try:
            from liquid import Environment
        except ImportError:
            print(json.dumps({"problem": "not installed (pip install python-liquid)"}))
            sys.exit(0)
        env = Environment()
        out = {}
        for case in json.load(sys.stdin):
            template = env.from_string(case["template"])
            data = json.loads(case["data"])
            output = template.render(**data)
            best = min(timeit.repeat(lambda: template.render(**data), number=20000, repeat=5))
            out[case["name"]] = {"seconds": best / 20000, "output": output}
        print(json.dumps({"results": out}))
        """
    let input: WidgetValue = .array(cases.map { ["name": .string($0.name), "template": .string($0.template), "data": .string($0.data)] })
    let process = Process()
    let interpreter = ProcessInfo.processInfo.environment["WIDGETD_BENCH_PYTHON"] ?? "python3"
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [interpreter, "-c", script]
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = FileHandle.nullDevice
    do {
        try process.run()
    } catch {
        return ([:], "\(interpreter) did not start: \(error)")
    }
    stdin.fileHandleForWriting.write(JSONWriter.data(input))
    try? stdin.fileHandleForWriting.close()
    let data = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard let report = try? JSONReader.read(data) else { return ([:], "\(interpreter) gave no report") }
    if let problem = report["problem"]?.string { return ([:], problem) }
    var results: [String: (seconds: Double, output: String)] = [:]
    for (name, result) in report["results"]?.object ?? [:] {
        if let seconds = result["seconds"]?.number?.double, let output = result["output"]?.string {
            results[name] = (seconds, output)
        }
    }
    return (results, nil)
}
