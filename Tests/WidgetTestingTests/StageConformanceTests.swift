import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTesting

struct StageConformanceTests {
    @Test func aStageThatFollowsTheRulesPassesWhenRunFromManyTasksAtOnce() async {
        #expect(await StageConformance.check(ScaleTransform.self, options: ["factor": 2], input: [1, 2, 3]) == [])
        #expect(await StageConformance.check(LinesParser.self, input: Payload(data: Data("a\nb".utf8), origin: "memory")) == [])
        #expect(await StageConformance.check(HourlyTimeline.self, input: ["a", "b"]) == [])
    }

    @Test func aStageThatKeepsStateBetweenRunsIsCaught() async {
        let problems = await StageConformance.check(CountingTransform.self, input: [])
        #expect(
            problems == [
                "8 runs at once on the same input gave 8 different results; a stage must keep no state between runs "
                    + "(hold it in an actor or a Mutex and make the result not depend on it)"
            ])
    }

    @Test func runsThatFailAreReported() async {
        let problems = await StageConformance.check(ScaleTransform.self, options: ["factor": 2], input: "not a list", concurrentRuns: 4)
        #expect(problems == ["4 of 4 runs at once failed, the first with: scale needs a list"])
    }

    @Test func optionsThatDoNotBuildTheStageAreReportedWithoutRunningIt() async {
        let problems = await StageConformance.check(ScaleTransform.self, options: ["factor": 0], input: [1])
        #expect(problems == [#"the example options do not build the stage: $.factor: "factor" must not be 0"#])
    }

    @Test func aSourceIsRunWithTheContextGiven() async throws {
        let server = try TestHTTPServer(routes: [TestHTTPRoute("GET", "/v1/quote") { _ in .json(["quote": "hi"]) }])
        let problems = await StageConformance.check(
            PlainFetcher.self, options: ["url": .string(server.url("/v1/quote").absoluteString)], context: StageHarness().currentContext()
        )
        #expect(problems == [])
        #expect(server.requestCount(path: "/v1/quote") == StageConformance.defaultConcurrentRuns)
    }

    @Test func theStaticChecksStillHold() {
        #expect(StageConformance.check(ScaleTransform.self, options: ["factor": 2], alongside: .builtIn()) == [])
    }
}
