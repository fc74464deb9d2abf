import Foundation
import Testing
import WidgetJSON
import WidgetLiquid
import WidgetTestSupport

/// Runs the whole Golden Liquid suite through ``Template``: output, filters, tags and partials.
struct GoldenLiquidTests {
    /// A case's partials, from its `templates` member.
    struct Partials: TemplatePartials {
        var sources: [String: String]

        func template(named name: String) throws(ExpressionError) -> Template {
            guard let source = sources[name] else { throw ExpressionError("no partial named '\(name)'") }
            return try Template(source)
        }
    }

    /// Cases where we deliberately differ from Ruby Liquid, with the reason.
    static let knownFailures: [String: String] = [
        "tags, case, unexpected when token, strict2":
            "a `when` reads its values and ignores what follows, as Ruby Liquid's default (lax) parser does; "
            + "the case expects the strict2 parser's error"
    ]

    struct Case {
        var name: String
        var template: String
        var data: WidgetObject
        var results: [String]
        var invalid: Bool
        var partials: [String: String]
    }

    static func applicableCases() throws -> [Case] {
        let data = try Data(contentsOf: Oracles.url("golden-liquid/golden_liquid.json"))
        let suite = try JSONReader.read(data)
        var cases: [Case] = []
        for test in suite["tests"]?.array ?? [] {
            guard let name = test["name"]?.string, let template = test["template"]?.string else { continue }
            var partials: [String: String] = [:]
            for (key, value) in test["templates"]?.object ?? [:] { partials[key] = value.string }
            var results: [String] = []
            if let result = test["result"]?.string { results.append(result) }
            for result in test["results"]?.array ?? [] { if let text = result.string { results.append(text) } }
            cases.append(
                Case(
                    name: name, template: template, data: test["data"]?.object ?? [:], results: results,
                    invalid: test["invalid"]?.bool ?? false, partials: partials))
        }
        return cases
    }

    /// What rendering a case gives: the text, or the error's description.
    static func outcome(of testCase: Case, steps: TemplateSteps = TemplateSteps()) -> Result<String, ExpressionError> {
        var scope = TemplateScope(
            globals: testCase.data, now: Date(timeIntervalSince1970: 1_779_000_000),
            timeZone: TimeZone(identifier: "UTC")!)
        scope.partials = Partials(sources: testCase.partials)
        // Every case renders within the default step budget a refresh has.
        scope.steps = steps
        do {
            let template = try Template(testCase.template)
            return .success(try template.renderString(scope))
        } catch {
            return .failure(error)
        }
    }

    @Test func theLargestCaseTakesUnderAThousandthOfTheDefaultSteps() throws {
        var largest = (steps: 0, name: "")
        for testCase in try Self.applicableCases() {
            let steps = TemplateSteps()
            _ = Self.outcome(of: testCase, steps: steps)
            if steps.spent > largest.steps { largest = (steps.spent, testCase.name) }
        }
        #expect(largest.steps > 0)
        #expect(largest.steps < TemplateSteps.defaultLimit / 1_000, "\(largest.name): \(largest.steps) steps")
        print("Golden Liquid: the largest case, \(largest.name), takes \(largest.steps) steps")
    }

    @Test func wholeSuiteMatchesRubyLiquid() throws {
        let cases = try Self.applicableCases()
        #expect(cases.count == 1054)
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
        let excluded = Self.knownFailures.keys.sorted().map { "\($0) (\(Self.knownFailures[$0]!))" }
        print(
            "Golden Liquid: \(passed)/\(cases.count) (\(String(format: "%.1f", percent))%); "
                + "unsupported: the strict2 parser's errors, \(Self.knownFailures.count) case(s): \(excluded.joined(separator: "; "))")
        let applicable = cases.count - Self.knownFailures.count
        #expect(Double(passed) * 100 / Double(applicable) >= 99, "Golden Liquid: \(passed)/\(applicable) is below 99%")
        #expect(unexpectedFailures.isEmpty, "\(unexpectedFailures.joined(separator: "\n"))")
        #expect(fixedKnownFailures.isEmpty, "known failures that now pass: \(fixedKnownFailures)")
    }
}
