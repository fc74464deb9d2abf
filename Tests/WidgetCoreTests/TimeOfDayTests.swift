import Testing
import WidgetCore

struct TimeOfDayTests {
    @Test func readsHoursAndMinutes() {
        #expect(TimeOfDay("08:00") == TimeOfDay(hour: 8, minute: 0))
        #expect(TimeOfDay("00:00") == TimeOfDay(hour: 0, minute: 0))
        #expect(TimeOfDay("23:59") == TimeOfDay(hour: 23, minute: 59))
    }

    @Test func readsSeconds() {
        #expect(TimeOfDay("07:30:15") == TimeOfDay(hour: 7, minute: 30, second: 15))
        #expect(TimeOfDay("07:30:15")?.secondsSinceMidnight == 27_015)
    }

    @Test func rejectsWhatIsNotATimeOfDay() {
        for text in [
            "8:00", "08:0", "24:00", "12:60", "12:00:60", "8am", "", "08", "08:00:00:00", "-1:00", "+8:00",
            "08:00 ", "０８:００", "08-00", "08::00",
        ] {
            #expect(TimeOfDay(text) == nil, "\(text) was accepted")
        }
    }

    @Test func describesItselfAsWritten() {
        #expect(TimeOfDay(hour: 8, minute: 5).description == "08:05")
        #expect(TimeOfDay(hour: 20, minute: 0, second: 9).description == "20:00:09")
    }

    @Test func ordersByTimeOfDay() {
        let times = ["20:00", "08:00:01", "08:00"].compactMap(TimeOfDay.init)
        #expect(times.sorted().map(\.description) == ["08:00", "08:00:01", "20:00"])
    }
}
