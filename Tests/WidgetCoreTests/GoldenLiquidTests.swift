import Foundation
import Testing
import WidgetCore

/// Runs the Golden Liquid suite's output and filter cases (those without `{% %}` tags) through ``Template``.
struct GoldenLiquidTests {
    /// Cases where we deliberately differ from Ruby Liquid, with the reason.
    static let knownFailures: [String: String] = [:]

    struct Case {
        var name: String
        var template: String
        var data: WidgetObject
        var results: [String]
        var invalid: Bool
    }

    static func applicableCases() throws -> [Case] {
        let data = try Data(contentsOf: Oracles.url("golden-liquid/golden_liquid.json"))
        let suite = try JSONReader.read(data)
        var cases: [Case] = []
        for test in suite["tests"]?.array ?? [] {
            guard let name = test["name"]?.string, let template = test["template"]?.string,
                test["templates"] == nil, !template.contains("{%")
            else { continue }
            var results: [String] = []
            if let result = test["result"]?.string { results.append(result) }
            for result in test["results"]?.array ?? [] { if let text = result.string { results.append(text) } }
            cases.append(
                Case(
                    name: name, template: template, data: test["data"]?.object ?? [:], results: results,
                    invalid: test["invalid"]?.bool ?? false))
        }
        return cases
    }

    /// What rendering a case gives: the text, or the error's description.
    static func outcome(of testCase: Case) -> Result<String, ExpressionError> {
        let scope = TemplateScope(
            globals: testCase.data, now: Date(timeIntervalSince1970: 1_779_000_000),
            timeZone: TimeZone(identifier: "UTC")!)
        do {
            let template = try Template(testCase.template)
            return .success(try template.renderString(scope))
        } catch {
            return .failure(error)
        }
    }

    @Test func outputAndFilterCasesMatchRubyLiquid() throws {
        let cases = try Self.applicableCases()
        #expect(cases.count > 500)
        var passed = 0
        var unexpectedFailures: [String] = []
        var fixedKnownFailures: [String] = []
        for testCase in cases {
            let outcome = Self.outcome(of: testCase)
            let ok: Bool
            var detail = ""
            switch outcome {
            case .success(let text):
                ok = !testCase.invalid && testCase.results.contains(text)
                detail =
                    testCase.invalid
                    ? "rendered \(text.debugDescription) but should fail"
                    : "rendered \(text.debugDescription), expected \(testCase.results.map(\.debugDescription))"
            case .failure(let error):
                ok = testCase.invalid
                detail = "failed with \(error), expected \(testCase.results.map(\.debugDescription))"
            }
            if ok {
                passed += 1
                if Self.knownFailures[testCase.name] != nil { fixedKnownFailures.append(testCase.name) }
            } else if Self.knownFailures[testCase.name] == nil {
                unexpectedFailures.append("\(testCase.name): \(testCase.template.debugDescription) \(detail)")
            }
        }
        let percent = Double(passed) * 100 / Double(cases.count)
        print("Golden Liquid: \(passed)/\(cases.count) (\(String(format: "%.1f", percent))%)")
        #expect(percent >= 98, "Golden Liquid: \(passed)/\(cases.count) is below 98%")
        #expect(unexpectedFailures.isEmpty, "\(unexpectedFailures.joined(separator: "\n"))")
        #expect(fixedKnownFailures.isEmpty, "known failures that now pass: \(fixedKnownFailures)")
    }
}
