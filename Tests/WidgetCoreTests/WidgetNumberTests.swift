import Foundation
import Testing
import WidgetCore

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
}

/// Small decimals are computed in machine integers; each result must be the one `Decimal` gives, spelt
/// the same way. Thousands of seeded random operands (integers, prices, tiny and 18-digit numbers,
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
            #expect((x + y).text == WidgetNumber(Self.decimal(a) + Self.decimal(b))!.text, "\(a) + \(b)")
            #expect((x - y).text == WidgetNumber(Self.decimal(a) - Self.decimal(b))!.text, "\(a) - \(b)")
            #expect((x * y).text == WidgetNumber(Self.decimal(a) * Self.decimal(b))!.text, "\(a) * \(b)")
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
