import Foundation
import WidgetCore
import WidgetJSON
import WidgetLiquid
import WidgetStages

/// JSONPath and templates over the 1 MB catalogue of 5,000 records: JSONPath against a hand-written loop
/// (`JSONPathBenchmarks.swift`, the JSON engine alone), then the `map` transform's templates.
func runExpressionBenchmarks() {
    Benchmarks.section("expressions: JSONPath $..[?@.price > 10] and map over 5,000 records")
    let bytes = JSONBenchmarkDocuments.catalogue(records: 5_000)
    let document: WidgetValue
    do {
        document = try JSONReader.read(Data(bytes))
    } catch {
        emit("Error: the catalogue does not parse: \(error)")
        return
    }
    guard runJSONPathBenchmark(document, bytes: bytes.count) else { return }
    runMapBenchmark(document)
}

/// `map` with 5 templated fields over the catalogue's items, each iteration one refresh.
private func runMapBenchmark(_ document: WidgetValue) {
    // map with 5 templated fields over 5,000 items.
    let items = document.array ?? []
    let map: MapTransform
    do {
        map = try MapTransform(
            options: OptionsDecoder().decode(
                MapTransform.Options.self,
                from: [
                    "fields": [
                        "name": "{{ title | strip | upcase }}",
                        "value": "{{ price | times: 1.2 | round: 2 }}",
                        "label": "{{ sku }} · {{ currency }}",
                        "tags": "{{ tags | join: ', ' }}",
                        "seller": "{{ seller.id | default: 'unknown' }}",
                    ]
                ]))
    } catch {
        emit("Error: \(error)")
        return
    }
    let context = StageContext(widgetID: "bench", now: Date(timeIntervalSince1970: 1_800_000_000))
    let list = WidgetValue.array(items)
    let semaphore = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var mapped = BenchmarkResult(name: "", bytes: 0, median: .nan, fastest: .nan, iterations: 0)
    Task {
        var times: [Double] = []
        let clock = ContinuousClock()
        for iteration in 0..<8 {
            // Each iteration is one refresh, with its own template budget.
            var refresh = context
            refresh.renderBudget = RenderBudget()
            let start = clock.now
            _ = try? await map.transform(list, context: refresh)
            let elapsed = clock.now - start
            if iteration >= 2 {
                times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
            }
        }
        times.sort()
        mapped = BenchmarkResult(
            name: "map, 5 fields × \(items.count) items", bytes: 0, median: times[times.count / 2], fastest: times[0],
            iterations: times.count)
        semaphore.signal()
    }
    semaphore.wait()
    let evaluations = Double(items.count * 5)
    emit(
        Benchmarks.pad(mapped.name, 46) + Benchmarks.padLeft(Benchmarks.format(time: mapped.median), 12)
            + Benchmarks.padLeft(Benchmarks.format(time: mapped.fastest), 12) + Benchmarks.padLeft("-", 10)
            + Benchmarks.padLeft("\(mapped.iterations)", 7)
    )
    emit("  field evaluations per second: \(Int(evaluations / mapped.median).formatted())")
}
