import Foundation
import WidgetJSON

/// JSON reading (the goals: `JSONReader` at least 9× `JSONSerialization.jsonObject` on every document,
/// same process, same bytes, and at least as fast as Python's orjson on twitter.json when orjson is
/// installed) and, for information, located reading and writing against `JSONSerialization.data` and
/// `JSONEncoder`.
///
/// The documents are the three standard ones (twitter, canada, citm_catalog; bundled with this target), a
/// generated 1 MB catalogue and a generated 20 KB API response.
func runJSONBenchmarks() {
    var documents: [(name: String, data: Data, iterations: Int)] = []
    for (file, iterations) in [("twitter", 100), ("canada", 40), ("citm_catalog", 60)] {
        guard let url = Bundle.module.url(forResource: file, withExtension: "json", subdirectory: "Documents"),
            let data = try? Data(contentsOf: url)
        else {
            emit("Error: the benchmark document \(file).json is missing from the bundle.")
            continue
        }
        documents.append(("\(file).json", data, iterations))
    }
    documents.append(("1 MB catalogue", Data(JSONBenchmarkDocuments.catalogue(records: 5_000)), 40))
    documents.append(("20 KB response", Data(JSONBenchmarkDocuments.response(bytes: 20_000)), 2_000))

    let orjson = orjsonTimes(documents.map { ($0.name, $0.data) })
    if let problem = orjson.problem { emit("  orjson: \(problem)") }
    var summary: [String] = []
    for document in documents {
        let data = document.data
        Benchmarks.section("JSON read: \(document.name) (\(data.count) bytes)")
        guard
            let (ours, foundation) = Benchmarks.measurePair(
                "JSONReader.read", { try JSONReader.read(data) },
                against: "JSONSerialization.jsonObject", { try JSONSerialization.jsonObject(with: data) },
                bytes: data.count, iterations: document.iterations
            )
        else { continue }
        let factor = Benchmarks.ratio(ours, foundation)
        var line = "\(document.name): \(String(format: "%.2f", factor))× JSONSerialization (goal 9×)"
        if let seconds = orjson.seconds[document.name] {
            let theirs = BenchmarkResult(
                name: "orjson.loads", bytes: data.count, median: seconds, fastest: seconds, iterations: 0)
            emit(
                Benchmarks.pad("orjson.loads (Python)", 46) + Benchmarks.padLeft(Benchmarks.format(time: seconds), 12)
                    + Benchmarks.padLeft("-", 12)
                    + Benchmarks.padLeft(String(format: "%.1f", theirs.megabytesPerSecond), 10)
            )
            let versus = seconds / ours.median
            emit("  JSONReader.read / orjson.loads = \(String(format: "%.2f", versus))×")
            line += ", \(String(format: "%.2f", versus))× orjson"
            if document.name == "twitter.json" { line += " (goal 1×)" }
        }
        summary.append(line)
        Benchmarks.measure(name: "JSONReader.readWithLocations", bytes: data.count, iterations: document.iterations) {
            try JSONReader.readWithLocations(data)
        }
    }
    Benchmarks.section("JSON read: summary")
    for line in summary { emit("  " + line) }

    for document in documents {
        guard let value = try? JSONReader.read(document.data),
            let foundation = try? JSONSerialization.jsonObject(with: document.data)
        else {
            emit("Error: the \(document.name) document could not be read.")
            continue
        }
        let size = JSONWriter.data(value).count
        Benchmarks.section("JSON write: \(document.name) (\(size) bytes out)")
        let ours = Benchmarks.measure(name: "JSONWriter.data", bytes: size, iterations: document.iterations) {
            JSONWriter.data(value)
        }
        let serialization = Benchmarks.measure(
            name: "JSONSerialization.data", bytes: size, iterations: document.iterations
        ) {
            try JSONSerialization.data(withJSONObject: foundation)
        }
        let encoder = JSONEncoder()
        let encoded = Benchmarks.measure(name: "JSONEncoder.encode", bytes: size, iterations: document.iterations) {
            try encoder.encode(value)
        }
        Benchmarks.ratio(ours, serialization)
        Benchmarks.ratio(ours, encoded)
    }
}

/// The median time of one `orjson.loads` call on each document, in a Python with orjson
/// (`$WIDGETD_BENCH_PYTHON`, else `python3`), or why it could not be measured.
private func orjsonTimes(_ documents: [(name: String, data: Data)])
    -> (seconds: [String: Double], problem: String?)
{
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("widgetd-bench-json-\(getpid())")
    defer { try? FileManager.default.removeItem(at: directory) }
    var files: [WidgetValue] = []
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (index, document) in documents.enumerated() {
            let file = directory.appendingPathComponent("\(index).json")
            try document.data.write(to: file)
            files.append(["name": .string(document.name), "path": .string(file.path)])
        }
    } catch {
        return ([:], "the documents could not be written for Python: \(error)")
    }
    let script = """
        import json, statistics, sys, time
        try:
            import orjson
        except ImportError:
            print(json.dumps({"problem": "not installed (pip install orjson)"}))
            sys.exit(0)
        out = {}
        for case in json.load(sys.stdin):
            data = open(case["path"], "rb").read()
            for _ in range(3):
                orjson.loads(data)
            start = time.perf_counter()
            orjson.loads(data)
            once = time.perf_counter() - start
            number = max(1, int(0.02 / max(once, 1e-7)))
            times = []
            for _ in range(15):
                start = time.perf_counter()
                for _ in range(number):
                    orjson.loads(data)
                times.append((time.perf_counter() - start) / number)
            out[case["name"]] = statistics.median(times)
        print(json.dumps({"seconds": out}))
        """
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
    stdin.fileHandleForWriting.write(JSONWriter.data(.array(files)))
    try? stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard let report = try? JSONReader.read(output) else { return ([:], "\(interpreter) gave no report") }
    if let problem = report["problem"]?.string { return ([:], problem) }
    var seconds: [String: Double] = [:]
    for (name, value) in report["seconds"]?.object ?? [:] {
        if let value = value.number?.double { seconds[name] = value }
    }
    return (seconds, nil)
}
