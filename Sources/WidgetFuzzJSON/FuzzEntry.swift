import Foundation
import WidgetFuzzSupport
import WidgetJSON

/// The libFuzzer entry point of the JSON engine: the first byte chooses what to exercise, the rest is
/// the input text.
///
/// | first byte | input fed to |
/// |---|---|
/// | 0 | `JSONReader.read` (the raw bytes) |
/// | 1 | `JSONPath(_:)`, then `select` and `locate` on a fixed document |
/// | 2 | `JSONPathFilter(_:)`, then `matches` on each value of the fixed document |
///
/// Any other first byte is ignored: templates are `widgetd-fuzz-liquid`'s (3), feeds, dates and headers
/// `widgetd-fuzz`'s (4 to 7); all the seeds are in `Tests/Fixtures/fuzz-corpus`. Errors thrown for bad
/// input are expected; only crashes, hangs and sanitizer reports are findings.
///
/// Build and run from the package root with `.ci/fuzz SECONDS json`: it builds this target with libFuzzer
/// and AddressSanitizer (`swift build --scratch-path .build-fuzz -c release --product widgetd-fuzz-json
/// --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING`), copies the seeds of
/// `Tests/Fixtures/fuzz-corpus` that start with its selector bytes into a temporary folder and runs the
/// fuzzer on it with a fixed seed. A plain `swift build` makes a replayer instead:
/// `widgetd-fuzz-json FILE…` runs each file through the same entry point.
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
    default:
        break
    }
    return 0
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

#if !FUZZING
/// Replays the files named on the command line (see `CorpusReplayer`).
@main
struct JSONFuzzReplayer {
    static func main() {
        CorpusReplayer.run(CommandLine.arguments, program: "widgetd-fuzz-json", entry: fuzz)
    }
}
#endif
