import Foundation
import WidgetJSON

/// JSONPath against a hand-written loop doing the same work over `document` (the expression suite's
/// catalogue, `bytes` long): every object or array member, anywhere, that is an object whose price is a
/// number above 10. Returns false when the path does not compile (the suite then stops, as before).
func runJSONPathBenchmark(_ document: WidgetValue, bytes: Int) -> Bool {
    let path: JSONPath
    do {
        path = try JSONPath("$..[?@.price > 10]")
    } catch {
        emit("Error: \(error)")
        return false
    }
    let ten = WidgetNumber(10)
    func handWritten(_ value: WidgetValue, into result: inout [WidgetValue]) {
        switch value {
        case .array(let elements):
            for element in elements {
                if case .object(let object) = element, case .number(let price)? = object["price"], ten < price {
                    result.append(element)
                }
            }
            for element in elements { handWritten(element, into: &result) }
        case .object(let object):
            for member in object.values {
                if case .object(let inner) = member, case .number(let price)? = inner["price"], ten < price {
                    result.append(member)
                }
            }
            for member in object.values { handWritten(member, into: &result) }
        default:
            break
        }
    }
    var expected: [WidgetValue] = []
    handWritten(document, into: &expected)
    let found = path.select(document)
    emit("  matches: JSONPath \(found.count), hand-written loop \(expected.count)\(found == expected ? "" : " — DIFFERENT")")
    let slowdown =
        1
        / Benchmarks.compare(
            "JSONPath $..[?@.price > 10]", { path.select(document).count },
            against: "hand-written Swift loop",
            {
                var result: [WidgetValue] = []
                handWritten(document, into: &result)
                return result.count
            },
            bytes: bytes, iterations: 40
        )
    emit("  JSONPath / hand-written loop = \(String(format: "%.2f", slowdown))× the time (goal: within 3×)")
    return true
}
