import Foundation
import WidgetCore
import WidgetJSON
import WidgetLiquid

#if canImport(WidgetStages)
import WidgetStages
#endif

/// The document JSONPath inputs are evaluated against: every kind of value, nesting, odd keys.
private let fuzzDocument: WidgetValue = {
    let text = #"""
        {"store": {"book": [
            {"category": "reference", "author": "Nigel Rees", "title": "Sayings", "price": 8.95, "tags": ["a", "b"]},
            {"category": "fiction", "author": "Evelyn Waugh", "title": "Sword", "price": 12.99, "isbn": "0-553"},
            {"category": "fiction", "price": 22, "nested": [[1, [2, [3, {"deep": true}]]]]}
          ],
          "bicycle": {"color": "red", "price": 399, "é": null, "": 0, "a'b": -1e-3}},
         "numbers": [0, -1, 1.5, 1e300, 12345678901234567890, "10"],
         "empty": {}, "list": []}
        """#
    do {
        return try JSONReader.read(text)
    } catch {
        fatalError("The fuzz document does not parse: \(error)")
    }
}()

/// The libFuzzer entry point: the first byte chooses what to exercise, the rest is the input text.
///
/// | first byte | input fed to |
/// |---|---|
/// | 0 | `JSONReader.read` (the raw bytes) |
/// | 1 | `JSONPath(_:)`, then `select` and `locate` on a fixed document |
/// | 2 | `JSONPathFilter(_:)`, then `matches` on each value of the fixed document |
/// | 3 | `Template(_:)` (output and `{% %}` tags), then `render` with the fixed document's members as variables and two partials, one of which renders itself, plain and HTML-escaped |
/// | 4 | `FeedParser().read` (the raw bytes: RSS, Atom or JSON Feed), then the value of the result |
/// | 5 | `InternetDate.parse` (the bytes as text), then `InternetDate.iso8601` of the date found |
/// | 6 | HTTP response headers (the bytes as text, one `Name: value` a line): freshness (`Cache-Control: max-age` and `Age`), `Retry-After`, `Content-Length`, the date headers, content type and charset |
/// | 7 | a timeline date (the bytes as JSON if they are a JSON value, a number say, else as text) through the `each` timeline's `date` rule, the snapshot's date writers and the `date` filter |
///
/// Cases 4 to 7 are compiled in fuzzing builds where this target depends on `WidgetStages`; their seeds
/// are in `Tests/Fixtures/fuzz-corpus` with the others. Any other first byte is ignored. Errors thrown for bad input are expected; only crashes, hangs and
/// sanitizer reports are findings.
///
/// Build and run from the package root with `.ci/fuzz SECONDS`: it builds this target with libFuzzer and
/// AddressSanitizer (`swift build --scratch-path .build-fuzz -c release --product widgetd-fuzz
/// --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING`), copies the seeds of
/// `Tests/Fixtures/fuzz-corpus` (each starting with its selector byte) into a temporary folder and runs
/// the fuzzer on it with a fixed seed. A plain `swift build` makes a replayer instead: `widgetd-fuzz FILE…`
/// runs each file through the same entry point.
///
/// The run suppresses two leaks inside Foundation on Linux, neither ours: `NSRegularExpression` copies a
/// pattern longer than 256 UTF-16 units to the heap and never frees it, and `XMLParser` leaks error strings.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let payload = UnsafeBufferPointer(start: data + 1, count: size - 1)
    switch data[0] {
    case 0:
        _ = try? JSONReader.read(Data(payload))
    case 1:
        let text = String(decoding: payload, as: UTF8.self)
        if let path = try? JSONPath(text) {
            _ = path.select(fuzzDocument)
            for (location, _) in path.locate(fuzzDocument) { _ = location.normalizedPath }
            _ = path.isSingular
        }
    case 2:
        let text = String(decoding: payload, as: UTF8.self)
        if let filter = try? JSONPathFilter(text) {
            var values: [WidgetValue] = []
            collect(fuzzDocument, into: &values)
            for value in values { _ = filter.matches(value, root: fuzzDocument) }
        }
    case 3:
        let text = String(decoding: payload, as: UTF8.self)
        if let template = try? Template(text) {
            var scope = TemplateScope(
                globals: fuzzDocument.object ?? [:], item: fuzzDocument["store"], now: Date(timeIntervalSince1970: 1_800_000_000))
            scope.partials = FuzzPartials()
            scope.steps = TemplateSteps(limit: 1_000_000, for: "one fuzz input")
            _ = try? template.render(scope)
            scope.escapesHTML = true
            _ = try? template.renderString(scope)
            _ = template.variables
            _ = template.freeVariables
            _ = template.partialNames
            _ = template.secretUses
        }
    #if canImport(WidgetStages)
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
    #endif
    default:
        break
    }
    return 0
}

#if canImport(WidgetStages)
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

#endif

/// Two partials for templates that `render` or `include`: `card`, and `self`, which renders itself until
/// the depth limit stops it.
private struct FuzzPartials: TemplatePartials {
    func template(named name: String) throws(ExpressionError) -> Template {
        switch name {
        case "card": try Template("{% for x in (1..3) %}<b>{{ x | plus: n }}</b>{% cycle 'a', 'b' %}{% endfor %}")
        case "self": try Template("{% increment depth %}{% render 'self' %}")
        default: throw ExpressionError("no partial named '\(name)'")
        }
    }
}

/// Every value of `value`, itself first.
private func collect(_ value: WidgetValue, into values: inout [WidgetValue]) {
    values.append(value)
    switch value {
    case .array(let elements):
        for element in elements { collect(element, into: &values) }
    case .object(let object):
        for (_, member) in object { collect(member, into: &values) }
    default:
        break
    }
}
