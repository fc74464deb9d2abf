// Tests/RoundTransformTests/RoundTransformTests.swift
import Testing
import WidgetCore
import WidgetJSON
import WidgetTesting

@testable import widgetd_round

struct RoundTransformTests {
    @Test func roundsEveryNumberAndKeepsTheRest() async throws {
        let value = try await StageHarness.run(RoundTransform.self, options: #"{"places": 1}"#, input: [1.25, 2, "n/a"])
        #expect(value == [1.3, 2, "n/a"])
    }

    @Test func roundsToWholeNumbersByDefault() async throws {
        let value = try await StageHarness.run(RoundTransform.self, options: #"{}"#, input: [1.5, 2.25])
        #expect(value == [2, 2])
    }

    @Test func refusesPlacesOutOfRange() async {
        await #expect(throws: OptionsError(path: .root.appending("places"), message: #""places" must be from 0 to 10, not 11"#)) {
            try await StageHarness.run(RoundTransform.self, options: #"{"places": 11}"#, input: [])
        }
    }

    @Test func followsTheStageRules() async {
        let problems = await StageConformance.check(RoundTransform.self, options: ["places": 2], input: [1.234, 5.678])
        #expect(problems.isEmpty, "\(problems)")
    }
}
