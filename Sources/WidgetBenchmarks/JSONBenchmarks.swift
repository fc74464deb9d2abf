import Foundation
import WidgetCore

/// JSON reading (the goal: `JSONReader` at least 9× `JSONSerialization.jsonObject`, same process, same
/// bytes) and, for information, located reading and writing against `JSONSerialization.data` and
/// `JSONEncoder`.
func runJSONBenchmarks() {
    let documents: [(name: String, data: Data, iterations: Int)] = [
        ("1 MB catalogue", Data(JSONBenchmarkDocuments.catalogue(records: 5_000)), 40),
        ("20 KB response", Data(JSONBenchmarkDocuments.response(bytes: 20_000)), 2_000),
    ]
    for document in documents {
        let data = document.data
        Benchmarks.section("JSON read: \(document.name) (\(data.count) bytes)")
        Benchmarks.compare(
            "JSONReader.read", { try JSONReader.read(data) },
            against: "JSONSerialization.jsonObject", { try JSONSerialization.jsonObject(with: data) },
            bytes: data.count, iterations: document.iterations
        )
        Benchmarks.measure(name: "JSONReader.readWithLocations", bytes: data.count, iterations: document.iterations) {
            try JSONReader.readWithLocations(data)
        }
    }

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
