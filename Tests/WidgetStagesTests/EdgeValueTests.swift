import Foundation
import Testing
import WidgetJSON
import WidgetLiquid

@testable import WidgetCore
@testable import WidgetStages

/// Extreme values from outside (±Int64 limits, 1e±308, huge and tiny exponents, NaN-like text) through
/// every header parser, date reader, number reader, timeline and filter: never a trap, always a sensible
/// result or a clear error.
struct EdgeValueTests {
    /// The values every reader below is fed.
    static let extremes = [
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
        "18446744073709551616", "99999999999999999999999999999999999999999", "1e308", "-1e308", "1e-308",
        "1.7976931348623157e308", "1e309", "4.9e-324", "1e999999999", "1e-999999999", "-1e999999999",
        "1e99999999999999999999", "1e19", "-1e19", "NaN", "nan", "inf", "-inf", "Infinity", "-0", "0", "+5",
        " 12 ", "1.5", "0x10", "", "-", "=", "\u{0}", String(repeating: "9", count: 400),
    ]

    private func response(_ headers: [(String, String)], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders(headers), body: Data(), finalURL: URL(string: "http://127.0.0.1/")!)
    }

    // MARK: - Headers

    @Test func maxAgeAtTheInt64LimitsNeverTraps() {
        // The response that stopped the daemon with an arithmetic overflow.
        let lowest = response([("Cache-Control", "max-age=-9223372036854775808"), ("Age", "1")])
        #expect(HTTPFetcher.freshness(lowest) == nil)
        let highest = response([("Cache-Control", "max-age=9223372036854775807"), ("Age", "-9223372036854775808")])
        #expect(HTTPFetcher.freshness(highest) == HTTPHeaders.greatestDeltaSeconds)
        let older = response([("Cache-Control", "max-age=60"), ("Age", "99999999999999999999999")])
        #expect(HTTPFetcher.freshness(older) == nil)
        #expect(HTTPFetcher.freshness(response([("Cache-Control", "max-age=60"), ("Age", "10")])) == 50)
        #expect(HTTPFetcher.freshness(response([("Cache-Control", "=,max-age,=5,")])) == nil)
    }

    @Test func everyHeaderReaderTakesEveryExtremeValue() {
        let now = Date(timeIntervalSince1970: 1_779_000_000)
        for value in Self.extremes {
            for directive in ["max-age=\(value)", "max-age=\"\(value)\"", "\(value)", "max-age=60, \(value)"] {
                let freshness = HTTPFetcher.freshness(response([("Cache-Control", directive), ("Age", value)]))
                #expect(freshness.map { (1...HTTPHeaders.greatestDeltaSeconds).contains($0) } ?? true, "\(directive)")
            }
            if let delay = HTTPClient.retryAfter(value, now: now) {
                #expect((0...HTTPClient.maximumRetryAfter).contains(delay), "Retry-After: \(value)")
            }
            if let seconds = HTTPHeaders.deltaSeconds(value) {
                #expect((0...HTTPHeaders.greatestDeltaSeconds).contains(seconds), "\(value)")
            }
            if let length = HTTPHeaders.contentLength(value) { #expect(length >= 0, "Content-Length: \(value)") }
            for name in ["Expires", "Date", "Last-Modified", "Retry-After"] {
                let headers = response([(name, value), ("Retry-After", value)], status: 503)
                _ = headers.retryAfter(now: now)
                _ = InternetDate.parse(headers.headers[name] ?? "").map(InternetDate.iso8601)
            }
        }
        #expect(HTTPHeaders.deltaSeconds("-9223372036854775808") == nil)
        #expect(HTTPHeaders.deltaSeconds("99999999999999999999") == HTTPHeaders.greatestDeltaSeconds)
        #expect(HTTPHeaders.deltaSeconds(" 120 ") == 120)
        #expect(HTTPHeaders.contentLength("-5") == nil)
        #expect(HTTPHeaders.contentLength("99999999999999999999") == Int64.max)
        #expect(HTTPClient.retryAfter("99999999999999999999", now: now) == HTTPClient.maximumRetryAfter)
        #expect(HTTPClient.retryAfter("-9223372036854775808", now: now) == nil)
        #expect(HTTPClient.retryAfter("1e9", now: now) == nil)
    }

    @Test func fuzzSeedsForHeadersAndTimelineDatesNeverTrap() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/fuzz-corpus")
        var seen: Set<UInt8> = []
        let each = try StageRegistry.builtIn.makeStage(.timeline, typeName: "each", options: ["date": "$.t"], decoder: OptionsDecoder())
        let context = StageContext(widgetID: "seed", now: Date(timeIntervalSince1970: 1_779_000_000), timeZone: .gmt)
        for file in try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil) {
            let bytes = [UInt8](try Data(contentsOf: file))
            guard let selector = bytes.first else { continue }
            let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
            switch selector {
            case 6:
                let fields = text.split(separator: "\n").map { line in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    return (String(parts[0]), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
                }
                _ = HTTPFetcher.freshness(response(fields))
                _ = response(fields, status: 503).retryAfter(now: context.now)
            case 7:
                let value = (try? JSONReader.read(text)) ?? .string(text)
                if let entries = try? (each as? EachTimeline)?.entries(for: [["t": value]], context: context) {
                    for entry in entries { _ = InternetDate.timestamp(entry.date) }
                }
            default:
                continue
            }
            seen.insert(selector)
        }
        #expect(seen == [6, 7])
    }

    // MARK: - Dates

    @Test func farDatesAreWrittenAtTheEdgesOfTheYearsOneTo9999() {
        // The snapshot's writer once trapped on a Unix time of 1e19, and on every restart after.
        #expect(InternetDate.timestamp(Date(timeIntervalSince1970: 1e19)) == "9999-12-31T23:59:59Z")
        #expect(
            InternetDate.timestamp(Date(timeIntervalSince1970: -1e19))
                == InternetDate.timestamp(Date(timeIntervalSince1970: -62_135_596_800)))
        #expect(InternetDate.iso8601(Date(timeIntervalSince1970: 1e19)) == "9999-12-31T23:59:59Z")
        #expect(
            InternetDate.iso8601(Date(timeIntervalSince1970: -1e300)) == InternetDate.iso8601(Date(timeIntervalSince1970: -62_135_596_800)))
        for seconds in [Double.nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 9.3e18, -9.3e18] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(InternetDate.timestamp(date).hasSuffix("Z"))
            #expect(InternetDate.timestamp(date, milliseconds: true).hasSuffix("Z"))
            #expect(InternetDate.iso8601(date).hasSuffix("Z"))
        }
        #expect(InternetDate.timestamp(Date(timeIntervalSince1970: 1_779_000_000)) == "2026-05-17T06:40:00Z")
    }

    @Test func everyDateReaderTakesEveryExtremeValue() throws {
        let context = FilterContext(filterName: "date", now: Date(timeIntervalSince1970: 1_779_000_000), timeZone: .gmt, column: 1)
        for value in Self.extremes + ["9999-12-31T23:59:59Z", "0000-01-01T00:00:00Z", "+10000-01-01", "999999999-01-01"] {
            if let date = InternetDate.parse(value) { #expect(InternetDate.isWritable(date.timeIntervalSince1970)) }
            _ = InternetDate.parseZoned(value)
            _ = EachTimeline.date(from: .string(value))
            if let number = WidgetNumber(value.trimmingCharacters(in: .whitespaces)) {
                _ = EachTimeline.date(from: .number(number))
                _ = LiquidDate.date(from: .number(number), context: context)
            }
            if let date = LiquidDate.date(from: .string(value), context: context) {
                _ = LiquidDate.format(date, "%Y-%m-%d %H:%M:%S %s %j %U", timeZone: .gmt)
            }
            for template in ["{{ v | date: '%Y %s' }}", "{{ v | date: '%F' }}"] {
                _ = try? Template(template).renderString(TemplateScope(globals: ["v": .string(value)]))
                if let number = WidgetNumber(value) {
                    _ = try? Template(template).renderString(TemplateScope(globals: ["v": .number(number)]))
                }
            }
        }
    }

    @Test func aTimelineDateBeyondTheYear9999IsAnErrorThatNamesIt() throws {
        let stage = try StageRegistry.builtIn.makeStage(.timeline, typeName: "each", options: ["date": "$.t"], decoder: OptionsDecoder())
        let each = try #require(stage as? EachTimeline)
        let context = StageContext(widgetID: "far", now: Date(timeIntervalSince1970: 1_779_000_000), timeZone: .gmt)
        for value in ["1e19", "-1e19", "1e308", "1e999999999", "-9223372036854775808", "253402300800"] {
            let item: WidgetValue = ["t": .number(WidgetNumber(value)!)]
            let error = #expect(throws: StageError.self) { try each.entries(for: [item], context: context) }
            #expect(
                error?.message.contains("the date \(value) at $.t is outside the years 1 to 9999") == true, "\(String(describing: error))")
        }
        // The last second of 9999 and tiny exponents are dates like any other.
        let edge = try each.entries(for: [["t": 253_402_300_799], ["t": .number(WidgetNumber("1e-999999999")!)]], context: context)
        #expect(edge.map { InternetDate.timestamp($0.date) } == ["1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z"])
    }

    @Test func anIntervalTimelinePastTheYear9999IsAnError() throws {
        let stage = try StageRegistry.builtIn.makeStage(
            .timeline, typeName: "each", options: ["every": "999999999d"], decoder: OptionsDecoder())
        let each = try #require(stage as? EachTimeline)
        let context = StageContext(widgetID: "far", now: Date(timeIntervalSince1970: 1_779_000_000), timeZone: .gmt)
        let error = #expect(throws: StageError.self) { try each.entries(for: [1, 2, 3], context: context) }
        #expect(error?.message.contains("would be dated after the year 9999") == true)
    }

    // MARK: - Numbers and filters

    private func render(_ source: String, _ value: WidgetValue = .null) -> Result<String, ExpressionError> {
        do {
            return .success(try Template(source).renderString(TemplateScope(globals: ["v": value])))
        } catch {
            return .failure(error)
        }
    }

    /// `{{ a | filter: b }}` (or `{{ a | filter }}` without `b`) with `a` and `b` as JSON numbers (Liquid
    /// has no exponent literals) or, quoted, as strings.
    private func calc(_ a: String, _ filter: String, _ b: String? = nil) -> Result<String, ExpressionError> {
        func value(_ text: String) -> WidgetValue {
            text.hasPrefix("'") ? .string(String(text.dropFirst().dropLast())) : .number(WidgetNumber(text)!)
        }
        var globals: WidgetObject = ["a": value(a)]
        if let b { globals["b"] = value(b) }
        do {
            let source = "{{ a | \(filter)\(b == nil ? "" : ": b") }}"
            return .success(try Template(source).renderString(TemplateScope(globals: globals)))
        } catch {
            return .failure(error)
        }
    }

    @Test func everyNumberFilterTakesEveryExtremeValue() {
        let filters = [
            "plus: v", "minus: v", "times: v", "divided_by: v", "modulo: v", "round", "round: 2", "round: v", "ceil",
            "floor", "abs", "at_least: v", "at_most: v", "plus: 1", "times: 1e300", "divided_by: 1e-300", "modulo: 7",
            "divided_by: 3", "divided_by: 3.0",
        ]
        var results = 0
        var errors = 0
        for text in Self.extremes {
            var values: [WidgetValue] = [.string(text)]
            if let number = WidgetNumber(text) { values.append(.number(number)) }
            for value in values {
                for filter in filters {
                    for source in ["{{ v | \(filter) }}", "{{ \(text.isEmpty ? "0" : "'\(text)'") | \(filter) }}", "{{ v | sum }}"] {
                        switch render(source, value) {
                        case .success(let output):
                            results += 1
                            #expect(!output.contains("inf") && !output.contains("nan"), "\(source) with \(text): \(output)")
                        case .failure(let error):
                            errors += 1
                            #expect(!error.reason.isEmpty)
                        }
                    }
                }
            }
        }
        #expect(results > 0)
        print("number filters on extreme values: \(results) results, \(errors) errors")
    }

    @Test func overflowIsExactOrAnErrorNeverZero() throws {
        #expect(try calc("1e300", "times", "1e300").get() == "1e600")
        #expect(try calc("1e308", "plus", "1e308").get() == "2e308")
        #expect(try calc("-1e300", "times", "1e300").get() == "-1e600")
        #expect(try calc("1e-300", "times", "1e-300").get() == "1e-600")
        #expect(try calc("1e300", "divided_by", "1e-300").get() == "1e600")
        #expect(try calc("1e-300", "divided_by", "1e300").get() == "1e-600")
        // A quotient has 38 significant digits, whatever its exponent.
        #expect(try calc("1e999999999", "divided_by", "7").get() == "1.4285714285714285714285714285714285714e999999998")
        // A 39-digit product keeps every digit.
        #expect(try calc("12345678901234567890", "times", "98765432109876543210").get() == "1219326311370217952237463801111263526900")
        #expect(try calc("99999999999999999999", "times", "99999999999999999999").get() == "9999999999999999999800000000000000000001")
        for (a, filter, b) in [
            ("1e999999999", "times", "10"), ("1e999999999", "plus", "1"), ("1e-999999999", "times", "1e-1"),
            ("1e999999999", "minus", "1"), ("1e999999999", "divided_by", "1e-1"), ("1e999999999", "modulo", "7"),
            ("'1e999999999'", "plus", "1"),
        ] {
            let source = "\(a) | \(filter): \(b)"
            guard case .failure(let error) = calc(a, filter, b) else {
                Issue.record("\(source) should fail, gave \(String(describing: try? calc(a, filter, b).get()))")
                continue
            }
            #expect(error.reason.contains("has no exact value"), "\(source): \(error.reason)")
        }
    }

    @Test func numericStringsConvertWithTheirExponent() throws {
        #expect(try calc("'2e3'", "plus", "1").get() == "2001")
        #expect(try calc("'2E3'", "times", "2").get() == "4000")
        #expect(try calc("'2.5e3'", "plus", "1").get() == "2501.0")
        #expect(try calc("'1e-1'", "plus", "1").get() == "1.1")
        #expect(try calc("'NaN'", "plus", "1").get() == "1")
        #expect(try calc("'inf'", "plus", "1").get() == "1")
        #expect(try calc("'-0'", "plus", "1").get() == "1")
    }

    @Test func integerDivisionAndRemaindersStayExactPastInt64() throws {
        #expect(
            try calc("100000000000000000000000000000000000000000000000001", "divided_by", "3").get()
                == "33333333333333333333333333333333333333333333333333")
        #expect(
            try calc("-100000000000000000000000000000000000000000000000001", "divided_by", "3").get()
                == "-33333333333333333333333333333333333333333333333334")
        #expect(try calc("100000000000000000000000000000000000000000000000001", "modulo", "7").get() == "3")
        #expect(try calc("-9223372036854775808", "divided_by", "-1").get() == "9223372036854775808")
        #expect(try calc("-9223372036854775808", "modulo", "-1").get() == "0")
        #expect(try calc("9223372036854775807", "plus", "1").get() == "9223372036854775808")
        #expect(try calc("-9223372036854775808", "minus", "1").get() == "-9223372036854775809")
        #expect(try calc("-9223372036854775808", "abs").get() == "9223372036854775808")
    }

    @Test func roundingPastDecimalIsExact() throws {
        #expect(try calc("1.5e-400", "ceil").get() == "1")
        #expect(try calc("-1.5e-400", "floor").get() == "-1")
        #expect(try calc("1.5e-400", "round").get() == "0")
        #expect(try calc("1e400", "round").get() == "1e400")
        #expect(try calc("1234567890123456789012345678901234567890.5", "round").get() == "1234567890123456789012345678901234567891")
        #expect(try calc("1234567890123456789012345678901234567890.5", "floor").get() == "1234567890123456789012345678901234567890")
    }
}
