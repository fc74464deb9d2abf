import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetLiquid

struct OptionsDecoderTests {
    private struct Retry: Decodable, Equatable {
        var attempts: Int
        var backoff: WidgetDuration?
    }

    private struct Options: Decodable {
        var count: Int
        var offset: Int?
        var retry: Retry?
        var ratio: Double?
        var since: Date?
        var link: URL?
        var tags: [String]?
        var headers: [String: Template]?
        var raw: WidgetValue?
        var small: UInt8?
    }

    private func decode(_ value: WidgetValue) throws(OptionsError) -> Options {
        try OptionsDecoder().decode(Options.self, from: value)
    }

    private func problem(_ value: WidgetValue) -> String? {
        do {
            _ = try decode(value)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func knownKeysDecode() throws {
        let options = try decode([
            "count": 4, "offset": 1, "retry": ["attempts": 3, "backoff": "1m30s"], "ratio": 0.25,
            "tags": ["a", "b"], "raw": ["any": [1, "x", nil]], "small": 255,
        ])
        #expect(options.count == 4)
        #expect(options.offset == 1)
        #expect(options.retry == Retry(attempts: 3, backoff: WidgetDuration(seconds: 90)))
        #expect(options.ratio == 0.25)
        #expect(options.tags == ["a", "b"])
        #expect(options.raw == .object(["any": [1, "x", nil]]))
        #expect(options.small == 255)
    }

    @Test func unknownTopLevelKeySuggestsTheClosestKey() {
        #expect(problem(["count": 4, "ofset": 1]) == "$.ofset: unknown key 'ofset'; did you mean 'offset'?")
    }

    @Test func unknownKeyWithoutCloseMatchListsTheKeysAskedFor() {
        #expect(
            problem(["count": 4, "zzz": 1]) == "$.zzz: unknown key 'zzz'; known keys: 'count', 'headers', "
                + "'link', 'offset', 'ratio', 'raw', 'retry', 'since', 'small', 'tags'")
    }

    @Test func unknownKeyInANestedObjectIsReportedWithItsPath() {
        #expect(
            problem(["count": 4, "retry": ["attempts": 3, "backof": "1m"]])
                == "$.retry.backof: unknown key 'backof'; did you mean 'backoff'?")
    }

    private struct Empty: Decodable {}

    private struct Wrapper: Decodable {
        var inner: Empty?
        var free: WidgetValue?
    }

    @Test func optionsWithoutPropertiesRejectEveryKey() {
        #expect(throws: Never.self) { try OptionsDecoder().decode(Empty.self, from: [:]) }
        do {
            _ = try OptionsDecoder().decode(Empty.self, from: ["strict": true])
            Issue.record("an unknown key was accepted")
        } catch {
            #expect(error.description == "$.strict: unknown key 'strict'; this object takes no keys")
        }
        do {
            _ = try OptionsDecoder().decode(Wrapper.self, from: ["inner": ["x": 1], "free": ["y": 2]])
            Issue.record("an unknown nested key was accepted")
        } catch {
            #expect(error.description == "$.inner.x: unknown key 'x'; this object takes no keys")
        }
    }

    @Test func freeFormValuesAtTheRootTakeAnyKeys() throws {
        #expect(try OptionsDecoder().decode(WidgetValue.self, from: ["any": 1]) == ["any": 1])
        #expect(try OptionsDecoder().decode(Wrapper.self, from: ["free": ["y": ["z": 2]]]).free == ["y": ["z": 2]])
    }

    @Test func unknownKeyIsMarkedAsPointingAtTheKey() {
        do {
            _ = try decode(["count": 4, "ofset": 1])
            Issue.record("an unknown key was accepted")
        } catch {
            #expect(error.pointsAtKey)
            #expect(error.path.description == "$.ofset")
        }
    }

    @Test func membersOfFreeFormValuesAreNotUnknownKeys() throws {
        let options = try decode(["count": 1, "raw": ["whatever": ["nested": true]], "headers": ["X-Any": "v"]])
        #expect(options.raw == .object(["whatever": ["nested": true]]))
        #expect(options.headers?["X-Any"]?.source == "v")
    }

    @Test func integersRejectFractions() {
        #expect(problem(["count": 2.5]) == "$.count: 2.5 is not a whole number in range")
        #expect(problem(["count": 1, "small": 256]) == "$.small: 256 is not a whole number in range")
        #expect(problem(["count": 1, "small": -1]) == "$.small: -1 is not a whole number in range")
    }

    @Test func integerWrittenWithAZeroFractionIsWhole() throws {
        #expect(try decode(["count": .number(WidgetNumber("4.0")!)]).count == 4)
    }

    @Test func missingRequiredKeyIsNamed() {
        #expect(problem(["offset": 1]) == "$: missing required key 'count'")
        #expect(problem(["count": 1, "retry": [:]]) == "$.retry: missing required key 'attempts'")
    }

    @Test func misspeltRequiredKeyIsReportedAsTheMisspelling() {
        #expect(problem(["cont": 4]) == "$.cont: unknown key 'cont'; did you mean 'count'?")
        #expect(problem(["count": 1, "retry": ["attempt": 3]]) == "$.retry.attempt: unknown key 'attempt'; did you mean 'attempts'?")
        #expect(problem(["count": 1, "retry": ["tries": 3]]) == "$.retry: missing required key 'attempts'")
    }

    @Test func wrongTypesNameWhatWasExpectedAndFound() {
        #expect(problem(["count": "four"]) == "$.count: expected a whole number, found string")
        #expect(problem(["count": 1, "ratio": "half"]) == "$.ratio: expected a number, found string")
        #expect(problem(["count": 1, "tags": "a"]) == "$.tags: expected an array, found string")
        #expect(problem(["count": 1, "tags": ["a", 2]]) == "$.tags[1]: expected a string, found number")
        #expect(problem(["count": 1, "retry": 3]) == "$.retry: expected an object, found number")
        #expect(problem(["count": nil]) == "$.count: expected a whole number, found null")
        #expect(problem("just text") == "$: expected an object, found string")
    }

    @Test func datesAreISO8601() throws {
        let options = try decode(["count": 1, "since": "2026-11-22T08:00:00Z"])
        #expect(options.since == Date(timeIntervalSince1970: 1_795_334_400))
        #expect(
            problem(["count": 1, "since": "22/11/2026"])
                == #"$.since: "22/11/2026" is not an ISO 8601 date; write e.g. "2026-11-22T08:00:00Z""#)
    }

    @Test func urlsDecodeFromStrings() throws {
        let options = try decode(["count": 1, "link": "https://example.com/a?b=c"])
        #expect(options.link?.absoluteString == "https://example.com/a?b=c")
        #expect(problem(["count": 1, "link": ""]) == #"$.link: "" is not a URL"#)
        #expect(problem(["count": 1, "link": 5]) == "$.link: expected a string, found number")
    }

    @Test func durationsDecodeFromStrings() throws {
        #expect(try decode(["count": 1, "retry": ["attempts": 1, "backoff": "1d"]]).retry?.backoff == WidgetDuration(seconds: 86_400))
        #expect(
            problem(["count": 1, "retry": ["attempts": 1, "backoff": "soon"]])
                == #"$.retry.backoff: "soon" is not a duration; write e.g. "15m", "24h" or "1h30m""#)
    }

    @Test func templateDictionariesCompileEachTemplate() throws {
        let options = try decode(["count": 1, "headers": ["Authorization": "Bearer {{ token }}", "Accept": "application/json"]])
        let headers = try #require(options.headers)
        #expect(headers.keys.sorted() == ["Accept", "Authorization"])
        #expect(try headers["Authorization"]?.renderString(TemplateScope(globals: ["token": "abc"])) == "Bearer abc")
        #expect(headers["Accept"]?.isConstant == true)
    }

    @Test func badTemplateInADictionaryNamesItsPathAndColumn() {
        do {
            _ = try decode(["count": 1, "headers": ["Authorization": "Bearer {{ token | upcse }}"]])
            Issue.record("a bad template was accepted")
        } catch {
            #expect(error.description == "$.headers.Authorization: unknown filter 'upcse' at column 19; did you mean 'upcase'?")
            #expect(error.expressionColumn == 19)
        }
    }

    @Test func customFiltersComeFromUserInfo() throws {
        let filters = FilterRegistry.standard.adding("shout", arguments: 0...0) { value, _, _ in
            .string((value.string ?? "") + "!")
        }
        let decoder = OptionsDecoder(userInfo: [FilterRegistry.userInfoKey: filters])
        let options = try decoder.decode(Options.self, from: ["count": 1, "headers": ["X": "{{ 'hi' | shout }}"]])
        #expect(try options.headers?["X"]?.renderString(TemplateScope()) == "hi!")
        #expect(throws: OptionsError.self) {
            try OptionsDecoder().decode(Options.self, from: ["count": 1, "headers": ["X": "{{ 'hi' | shout }}"]])
        }
    }

    // MARK: - Reading on past problems

    @Test func readingOnReportsEveryUnknownKeyWithItsPath() {
        var problems: [OptionsError] = []
        let options = OptionsDecoder().decode(
            Options.self, from: ["count": 1, "zzz": 1, "retry": ["attempts": 3, "backof": "1m"]], problems: &problems
        )
        #expect(options?.count == 1)
        #expect(
            problems.map(\.description) == [
                "$.zzz: unknown key 'zzz'; known keys: 'count', 'headers', 'link', 'offset', 'ratio', 'raw', 'retry', 'since', 'small', 'tags'",
                "$.retry.backof: unknown key 'backof'; did you mean 'backoff'?",
            ])
    }

    @Test func anObjectReadOnlyInPartIsNotCheckedForUnknownKeys() {
        // The synthesized Decodable stops at `count`, before asking for `offset`: that is not unknown.
        var problems: [OptionsError] = []
        let options = OptionsDecoder().decode(Options.self, from: ["count": "four", "offset": 1], problems: &problems)
        #expect(options == nil)
        #expect(problems.map(\.description) == ["$.count: expected a whole number, found string"])
    }

    @Test func hintKeysAreSuggestedButNotListed() {
        var decoder = OptionsDecoder()
        decoder.hintKeys = ["when"]
        #expect(
            throws: OptionsError(
                path: ValuePath.root.appending("wehn"), message: "unknown key 'wehn'; did you mean 'when'?", pointsAtKey: true)
        ) {
            try decoder.decode(Options.self, from: ["count": 1, "wehn": 1])
        }
        #expect(
            throws: OptionsError(
                path: ValuePath.root.appending("zzz"),
                message:
                    "unknown key 'zzz'; known keys: 'count', 'headers', 'link', 'offset', 'ratio', 'raw', 'retry', 'since', 'small', 'tags'",
                pointsAtKey: true
            )
        ) {
            try decoder.decode(Options.self, from: ["count": 1, "zzz": 1])
        }
    }

    @Test func decodingKeepsNothingOfTheValueItRead() throws {
        // The decoder's bookkeeping must go with the decode: an array it read, appended to afterwards,
        // grows in place only when nothing else still holds its buffer.
        var tags: [WidgetValue] = ["a", "b"]
        tags.reserveCapacity(64)
        let before = tags.withUnsafeBufferPointer { $0.baseAddress }
        var problems: [OptionsError] = []
        for _ in 0..<3 {
            _ = try OptionsDecoder().decode(Options.self, from: ["count": 1, "tags": .array(tags), "retry": ["attempts": 1]])
            _ = OptionsDecoder().decode(Options.self, from: ["count": 1, "tags": .array(tags), "zzz": 1], problems: &problems)
        }
        tags.append("c")
        #expect(tags.withUnsafeBufferPointer { $0.baseAddress } == before)
    }
}
