import Foundation
import WidgetCore
import WidgetFuzzSupport
import WidgetJSON
import WidgetLiquid
import WidgetStages

/// The libFuzzer entry point of the domain's own readers: the first byte chooses what to exercise, the
/// rest is the input text.
///
/// | first byte | input fed to |
/// |---|---|
/// | 4 | `FeedParser().read` (the raw bytes: RSS, Atom or JSON Feed), then the value of the result |
/// | 5 | `InternetDate.parse` (the bytes as text), then `InternetDate.iso8601` of the date found |
/// | 6 | HTTP response headers (the bytes as text, one `Name: value` a line): freshness (`Cache-Control: max-age` and `Age`), `Retry-After`, `Content-Length`, the date headers, content type and charset |
/// | 7 | a timeline date (the bytes as JSON if they are a JSON value, a number say, else as text) through the `each` timeline's `date` rule, the snapshot's date writers and the `date` filter |
///
/// Any other first byte is ignored: JSON and JSONPath are `widgetd-fuzz-json`'s (0 to 2), templates
/// `widgetd-fuzz-liquid`'s (3); all the seeds are in `Tests/Fixtures/fuzz-corpus`. Errors thrown for bad
/// input are expected; only crashes, hangs and sanitizer reports are findings.
///
/// Build and run from the package root with `.ci/fuzz SECONDS domain` (see `widgetd-fuzz-json`'s entry for
/// what it does). A plain `swift build` makes a replayer instead: `widgetd-fuzz FILE…`.
///
/// The run suppresses two leaks inside Foundation on Linux, neither ours: `NSRegularExpression` copies a
/// pattern longer than 256 UTF-16 units to the heap and never frees it, and `XMLParser` leaks error strings.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let payload = UnsafeBufferPointer(start: data + 1, count: size - 1)
    switch data[0] {
    case 4:
        if let document = try? FeedParser().read(Payload(data: Data(payload), origin: "fuzz")) {
            _ = document.value
        }
    case 5:
        let text = String(decoding: payload, as: UTF8.self)
        if let date = InternetDate.parse(text) { _ = InternetDate.iso8601(date) }
    case 6:
        fuzzHeaders(String(decoding: payload, as: UTF8.self))
    case 7:
        fuzzTimelineDate(Data(payload))
    default:
        break
    }
    return 0
}

/// The instant header and timeline cases count from.
private let fuzzNow = Date(timeIntervalSince1970: 1_800_000_000)

/// Case 6: `text` as the header lines of a response, through every reader of a header's value.
private func fuzzHeaders(_ text: String) {
    var headers = HTTPHeaders()
    for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
        let parts = line.split(separator: ":", maxSplits: 1)
        headers.add(name: String(parts.first ?? ""), value: parts.count > 1 ? String(parts[1]).trimmingCharacters(in: .whitespaces) : "")
    }
    for status in [200, 503] {
        let response = HTTPResponse(status: status, headers: headers, body: Data(), finalURL: URL(string: "http://127.0.0.1/")!)
        if let seconds = HTTPFetcher.freshness(response) {
            precondition(seconds > 0 && seconds <= HTTPHeaders.greatestDeltaSeconds, "freshness out of range: \(seconds)")
            _ = fuzzNow.addingTimeInterval(min(Double(seconds), 86_400))
        }
        if let delay = response.retryAfter(now: fuzzNow) {
            precondition(delay >= 0 && delay <= HTTPClient.maximumRetryAfter, "Retry-After out of range: \(delay)")
        }
        _ = response.contentType
        _ = response.charset
    }
    for field in headers {
        if let seconds = HTTPHeaders.deltaSeconds(field.value) { precondition(seconds >= 0) }
        if let length = HTTPHeaders.contentLength(field.value) { precondition(length >= 0) }
        if let date = InternetDate.parse(field.value) {
            _ = InternetDate.iso8601(date)
            _ = InternetDate.timestamp(date)
        }
    }
}

/// Case 7: `bytes` as an item's date, through the timeline, the writers of a snapshot's dates and the
/// `date` filter.
private func fuzzTimelineDate(_ bytes: Data) {
    let value = (try? JSONReader.read(bytes)) ?? .string(String(decoding: bytes, as: UTF8.self))
    // Made for each input, not kept in globals: LeakSanitizer cannot follow Swift's tagged pointers there.
    let options: WidgetValue = ["date": "$.t"]
    let timeline =
        (try? StageRegistry.builtIn.makeStage(.timeline, typeName: "each", options: options, decoder: OptionsDecoder()))
        as? EachTimeline
    for zone in [TimeZone.gmt, TimeZone(identifier: "America/New_York") ?? .gmt] {
        let context = StageContext(widgetID: "fuzz", now: fuzzNow, timeZone: zone)
        if let entries = try? timeline?.entries(for: [["t": value]], context: context) {
            for entry in entries {
                _ = InternetDate.timestamp(entry.date)
                _ = InternetDate.timestamp(entry.date, milliseconds: true)
                _ = InternetDate.iso8601(entry.date)
            }
        }
    }
    if case .number(let number) = value {
        let date = Date(timeIntervalSince1970: number.double)
        _ = InternetDate.timestamp(date)
        _ = InternetDate.timestamp(date, milliseconds: true)
        _ = InternetDate.iso8601(date)
    }
    let scope = TemplateScope(globals: ["t": value], now: fuzzNow)
    let template = try? Template("{{ t | date: '%Y-%m-%dT%H:%M:%S.%L%z %s %j %U %a %b' }}{{ t | date: '%F' }}")
    _ = try? template?.renderString(scope)
}

#if !FUZZING
/// Replays the files named on the command line (see `CorpusReplayer`).
@main
struct DomainFuzzReplayer {
    static func main() {
        CorpusReplayer.run(CommandLine.arguments, program: "widgetd-fuzz", entry: fuzz)
    }
}
#endif
