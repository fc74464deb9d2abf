import Foundation
import Testing
import WidgetCore
import WidgetJSON

/// How often a schedule fires in a day, against its `maxPerDay`, and the warning `validate` gives for a
/// schedule that does not fit.
struct ScheduleBudgetTests {
    private let reader = DefinitionReader(registry: TestStages.registry, defaultTimeZone: TimeZone(identifier: "UTC")!)

    private func read(_ text: String) -> DefinitionReader.Result {
        reader.read(Data(text.utf8), file: "widgets.d/ticker.json")
    }

    private func warnings(_ text: String) -> [String] {
        read(text).warnings.map(\.description)
    }

    // MARK: - Firings a day

    @Test func firingsPerDayCountsEachRule() throws {
        #expect(Schedule(rule: .every(WidgetDuration(seconds: 60))).firingsPerDay == 1_440)
        #expect(Schedule(rule: .every(WidgetDuration(seconds: 7 * 60))).firingsPerDay == 206)
        #expect(Schedule(rule: .every(WidgetDuration(seconds: 2 * 86_400))).firingsPerDay == 1)
        #expect(Schedule(rule: .at([TimeOfDay(hour: 8, minute: 0), TimeOfDay(hour: 20, minute: 0)])).firingsPerDay == 2)
        let weekdays: CronExpression = "*/5 9-17 * * mon-fri"
        let hourly: CronExpression = "@hourly"
        #expect(Schedule(rule: .cron(weekdays)).firingsPerDay == 12 * 9)
        #expect(Schedule(rule: .cron(hourly)).firingsPerDay == 24)
        #expect(Schedule(rule: .atEnd).firingsPerDay == nil)
        #expect(Schedule(rule: .never).firingsPerDay == nil)
    }

    /// The count is what `nextDate` fires on a matching day without a daylight-saving change: checked on
    /// 40 generated expressions, walking a whole day in Berlin with the daemon's own code.
    @Test func cronFiringsAreWhatNextDateFiresOnAnOrdinaryDay() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        var generator = CronGenerator(seed: 0xB0D6_E7)
        // 1 June 2026 to 31 July 2026: no transition in Berlin.
        let first = calendar.date(from: DateComponents(year: 2026, month: 6, day: 1))!
        let last = calendar.date(from: DateComponents(year: 2026, month: 8, day: 1))!
        var compared = 0
        for _ in 0..<40 {
            let text = generator.expression()
            let cron = try CronExpression(text)
            // The first day of the window the expression fires on, and every firing of that day.
            guard let firstFiring = cron.nextDate(after: first.addingTimeInterval(-1), calendar: calendar), firstFiring < last else {
                continue
            }
            let dayStart = calendar.startOfDay(for: firstFiring)
            let dayEnd = calendar.date(byAdding: .day, value: 1, to: dayStart)!
            var count = 0
            var cursor = dayStart.addingTimeInterval(-1)
            while let next = cron.nextDate(after: cursor, calendar: calendar), next < dayEnd {
                count += 1
                cursor = next
            }
            #expect(count == cron.firingsPerMatchingDay, "\(text)")
            compared += 1
        }
        #expect(compared >= 20)
    }

    // MARK: - The warning

    @Test func aScheduleThatFitsItsBudgetHasNoProblem() {
        #expect(Schedule(rule: .every(WidgetDuration(seconds: 900)), maxPerDay: 100).budgetProblem == nil)
        #expect(Schedule(rule: .every(WidgetDuration(seconds: 3_600))).budgetProblem == nil)
        #expect(Schedule(rule: .never, maxPerDay: 1).budgetProblem == nil)
    }

    @Test func withoutMaxPerDayNoScheduleHasABudgetProblem() {
        #expect(Schedule(rule: .every(WidgetDuration(seconds: 300))).maxPerDay == nil)
        #expect(Schedule(rule: .every(WidgetDuration(seconds: 60)), allowFrequent: true).budgetProblem == nil)
        #expect(Schedule(rule: .every(WidgetDuration(seconds: 900))).budgetProblem == nil)
    }

    @Test func validateIsQuietForEveryPlainSchedule() {
        for schedule in [
            #"{"every": "15m"}"#, #"{"every": "5m"}"#, #"{"every": "1m", "allowFrequent": true}"#, #"{"cron": "*/5 * * * *"}"#,
            #"{"cron": "* * * * *", "allowFrequent": true}"#, #"{"at": ["08:00", "09:00", "10:00"]}"#, #""atEnd""#, #""never""#,
        ] {
            #expect(warnings(#"{"source": {"path": "p.json"}, "schedule": "# + schedule + "}") == [], "\(schedule)")
        }
    }

    @Test func withoutMaxPerDayADaysRefreshesAreCountedButNoneRefused() {
        // A 15-minute widget all day long: 96 refreshes, none refused, the count kept for `status`.
        let policy = RefreshPolicy(
            widgetID: "w", schedule: Schedule(rule: .every(WidgetDuration(seconds: 900))), timeZone: TimeZone(identifier: "UTC")!,
            staleAfter: nil)
        var budget = DailyBudget()
        let midnight = Date(timeIntervalSince1970: 1_795_305_600)
        for step in 0..<96 {
            #expect(policy.spendBudget(&budget, at: midnight.addingTimeInterval(Double(step) * 900), enforced: true) == .spent)
        }
        #expect(budget.used == 96)
        let capped = RefreshPolicy(
            widgetID: "w", schedule: Schedule(rule: .every(WidgetDuration(seconds: 900)), maxPerDay: 70),
            timeZone: TimeZone(identifier: "UTC")!, staleAfter: nil)
        budget = DailyBudget(day: "2026-11-22", used: 70)
        #expect(capped.spendBudget(&budget, at: midnight.addingTimeInterval(70 * 900), enforced: true) != .spent)
    }

    @Test func everyMinuteAgainstAHundredADayNamesBothNumbersAndAFit() {
        #expect(
            Schedule(rule: .every(WidgetDuration(seconds: 60)), maxPerDay: 100, allowFrequent: true).budgetProblem
                == "every 1m fires 1,440 times a day, but maxPerDay is 100: after 100 refreshes in a day the widget waits for the next day; raise \"maxPerDay\" to 1,440, or refresh less often: every 15m fires 96 times"
        )
    }

    @Test func validateWarnsAtTheRuleAndKeepsTheWidget() {
        let result = read(
            #"""
            {
              "source": { "path": "prices.json" },
              "schedule": { "every": "1m", "allowFrequent": true, "maxPerDay": 100 }
            }
            """#)
        #expect(result.diagnostics.isEmpty)
        #expect(result.widgets.map(\.id) == ["ticker"])
        #expect(
            result.warnings.map(\.description) == [
                #"widgets.d/ticker.json:3:26: $.schedule.every: warning: every 1m fires 1,440 times a day, but maxPerDay is 100: after 100 refreshes in a day the widget waits for the next day; raise "maxPerDay" to 1,440, or refresh less often: every 15m fires 96 times"#
            ])
        #expect(result.warnings.first?.severity == .warning)
        #expect(result.warnings.first?.value["severity"] == "warning")
    }

    @Test func cronAndAtSchedulesAreCountedToo() {
        #expect(
            warnings(#"{"source": {"path": "p.json"}, "schedule": {"cron": "*/5 * * * *", "maxPerDay": 70}}"#) == [
                #"widgets.d/ticker.json:1:53: $.schedule.cron: warning: cron "*/5 * * * *" fires 288 times on each day it runs, but maxPerDay is 70: after 70 refreshes in a day the widget waits for the next day; raise "maxPerDay" to 288, or fire less often"#
            ])
        #expect(
            warnings(#"{"source": {"path": "p.json"}, "schedule": {"at": ["08:00", "12:00", "16:00"], "maxPerDay": 2}}"#) == [
                #"widgets.d/ticker.json:1:51: $.schedule.at: warning: at lists 3 times of day, but maxPerDay is 2: after 2 refreshes in a day the widget waits for the next day; raise "maxPerDay" to 3, or list fewer times"#
            ])
        #expect(warnings(#"{"source": {"path": "p.json"}, "schedule": {"cron": "*/30 * * * *"}}"#) == [])
    }

    @Test func anInstanceScheduleIsCheckedAtItsOwnPlace() {
        #expect(
            warnings(
                #"""
                {
                  "source": { "path": "p.json" },
                  "schedule": { "every": "30m" },
                  "instances": [
                    { "id": "slow" },
                    { "id": "fast", "schedule": { "every": "10m", "maxPerDay": 24 } }
                  ]
                }
                """#) == [
                    #"widgets.d/ticker.json:6:44: $.instances[1].schedule.every: warning: every 10m fires 144 times a day, but maxPerDay is 24: after 24 refreshes in a day the widget waits for the next day; raise "maxPerDay" to 144, or refresh less often: every 1h fires 24 times"#
                ])
    }
}
