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
