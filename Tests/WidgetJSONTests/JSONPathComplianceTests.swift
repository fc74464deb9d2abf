import Foundation
import Testing
import WidgetJSON
import WidgetTestSupport

/// Runs the JSONPath Compliance Test Suite (RFC 9535) from the shared oracles.
struct JSONPathComplianceTests {
    /// One case of `cts.json`.
    struct Case {
        var name: String
        var selector: String
        var document: WidgetValue?
        var invalid: Bool
        /// The acceptable nodelists (one unless the order is not deterministic).
        var results: [[WidgetValue]]
        /// The acceptable lists of normalized paths, paired with ``results``; empty when not given.
        var resultPaths: [[String]]
    }

    static func loadCases() throws -> [Case] {
        let data = try Data(contentsOf: Oracles.url("jsonpath-cts/cts.json"))
        let suite = try JSONReader.read(data)
        return (suite["tests"]?.array ?? []).map { test in
            var results: [[WidgetValue]] = []
            if let single = test["result"]?.array { results = [single] }
            if let many = test["results"]?.array { results = many.map { $0.array ?? [] } }
            var paths: [[String]] = []
            if let single = test["result_paths"]?.array { paths = [single.compactMap(\.string)] }
            if let many = test["results_paths"]?.array { paths = many.map { ($0.array ?? []).compactMap(\.string) } }
            return Case(
                name: test["name"]?.string ?? "?",
                selector: test["selector"]?.string ?? "",
                document: test["document"],
                invalid: test["invalid_selector"]?.bool ?? false,
                results: results,
                resultPaths: paths)
        }
    }

    /// Why a case fails, or `nil` when it passes.
    static func failure(of test: Case) -> String? {
        if test.invalid {
            if let path = try? JSONPath(test.selector) {
                return "accepted the invalid selector \(path)"
            }
            return nil
        }
        let path: JSONPath
        do {
            path = try JSONPath(test.selector)
        } catch {
            return "rejected a valid selector: \(error)"
        }
        let document = test.document ?? .null
        let selected = path.select(document)
        let located = path.locate(document)
        let values = located.map(\.value)
        let paths = located.map(\.path.normalizedPath)
        for (index, expected) in test.results.enumerated() where selected == expected && values == expected {
            if test.resultPaths.isEmpty || test.resultPaths[index] == paths { return nil }
        }
        return "got \(JSONWriter.string(.array(selected))) at \(paths)"
    }

    @Test func passesTheWholeComplianceSuite() throws {
        let cases = try Self.loadCases()
        var failures: [String] = []
        for test in cases {
            if let reason = Self.failure(of: test) {
                failures.append("\(test.name) [\(test.selector)]: \(reason)")
            }
        }
        print("JSONPath CTS: \(cases.count - failures.count)/\(cases.count) passed")
        #expect(cases.count == 703)
        #expect(failures.isEmpty, "\(failures.count) failing cases:\n\(failures.joined(separator: "\n"))")
    }
}
