import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetTesting

@testable import WidgetStages

struct ComputeTransformTests {
    private static let holdings: WidgetValue = [
        ["symbol": "BTC", "currentValue": 48_000.5, "costBasis": 31_250],
        ["symbol": "ARB", "currentValue": 1_012.5, "costBasis": 0],
        ["symbol": "PEPE", "currentValue": 258.5, "costBasis": 212.5],
    ]

    @Test func aListIsKeptUnderItsNameAndEachFieldSeesTheOnesBefore() async throws {
        let value = try await StageHarness.run(
            ComputeTransform.self,
            options: #"""
                {"as": "holdings", "fields": {
                  "totalValue": "{{ holdings | sum: 'currentValue' }}",
                  "totalCost": "{{ holdings | sum: 'costBasis' }}",
                  "totalPnL": "{{ totalValue | minus: totalCost }}",
                  "count": "{{ holdings | size }}",
                  "average": "{{ totalValue | divided_by: count | round: 2 }}",
                  "currency": "usd"}}
                """#,
            input: Self.holdings)
        #expect(
            value == [
                "holdings": Self.holdings, "totalValue": 49_271.5, "totalCost": 31_462.5, "totalPnL": 17_809,
                "count": 3, "average": 16_423.83, "currency": "usd",
            ])
        #expect(value.object?.keys.map { $0 } == ["holdings", "totalValue", "totalCost", "totalPnL", "count", "average", "currency"])
    }

    @Test func aListIsUnderItemsWithoutAs() async throws {
        let value = try await StageHarness.run(
            ComputeTransform.self, options: #"{"fields": {"n": "{{ items | size }}", "first": "{{ items.first }}"}}"#, input: [3, 4])
        #expect(value == ["items": [3, 4], "n": 2, "first": 3])
    }

    @Test func anObjectGetsTheFieldsWithItsMembersInScopeAndAFieldMayReplaceAMember() async throws {
        let value = try await StageHarness.run(
            ComputeTransform.self,
            options: #"{"fields": {"total": "{{ prices | sum }}", "prices": "{{ prices | size }}", "label": "{{ name }}: {{ total }}"}}"#,
            input: ["name": "cart", "prices": [1.5, 2.25]])
        #expect(value == ["name": "cart", "prices": 2, "total": 3.75, "label": "cart: 3.75"])
    }

    @Test func inputsAndParamsAreInScope() async throws {
        var harness = StageHarness()
        harness.context.inputs = ["app": ["realizedPnL": 1250.75]]
        harness.context.params = ["owner": "ada"]
        let value = try await harness.run(
            ComputeTransform.self, options: #"{"fields": {"realized": "{{ inputs.app.realizedPnL }}", "who": "{{ params.owner }}"}}"#,
            input: ["x": 1])
        #expect(value == ["x": 1, "realized": 1250.75, "who": "ada"])
    }

    @Test func aFailingFieldIsNamed() async throws {
        let error = await #expect(throws: StageError.self) {
            try await StageHarness.run(
                ComputeTransform.self, options: #"{"fields": {"share": "{{ 1 | divided_by: count }}"}}"#, input: ["count": 0])
        }
        #expect(error?.message.hasPrefix("the \"share\" field failed: ") == true, "\(String(describing: error))")
    }

    @Test func aValueThatIsNeitherAListNorAnObjectIsRefused() async throws {
        let error = await #expect(throws: StageError.self) {
            try await StageHarness.run(ComputeTransform.self, options: #"{"fields": {"n": 1}}"#, input: 42)
        }
        #expect(error?.message == "compute needs an object or a list, but the value is number; select one first")
    }

    @Test func badOptionsAreRefusedWithTheFix() async throws {
        await #expect(throws: OptionsError.self) {
            try await StageHarness.run(ComputeTransform.self, options: #"{"as": "my list", "fields": {"n": 1}}"#, input: [])
        }
        await #expect(throws: OptionsError.self) {
            try await StageHarness.run(ComputeTransform.self, options: #"{"fields": ["{{ items | size }}"]}"#, input: [])
        }
        let reader = DefinitionReader(registry: .builtIn, defaultTimeZone: TimeZone(identifier: "UTC")!)
        let text = #"""
            {
              "source": { "url": "https://example.com/a.json" },
              "transforms": [ { "type": "compute", "as": "2nd", "fields": { "n": 1 } } ]
            }
            """#
        let problems = reader.read(Data(text.utf8), file: "widgets.d/a.json").diagnostics.map(\.description)
        #expect(
            problems.contains { $0.contains("$.transforms[0].as: \"as\" is \"2nd\", which a template cannot read as a name") },
            "\(problems)")
    }

    @Test func followsTheStageRules() async {
        let problems = await StageConformance.check(
            ComputeTransform.self, options: ["as": "holdings", "fields": ["total": "{{ holdings | sum: 'currentValue' }}"]],
            input: Self.holdings)
        #expect(problems.isEmpty, "\(problems)")
    }
}
