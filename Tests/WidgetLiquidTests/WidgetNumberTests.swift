import Foundation
import Testing
import WidgetLiquid
import WidgetTestSupport

@testable import WidgetJSON

struct WidgetNumberTests {
    @Test func decimalAdditionIsExact() {
        #expect((WidgetNumber("0.1")! + WidgetNumber("0.2")!).text == "0.3")
    }

    @Test func spellingsOfTheSameValueAreEqual() {
        #expect(WidgetNumber("1")! == WidgetNumber("1.0")!)
        #expect(WidgetNumber("10e-1")! == WidgetNumber("1")!)
        #expect(WidgetNumber("-0")! == WidgetNumber("0")!)
        #expect(WidgetNumber("1.5")!.hashValue == WidgetNumber("15e-1")!.hashValue)
    }

    @Test func ordersExactlyBeyondDoublePrecision() {
        #expect(WidgetNumber("12345678901234567890")! < WidgetNumber("12345678901234567891")!)
        #expect(WidgetNumber("-2")! < WidgetNumber("-1.5")!)
        #expect(WidgetNumber("-1")! < WidgetNumber("0")!)
        #expect(!(WidgetNumber("3")! < WidgetNumber("3.00")!))
        #expect(WidgetNumber("0.001")! < WidgetNumber("0.01")!)
    }

    @Test func twentyDigitIntegersSurvive() throws {
        let value = try JSONReader.read("[12345678901234567890123]")
        #expect(JSONWriter.string(value) == "[12345678901234567890123]")
    }

    @Test func rejectsNonJSONSpellings() {
        #expect(WidgetNumber("01") == nil)
        #expect(WidgetNumber("1.") == nil)
        #expect(WidgetNumber("+1") == nil)
        #expect(WidgetNumber(".5") == nil)
        #expect(WidgetNumber("1e5") != nil)
    }

    @Test func convertsToIntWhenWhole() {
        #expect(WidgetNumber("1e3")!.int == 1000)
        #expect(WidgetNumber("1.5")!.int == nil)
        #expect(WidgetNumber("4.0")!.int == 4)
    }

    @Test func arithmeticPastDecimalIsExact() {
        let big = WidgetNumber("1e300")!
        #expect(big.multiplied(by: big)?.text == "1e600")
        #expect((big * big).text == "1e600")
        #expect(WidgetNumber("1e30")!.adding(1)?.text == "1000000000000000000000000000001")
        #expect(
            WidgetNumber("123456789012345678901234567890")!.multiplied(by: WidgetNumber("1234567890")!)?.text
                == "152415787517146788751714678875019052100")
        #expect(WidgetNumber("0.1")!.adding(WidgetNumber("1e-40")!)?.text == "0.1000000000000000000000000000000000000001")
        #expect(WidgetNumber("1e-300")!.divided(by: WidgetNumber("3")!)?.text == "3.3333333333333333333333333333333333333e-301")
        #expect(WidgetNumber("-7")!.flooredQuotient(by: WidgetNumber("2")!)?.text == "-4")
    }

    @Test func arithmeticPastTheLimitsIsNilNotZeroOrInfinity() {
        let huge = WidgetNumber("1e999999999")!
        let tiny = WidgetNumber("1e-999999999")!
        #expect(huge.adding(1) == nil)
        #expect(huge.multiplied(by: 10) == nil)
        #expect(tiny.multiplied(by: WidgetNumber("0.1")!) == nil)
        #expect(huge.divided(by: WidgetNumber("0.1")!) == nil)
        #expect(huge.flooredQuotient(by: 3) == nil)
        #expect(huge.divided(by: 0) == nil)
        #expect(huge.multiplied(by: 1) == huge)
        // The operators never give 0 for an overflow: the limit, with the sign.
        #expect((huge * 10).text == "1e999999999")
        #expect((WidgetNumber("-1e999999999")! * 10).text == "-1e999999999")
    }
}

/// Small decimals are computed in machine integers; each result must be the one `Decimal` gives, spelt
/// the same way, where `Decimal` is exact (38 digits); past it, the result must be exact. Thousands of seeded random operands (integers, prices, tiny and 18-digit numbers,
/// negatives, trailing zeros) are checked against `Decimal` itself.
struct SmallDecimalAgreementTests {
    private static func operand(_ random: inout SeededGenerator) -> String {
        let digits = Int.random(in: 1...19, using: &random)
        var text = String((0..<digits).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
        while text.count > 1, text.first == "0" { text.removeFirst() }
        let scale = Int.random(in: 0...min(20, text.count + 2), using: &random)
        if scale > 0 {
            if text.count <= scale {
                text = "0." + String(repeating: "0", count: scale - text.count) + text
            } else {
                text.insert(".", at: text.index(text.endIndex, offsetBy: -scale))
            }
        }
        if Bool.random(using: &random), text != "0" { text = "-" + text }
        return text
    }

    private static func decimal(_ text: String) -> Decimal {
        Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))!
    }

    @Test func sumsDifferencesAndProductsAreDecimals() {
        var random = SeededGenerator(seed: 20_261_125)
        for _ in 0..<20_000 {
            let a = Self.operand(&random)
            let b = Self.operand(&random)
            let x = WidgetNumber(a)!
            let y = WidgetNumber(b)!
            // Where the exact result needs more than Decimal's 38 digits, Decimal rounds and we do not: the
            // result must then undo exactly instead.
            func agrees(_ ours: WidgetNumber, _ decimal: Decimal, undo: WidgetNumber, _ what: String) {
                if ours.canonical.digits.count > 38 {
                    #expect(undo == x, "\(what) = \(ours) is not exact")
                } else {
                    #expect(ours.text == WidgetNumber(decimal)!.text, "\(what)")
                }
            }
            agrees(x + y, Self.decimal(a) + Self.decimal(b), undo: (x + y) - y, "\(a) + \(b)")
            agrees(x - y, Self.decimal(a) - Self.decimal(b), undo: (x - y) + y, "\(a) - \(b)")
            let product = x * y
            agrees(product, Self.decimal(a) * Self.decimal(b), undo: y == 0 ? x : (product / y) ?? 0, "\(a) * \(b)")
        }
    }

    @Test func roundingIsDecimalsPlainRounding() throws {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<10_000 {
            let a = Self.operand(&random)
            let places = Int.random(in: 0...6, using: &random)
            var value = Self.decimal(a)
            var expected = Decimal()
            NSDecimalRound(&expected, &value, places, .plain)
            let rendered = try Template("{{ x | round: \(places) }}").render(TemplateScope(globals: ["x": .number(WidgetNumber(a)!)]))
            // The filter keeps a float a float (`2.0`); the digits are Decimal's.
            var text = rendered.number?.text ?? "?"
            if text.hasSuffix(".0"), !WidgetNumber(expected)!.text.hasSuffix(".0") { text.removeLast(2) }
            #expect(text == WidgetNumber(expected)!.text, "\(a) | round: \(places)")
        }
    }
}
