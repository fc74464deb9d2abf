import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTesting

struct StageHarnessTests {
    @Test func runsATransformFromTheOptionsADefinitionWrites() async throws {
        let value = try await StageHarness.run(ScaleTransform.self, options: #"{"factor": 3}"#, input: [1, 2.5, "x"])
        #expect(value == [3, 7.5, "x"])
        // The stage object as a definition writes it, "type" and all.
        let same = try await StageHarness.run(ScaleTransform.self, options: #"{"type": "scale", "factor": 3}"#, input: [1])
        #expect(same == [3])
    }

    @Test func optionsAreDecodedAsStrictlyAsTheRegistryDecodesThem() async throws {
        let typo = await #expect(throws: OptionsError.self) {
            try await StageHarness.run(ScaleTransform.self, options: #"{"factr": 3}"#, input: [])
        }
        #expect(typo?.description == "$.factr: unknown key 'factr'; did you mean 'factor'?")
        let refused = await #expect(throws: OptionsError.self) {
            try await StageHarness.run(ScaleTransform.self, options: #"{"factor": 0}"#, input: [])
        }
        #expect(refused?.description == "$.factor: \"factor\" must not be 0")
        let fraction = await #expect(throws: OptionsError.self) {
            try await StageHarness.run(ScaleTransform.self, options: #"{"factor": 1.5}"#, input: [])
        }
        #expect(fraction?.path.description == "$.factor")
        let other = await #expect(throws: StageHarnessError.self) {
            try await StageHarness.run(ScaleTransform.self, options: #"{"type": "limit", "factor": 1}"#, input: [])
        }
        #expect(other?.message == #"the options name the stage "limit", not "scale""#)
        #expect(throws: StageHarnessError.self) { try StageHarness().make(ScaleTransform.self, options: "[1]") }
    }

    @Test func theContextIsTheTestsToSetAndTheLogIsKept() async throws {
        var harness = StageHarness()
        harness.context.widgetID = "news"
        let value = try await harness.run(ScaleTransform.self, options: #"{"factor": 2, "label": "{{ widget.id | upcase }}"}"#, input: [1])
        #expect(value == [2])
        #expect(harness.log == ["scale: NEWS"])
    }

    @Test func eachRunReadsNowFromTheManualClock() async throws {
        let harness = StageHarness(now: Date(timeIntervalSince1970: 1_800_000_000))
        let first = try await harness.run(HourlyTimeline.self, input: ["a", "b"])
        #expect(first.map(\.date) == [Date(timeIntervalSince1970: 1_800_000_000), Date(timeIntervalSince1970: 1_800_003_600)])
        harness.clock.advance(by: 600)
        let later = try await harness.run(HourlyTimeline.self, input: ["a"])
        #expect(later.map(\.date) == [Date(timeIntervalSince1970: 1_800_000_600)])
    }

    @Test func runsAParser() async throws {
        let payload = Payload(data: Data("one\ntwo\n".utf8), contentType: "text/plain", origin: "memory")
        #expect(try await StageHarness.run(LinesParser.self, input: payload) == ["one", "two"])
    }

    @Test func aSourceGetsTheRuntimesHTTPClientWithOriginRewritesThroughTheContext() async throws {
        let server = try TestHTTPServer(routes: [TestHTTPRoute("GET", "/v1/quote") { _ in .json(["quote": "hi"]) }])
        var harness = StageHarness()
        let local = "http://127.0.0.1:\(server.port)"
        harness.context.resources.insert(OriginRewrites(rules: [.init(from: "https://api.example.com", to: local)]))
        let payload = try await harness.run(PlainFetcher.self, options: #"{"url": "https://api.example.com/v1/quote"}"#)
        #expect(try JSONReader.read(payload.data) == ["quote": "hi"])
        #expect(payload.origin == "\(local)/v1/quote")
        #expect(server.requests.map(\.target) == ["/v1/quote"])
    }
}
