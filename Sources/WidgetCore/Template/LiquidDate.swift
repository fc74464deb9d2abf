import Foundation

/// The `date` filter's reading of dates and its `strftime` formatting, over `Calendar` in a given zone.
enum LiquidDate {
    // MARK: - Reading

    /// The date a filter input stands for: `'now'`/`'today'`, a Unix timestamp (number or digits), an
    /// ISO 8601 date or date-time, or a written date such as `March 14, 2016` or
    /// `Mon, 14 Mar 2016 10:00:00 +0000`. `nil` when the input is none of these.
    static func date(from input: WidgetValue, context: FilterContext) -> Date? {
        switch input {
        case .number(let number):
            return plausible(number.double)
        case .string(let text):
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            if trimmed.isEmpty { return nil }
            if trimmed == "now" || trimmed == "today" { return context.now }
            if trimmed.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let seconds = Double(trimmed) {
                return plausible(seconds)
            }
            return parse(trimmed, timeZone: context.timeZone, now: context.now)
        default:
            return nil
        }
    }

    /// A timestamp within ±3 million years of 1970, or `nil`.
    private static func plausible(_ seconds: Double) -> Date? {
        seconds.isFinite && abs(seconds) < 1e14 ? Date(timeIntervalSince1970: seconds) : nil
    }

    private static let monthNames = [
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
        "november", "december",
    ]
    private static let weekdayNames = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
    private static let zoneOffsets: [String: Int] = [
        "z": 0, "utc": 0, "gmt": 0, "ut": 0, "est": -5, "edt": -4, "cst": -6, "cdt": -5, "mst": -7, "mdt": -6,
        "pst": -8, "pdt": -7, "cet": 1, "cest": 2, "bst": 1,
    ]

    /// Reads a lower-cased date text; zone-less dates are in `timeZone`.
    static func parse(_ text: String, timeZone: TimeZone, now: Date) -> Date? {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var year: Int?
        var month: Int?
        var day: Int?
        var hour = 0
        var minute = 0
        var second = 0
        var nanosecond = 0
        var hasTime = false
        var offset: Int?

        func isDigit(_ position: Int) -> Bool {
            position < scalars.count && ("0"..."9").contains(scalars[position])
        }
        func digits() -> (value: Int, count: Int)? {
            let start = index
            while isDigit(index) { index += 1 }
            guard index > start, index - start <= 9 else { return nil }
            return (Int(String(String.UnicodeScalarView(scalars[start..<index])))!, index - start)
        }
        func consume(_ scalar: Unicode.Scalar) -> Bool {
            guard index < scalars.count, scalars[index] == scalar else { return false }
            index += 1
            return true
        }

        while index < scalars.count {
            let scalar = scalars[index]
            if isDigit(index) {
                let start = index
                guard let first = digits() else { return nil }
                if consume(":") {
                    // A time: hh:mm[:ss[.fraction]]
                    guard !hasTime, first.count <= 2, let minutes = digits(), minutes.count == 2 else { return nil }
                    hour = first.value
                    minute = minutes.value
                    if consume(":") {
                        guard let seconds = digits(), seconds.count == 2 else { return nil }
                        second = seconds.value
                        if consume(".") || consume(",") {
                            let fractionStart = index
                            while isDigit(index) { index += 1 }
                            let fraction = String(String.UnicodeScalarView(scalars[fractionStart..<index]))
                            let padded = (fraction + "000000000").prefix(9)
                            nanosecond = Int(padded) ?? 0
                        }
                    }
                    hasTime = true
                } else if first.count == 4, year == nil, consume("-") {
                    // ISO 8601: yyyy-mm-dd
                    guard let months = digits(), consume("-"), let days = digits() else { return nil }
                    year = first.value
                    month = months.value
                    day = days.value
                    if index < scalars.count, scalars[index] == "t" { index += 1 }
                } else if first.count <= 2, consume("/") {
                    // American: mm/dd/yyyy
                    guard let days = digits(), consume("/"), let years = digits() else { return nil }
                    month = first.value
                    day = days.value
                    year = years.count <= 2 ? 2000 + years.value : years.value
                } else if first.count == 4 || first.value > 31 {
                    guard year == nil else { return nil }
                    year = first.value
                } else if day == nil {
                    day = first.value
                } else {
                    index = start
                    return nil
                }
            } else if ("a"..."z").contains(scalar) {
                let start = index
                while index < scalars.count, ("a"..."z").contains(scalars[index]) { index += 1 }
                let word = String(String.UnicodeScalarView(scalars[start..<index]))
                if word == "am" || word == "pm" {
                    guard hasTime, hour <= 12 else { return nil }
                    if word == "am", hour == 12 { hour = 0 }
                    if word == "pm", hour < 12 { hour += 12 }
                } else if let hours = zoneOffsets[word] {
                    offset = hours * 3600
                } else if word == "t" {
                    continue
                } else if word.count >= 3, let position = monthNames.firstIndex(where: { $0.hasPrefix(word) }) {
                    month = position + 1
                } else if word.count >= 3, weekdayNames.contains(where: { $0.hasPrefix(word) }) {
                    continue
                } else {
                    return nil
                }
            } else if (scalar == "+" || scalar == "-"), hasTime || year != nil, isDigit(index + 1) {
                let negative = scalar == "-"
                index += 1
                guard let hours = digits() else { return nil }
                var minutes = 0
                var hoursValue = hours.value
                if hours.count == 4 {
                    hoursValue = hours.value / 100
                    minutes = hours.value % 100
                } else if consume(":") {
                    guard let value = digits() else { return nil }
                    minutes = value.value
                } else if hours.count != 2 {
                    return nil
                }
                offset = (negative ? -1 : 1) * (hoursValue * 3600 + minutes * 60)
            } else if scalar == " " || scalar == "," || scalar == "." || scalar == "\t" {
                index += 1
            } else {
                return nil
            }
        }

        guard let month, let day, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60,
            second < 61
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = offset.flatMap { TimeZone(secondsFromGMT: $0) } ?? timeZone
        let resolvedYear = year ?? calendar.component(.year, from: now)
        let components = DateComponents(
            year: resolvedYear, month: month, day: day, hour: hour, minute: minute, second: second,
            nanosecond: nanosecond)
        return calendar.date(from: components)
    }

    // MARK: - strftime

    private static let shortMonths = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let longMonths = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]
    private static let shortWeekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let longWeekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

    /// Formats a date with Ruby's `strftime` directives (`%Y-%m-%d %H:%M`, `%-d`, `%^b`, `%:z`, …) in
    /// `timeZone`. Unknown directives are kept as written.
    static func format(_ date: Date, _ format: String, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second, .nanosecond, .weekday], from: date)
        let fields = Fields(
            date: date, timeZone: timeZone, calendar: calendar, year: parts.year ?? 1970, month: parts.month ?? 1,
            day: parts.day ?? 1, hour: parts.hour ?? 0, minute: parts.minute ?? 0, second: parts.second ?? 0,
            nanosecond: parts.nanosecond ?? 0, weekday: (parts.weekday ?? 1) - 1,
            dayOfYear: calendar.ordinality(of: .day, in: .year, for: date) ?? 1)
        return fields.format(format)
    }

    private struct Fields {
        var date: Date
        var timeZone: TimeZone
        var calendar: Calendar
        var year, month, day, hour, minute, second, nanosecond: Int
        /// 0 is Sunday.
        var weekday: Int
        var dayOfYear: Int

        func format(_ format: String) -> String {
            let scalars = Array(format.unicodeScalars)
            var output = ""
            var index = 0
            while index < scalars.count {
                guard scalars[index] == "%", index + 1 < scalars.count else {
                    output.unicodeScalars.append(scalars[index])
                    index += 1
                    continue
                }
                let start = index
                index += 1
                var flags: Set<Unicode.Scalar> = []
                while index < scalars.count, "-_0^#:".unicodeScalars.contains(scalars[index]) {
                    flags.insert(scalars[index])
                    index += 1
                }
                var width: Int?
                while index < scalars.count, ("0"..."9").contains(scalars[index]) {
                    width = min(256, (width ?? 0) * 10 + Int(scalars[index].value - 48))
                    index += 1
                }
                guard index < scalars.count,
                    let text = directive(scalars[index], flags: flags, width: width)
                else {
                    let end = min(index + 1, scalars.count)
                    output.unicodeScalars.append(contentsOf: scalars[start..<end])
                    index = end
                    continue
                }
                output += text
                index += 1
            }
            return output
        }

        private func number(_ value: Int, _ defaultWidth: Int, pad: Character, flags: Set<Unicode.Scalar>, width: Int?)
            -> String
        {
            if flags.contains("-") { return String(value) }
            let padding: Character = flags.contains("_") ? " " : flags.contains("0") ? "0" : pad
            let digits = String(value.magnitude)
            let target = (width ?? defaultWidth) - (value < 0 ? 1 : 0)
            let padded = digits.count < target ? String(repeating: padding, count: target - digits.count) + digits : digits
            return value < 0 ? "-" + padded : padded
        }

        private func text(_ value: String, flags: Set<Unicode.Scalar>, width: Int?) -> String {
            var result = value
            if flags.contains("^") { result = result.uppercased() }
            if flags.contains("#") {
                result = result == result.uppercased() ? result.lowercased() : result.uppercased()
            }
            if let width, result.count < width {
                let padding: Character = flags.contains("0") ? "0" : " "
                result = String(repeating: padding, count: width - result.count) + result
            }
            return result
        }

        private func directive(_ scalar: Unicode.Scalar, flags: Set<Unicode.Scalar>, width: Int?) -> String? {
            let hour12 = hour % 12 == 0 ? 12 : hour % 12
            switch scalar {
            case "Y": return number(year, 1, pad: "0", flags: flags, width: width)
            case "C": return number(year / 100, 2, pad: "0", flags: flags, width: width)
            case "y": return number(year % 100, 2, pad: "0", flags: flags, width: width)
            case "m": return number(month, 2, pad: "0", flags: flags, width: width)
            case "d": return number(day, 2, pad: "0", flags: flags, width: width)
            case "e": return number(day, 2, pad: " ", flags: flags, width: width)
            case "j": return number(dayOfYear, 3, pad: "0", flags: flags, width: width)
            case "H": return number(hour, 2, pad: "0", flags: flags, width: width)
            case "k": return number(hour, 2, pad: " ", flags: flags, width: width)
            case "I": return number(hour12, 2, pad: "0", flags: flags, width: width)
            case "l": return number(hour12, 2, pad: " ", flags: flags, width: width)
            case "M": return number(minute, 2, pad: "0", flags: flags, width: width)
            case "S": return number(second, 2, pad: "0", flags: flags, width: width)
            case "L": return String(number(nanosecond, 9, pad: "0", flags: [], width: nil).prefix(width ?? 3))
            case "N": return String(number(nanosecond, 9, pad: "0", flags: [], width: nil).prefix(width ?? 9))
            case "p": return text(hour < 12 ? (flags.contains("#") ? "am" : "AM") : (flags.contains("#") ? "pm" : "PM"),
                                  flags: flags.subtracting(["#"]), width: width)
            case "P": return text(hour < 12 ? "am" : "pm", flags: flags, width: width)
            case "A": return text(LiquidDate.longWeekdays[weekday], flags: flags, width: width)
            case "a": return text(LiquidDate.shortWeekdays[weekday], flags: flags, width: width)
            case "B": return text(LiquidDate.longMonths[month - 1], flags: flags, width: width)
            case "b", "h": return text(LiquidDate.shortMonths[month - 1], flags: flags, width: width)
            case "u": return number(weekday == 0 ? 7 : weekday, 1, pad: "0", flags: flags, width: width)
            case "w": return number(weekday, 1, pad: "0", flags: flags, width: width)
            case "U": return number((dayOfYear - 1 + 7 - weekday) / 7, 2, pad: "0", flags: flags, width: width)
            case "W": return number((dayOfYear - 1 + 7 - (weekday + 6) % 7) / 7, 2, pad: "0", flags: flags, width: width)
            case "G", "V":
                var iso = Calendar(identifier: .iso8601)
                iso.timeZone = timeZone
                let parts = iso.dateComponents([.yearForWeekOfYear, .weekOfYear], from: date)
                return scalar == "G"
                    ? number(parts.yearForWeekOfYear ?? year, 1, pad: "0", flags: flags, width: width)
                    : number(parts.weekOfYear ?? 1, 2, pad: "0", flags: flags, width: width)
            case "Z": return text(zoneName, flags: flags, width: width)
            case "z": return offset(colons: flags.contains(":"))
            case "s": return String(Int(date.timeIntervalSince1970.rounded(.down)))
            case "n": return "\n"
            case "t": return "\t"
            case "%": return "%"
            case "c": return format("%a %b %e %H:%M:%S %Y")
            case "D", "x": return format("%m/%d/%y")
            case "F": return format("%Y-%m-%d")
            case "T", "X": return format("%H:%M:%S")
            case "R": return format("%H:%M")
            case "r": return format("%I:%M:%S %p")
            case "v": return format("%e-%^b-%Y")
            default: return nil
            }
        }

        private var zoneName: String {
            let seconds = timeZone.secondsFromGMT(for: date)
            if ["UTC", "GMT", "Etc/UTC", "Etc/GMT", "Z"].contains(timeZone.identifier) { return "UTC" }
            return timeZone.shortName(at: date) ?? (seconds == 0 ? "UTC" : offset(colons: true))
        }

        private func offset(colons: Bool) -> String {
            let seconds = timeZone.secondsFromGMT(for: date)
            let sign = seconds < 0 ? "-" : "+"
            let hours = abs(seconds) / 3600
            let minutes = abs(seconds) % 3600 / 60
            let hh = hours < 10 ? "0\(hours)" : "\(hours)"
            let mm = minutes < 10 ? "0\(minutes)" : "\(minutes)"
            return sign + hh + (colons ? ":" : "") + mm
        }
    }
}
