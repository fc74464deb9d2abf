import Foundation
import WidgetTestSupport

/// A seeded generator of five-field cron expressions (SplitMix64), the same on every run.
struct CronGenerator {
    private var random: SeededGenerator

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
    }

    mutating func next() -> UInt64 {
        random.next()
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    static let macros = ["@hourly", "@daily", "@midnight", "@weekly", "@monthly", "@yearly", "@annually"]
    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let days = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    mutating func expression() -> String {
        if int(0...99) < 3 { return Self.macros[int(0...Self.macros.count - 1)] }
        let minute = field(0...59, star: 10)
        let hour = field(0...23, star: 30)
        var dayOfMonth = field(1...31, star: 55)
        let month = field(1...12, star: 60, names: Self.months, nameBase: 1)
        // Day-of-week steps stay within 0-6: `3/2` would reach 7 (Sunday again), which croniter leaves out.
        var dayOfWeek = field(0...6, star: 60, names: Self.days, openSteps: false)
        if dayOfWeek == "0" || dayOfWeek == "sun", int(0...1) == 1 { dayOfWeek = "7" }
        // `*/n` in a day field counts as unrestricted in Vixie cron but as restricted in croniter: keep it
        // only when the other day field is `*`.
        if dayOfMonth.hasPrefix("*/"), dayOfWeek != "*" { dayOfMonth = "*" }
        if dayOfWeek.hasPrefix("*/"), dayOfMonth != "*" { dayOfWeek = "*" }
        return [minute, hour, dayOfMonth, month, dayOfWeek].joined(separator: " ")
    }

    /// One field: `*` with `star` percent chance, otherwise a value, range, step (`*/n`, `a-b/n`, and `a/n`
    /// when `openSteps`) or list.
    private mutating func field(_ range: ClosedRange<Int>, star: Int, names: [String] = [], nameBase: Int = 0, openSteps: Bool = true)
        -> String
    {
        if int(0...99) < star { return "*" }
        let useNames = !names.isEmpty && int(0...99) < 40
        func text(_ value: Int) -> String {
            // Day 7 (Sunday again) has no name of its own.
            guard useNames, value - nameBase < names.count, value - nameBase >= 0 else { return "\(value)" }
            return names[value - nameBase]
        }
        let span = range.upperBound - range.lowerBound
        func value() -> String { text(int(range)) }
        func interval() -> String {
            let lower = int(range.lowerBound...range.upperBound - 1)
            let upper = int(lower + 1...range.upperBound)
            return "\(text(lower))-\(text(upper))"
        }
        func step() -> String { "/\(int(2...max(2, span / 2)))" }
        switch int(0...99) {
        case 0..<35: return value()
        case 35..<50: return interval()
        case 50..<62: return "*" + step()
        case 62..<74: return interval() + step()
        case 74..<80 where openSteps: return "\(int(range.lowerBound...range.lowerBound + span / 2))" + step()
        case 74..<80: return interval() + step()
        default:
            var parts: [String] = []
            for _ in 0..<int(2...3) {
                let part: String
                switch int(0...9) {
                case 0..<6: part = value()
                case 6..<8: part = interval()
                default: part = interval() + step()
                }
                if !parts.contains(part) { parts.append(part) }
            }
            return parts.joined(separator: ",")
        }
    }
}
