import Testing
import WidgetCore

struct WidgetDurationTests {
    @Test func readsEachUnit() {
        #expect(WidgetDuration("90s")?.seconds == 90)
        #expect(WidgetDuration("15m")?.seconds == 900)
        #expect(WidgetDuration("24h")?.seconds == 86_400)
        #expect(WidgetDuration("1d")?.seconds == 86_400)
        #expect(WidgetDuration("0s")?.seconds == 0)
    }

    @Test func readsCombinedUnitsInOrder() {
        #expect(WidgetDuration("1h30m")?.seconds == 5_400)
        #expect(WidgetDuration("1d2h3m4s")?.seconds == 93_784)
        #expect(WidgetDuration("2d12h")?.seconds == 216_000)
    }

    @Test func rejectsWhatIsNotADuration() {
        for text in ["", "15", "m", "15 minutes", "15M", "1.5h", "30m1h", "1h1h", "-5m", " 5m", "5m ", "1w", "5mm", "９m"] {
            #expect(WidgetDuration(text) == nil, "\(text) was accepted")
        }
    }

    @Test func rejectsHugeNumbersInsteadOfOverflowing() {
        #expect(WidgetDuration("9999999999d") == nil)
        #expect(WidgetDuration("999999999d")?.seconds == 86_399_999_913_600)
    }

    @Test func describesItselfInTheShortestSpelling() {
        #expect(WidgetDuration(seconds: 90).description == "1m30s")
        #expect(WidgetDuration(seconds: 5_400).description == "1h30m")
        #expect(WidgetDuration(seconds: 86_400).description == "1d")
        #expect(WidgetDuration(seconds: 93_784).description == "1d2h3m4s")
        #expect(WidgetDuration(seconds: 0).description == "0s")
        #expect(WidgetDuration("120m")?.description == "2h")
    }

    @Test func comparesByLength() {
        #expect(WidgetDuration("59m")! < WidgetDuration("1h")!)
        #expect(WidgetDuration("60m") == WidgetDuration("1h"))
        #expect(WidgetDuration("1h")?.timeInterval == 3_600)
    }

    @Test func problemSentenceNamesTheTextAndAFix() {
        #expect(WidgetDuration.problem("15 minutes") == #""15 minutes" is not a duration; write e.g. "15m", "24h" or "1h30m""#)
    }
}
