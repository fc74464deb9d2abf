import Foundation
import WidgetFuzzSupport
import WidgetJSON
import WidgetLiquid

/// The libFuzzer entry point of the Liquid engine: the first byte chooses what to exercise, the rest is
/// the input text.
///
/// | first byte | input fed to |
/// |---|---|
/// | 3 | `Template(_:)` (output and `{% %}` tags), then `render` with the fixed document's members as variables and two partials, one of which renders itself, plain and HTML-escaped |
///
/// Any other first byte is ignored: JSON and JSONPath are `widgetd-fuzz-json`'s (0 to 2), feeds, dates and
/// headers `widgetd-fuzz`'s (4 to 7); all the seeds are in `Tests/Fixtures/fuzz-corpus`. Errors thrown
/// for bad input are expected; only crashes, hangs and sanitizer reports are findings.
///
/// Build and run from the package root with `.ci/fuzz SECONDS liquid` (see `widgetd-fuzz-json`'s entry for
/// what it does). A plain `swift build` makes a replayer instead: `widgetd-fuzz-liquid FILE…`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let payload = UnsafeBufferPointer(start: data + 1, count: size - 1)
    switch data[0] {
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
    default:
        break
    }
    return 0
}

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

#if !FUZZING
/// Replays the files named on the command line (see `CorpusReplayer`).
@main
struct LiquidFuzzReplayer {
    static func main() {
        CorpusReplayer.run(CommandLine.arguments, program: "widgetd-fuzz-liquid", entry: fuzz)
    }
}
#endif
