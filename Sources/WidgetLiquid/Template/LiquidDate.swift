package import Foundation
package import WidgetJSON

/// The `date` filter's reading of dates and its `strftime` formatting, over `Calendar` in a given zone.
package enum LiquidDate {
    // MARK: - Reading

    /// The date a filter input stands for: `'now'`/`'today'`, a Unix timestamp (number or digits), an
    /// ISO 8601 date or date-time, or a written date such as `March 14, 2016` or
    /// `Mon, 14 Mar 2016 10:00:00 +0000`. `nil` when the input is none of these.
    package static func date(from input: WidgetValue, context: FilterContext) -> Date? {
        switch input {
        case .number(let number):
            return plausible(number.double)
        case .string(let text):
            // A date that names its zone (ISO 8601, RFC 822 and HTTP's forms) is read by the internet-date
            // reader; the rest, written dates in the widget's zone, below.
            if let date = InternetDate.parseZoned(text) { return date }
            let trimmed = text.trimmingFoundationWhitespaceAndNewlines().lowercased()
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

    private static let weekdayNames = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
    /// The zone names a written date may end with; their offsets are ``InternetDate``'s. (Not every name
    /// that reader knows: in free text, military letters and `at` are words, not zones.)
    private static let zoneNames: Set<String> = [
        "z", "utc", "gmt", "ut", "est", "edt", "cst", "cdt", "mst", "mdt", "pst", "pdt", "cet", "cest", "bst",
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
                } else if zoneNames.contains(word), let seconds = InternetDate.zoneOffset(named: word) {
                    offset = seconds
                } else if word == "t" {
                    continue
                } else if word.count >= 3, let position = InternetDate.monthNames.firstIndex(where: { $0.hasPrefix(word) }) {
                    month = position + 1
                } else if word.count >= 3, weekdayNames.contains(where: { $0.hasPrefix(word) }) {
                    continue
                } else {
                    return nil
                }
            } else if scalar == "+" || scalar == "-", hasTime || year != nil, isDigit(index + 1) {
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

    /// The words `strftime` writes for months, weekdays and the half of the day: Ruby's English ones, or a
    /// locale's (`date: '%A %e %B', locale: 'fr_FR'` is `lundi 14 mars`).
    package struct Names: Sendable {
        var shortMonths = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        var longMonths = [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December",
        ]
        var shortWeekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        var longWeekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        var am = "AM"
        var pm = "PM"

        /// Ruby's English names.
        package static let english = Names()

        private init() {}

        /// The names `DateFormatter` gives for `locale` (in the Gregorian calendar).
        package init(_ locale: Locale) {
            let formatter = DateFormatter()
            formatter.locale = locale
            formatter.calendar = Calendar(identifier: .gregorian)
            shortMonths = formatter.shortMonthSymbols
            longMonths = formatter.monthSymbols
            shortWeekdays = formatter.shortWeekdaySymbols
            longWeekdays = formatter.weekdaySymbols
            am = formatter.amSymbol
            pm = formatter.pmSymbol
        }
    }

    /// Formats a date with Ruby's `strftime` directives (`%Y-%m-%d %H:%M`, `%-d`, `%^b`, `%:z`, …) in
    /// `timeZone`. Unknown directives are kept as written.
    package static func format(_ date: Date, _ format: String, timeZone: TimeZone, names: Names = .english) -> String {
        // From 1600 on, the Gregorian fields follow from the zone's offset at that moment by arithmetic;
        // earlier dates go through Calendar, whose Gregorian calendar is Julian before October 1582.
        let local = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
        if local >= CivilDate.year1600, local < CivilDate.year10000 {
            let whole = Int(local.rounded(.down))
            let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
            let time = whole - days * 86_400
            let (year, month, day) = CivilDate.date(days: days)
            let fields = Fields(
                date: date, timeZone: timeZone, names: names, year: year, month: month, day: day,
                hour: time / 3600, minute: time % 3600 / 60, second: time % 60, exactNanosecond: nil,
                weekday: ((days % 7) + 11) % 7, dayOfYear: days - CivilDate.days(year: year, month: 1, day: 1) + 1)
            return fields.format(format)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second, .nanosecond, .weekday], from: date)
        let fields = Fields(
            date: date, timeZone: timeZone, names: names, year: parts.year ?? 1970, month: parts.month ?? 1,
            day: parts.day ?? 1, hour: parts.hour ?? 0, minute: parts.minute ?? 0, second: parts.second ?? 0,
            exactNanosecond: parts.nanosecond ?? 0, weekday: (parts.weekday ?? 1) - 1,
            dayOfYear: calendar.ordinality(of: .day, in: .year, for: date) ?? 1)
        return fields.format(format)
    }

    private struct Fields {
        var date: Date
        var timeZone: TimeZone
        var names: Names
        /// Foundation's Gregorian calendar in the zone, for what arithmetic does not give.
        var calendar: Calendar {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            return calendar
        }
        var year, month, day, hour, minute, second: Int
        /// The nanoseconds when already known; otherwise Calendar's, read when `%L` or `%N` asks.
        var exactNanosecond: Int?
        var nanosecond: Int { exactNanosecond ?? calendar.component(.nanosecond, from: date) }
        /// 0 is Sunday.
        var weekday: Int
        var dayOfYear: Int

        /// `format` with its directives replaced, written as UTF-8 bytes: numbers are written digit by
        /// digit, and only the directives that spell words go through ``directive(_:flags:width:)``.
        func format(_ format: String) -> String {
            var format = format
            return format.withUTF8 { bytes in
                var output: [UInt8] = []
                output.reserveCapacity(bytes.count + 16)
                var index = 0
                let count = bytes.count
                while index < count {
                    guard bytes[index] == UInt8(ascii: "%"), index + 1 < count else {
                        output.append(bytes[index])
                        index += 1
                        continue
                    }
                    let start = index
                    index += 1
                    var flags = Flags()
                    while index < count, let flag = Flags(byte: bytes[index]) {
                        flags.insert(flag)
                        index += 1
                    }
                    var width: Int?
                    while index < count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                        width = min(256, (width ?? 0) * 10 + Int(bytes[index] - 0x30))
                        index += 1
                    }
                    guard index < count else {
                        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<count]))
                        break
                    }
                    let directive = bytes[index]
                    if appendNumber(directive, flags: flags, width: width, to: &output) {
                        index += 1
                        continue
                    }
                    // Not ASCII: no directive; the whole character is kept as written.
                    let scalarEnd = min(count, index + Self.sequenceLength(directive))
                    if directive < 0x80, let text = self.directive(Unicode.Scalar(directive), flags: flags.scalars, width: width) {
                        output.append(contentsOf: text.utf8)
                    } else {
                        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<scalarEnd]))
                    }
                    index = scalarEnd
                }
                return String(decoding: output, as: UTF8.self)
            }
        }

        /// The number of bytes of the UTF-8 sequence that `lead` starts.
        private static func sequenceLength(_ lead: UInt8) -> Int {
            lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        }

        /// `strftime` flags: `-` (no padding), `_` (spaces), `0` (zeros), `^` (upper case), `#` (change
        /// case), `:` (colons in `%z`).
        struct Flags: OptionSet {
            var rawValue: UInt8

            static let noPadding = Flags(rawValue: 1)
            static let spaces = Flags(rawValue: 2)
            static let zeros = Flags(rawValue: 4)
            static let upper = Flags(rawValue: 8)
            static let changeCase = Flags(rawValue: 16)
            static let colons = Flags(rawValue: 32)

            init(rawValue: UInt8) {
                self.rawValue = rawValue
            }

            init?(byte: UInt8) {
                switch byte {
                case UInt8(ascii: "-"): self = .noPadding
                case UInt8(ascii: "_"): self = .spaces
                case UInt8(ascii: "0"): self = .zeros
                case UInt8(ascii: "^"): self = .upper
                case UInt8(ascii: "#"): self = .changeCase
                case UInt8(ascii: ":"): self = .colons
                default: return nil
                }
            }

            /// The flags as the characters that spell them.
            var scalars: Set<Unicode.Scalar> {
                var set: Set<Unicode.Scalar> = []
                for (flag, scalar) in [
                    (Flags.noPadding, "-"), (.spaces, "_"), (.zeros, "0"), (.upper, "^"),
                    (.changeCase, "#"), (.colons, ":"),
                ] as [(Flags, Unicode.Scalar)]
                where contains(flag) {
                    set.insert(scalar)
                }
                return set
            }
        }

        /// Writes the numeric directive `directive` (`%Y`, `%m`, `%d`, `%H`, …) as
        /// ``number(_:_:pad:flags:width:)`` spells it; `false` for any other directive.
        private func appendNumber(_ directive: UInt8, flags: Flags, width: Int?, to output: inout [UInt8]) -> Bool {
            let hour12 = hour % 12 == 0 ? 12 : hour % 12
            let value: Int
            let defaultWidth: Int
            var pad = UInt8(ascii: "0")
            switch directive {
            case UInt8(ascii: "Y"): (value, defaultWidth) = (year, 1)
            case UInt8(ascii: "C"): (value, defaultWidth) = (year / 100, 2)
            case UInt8(ascii: "y"): (value, defaultWidth) = (year % 100, 2)
            case UInt8(ascii: "m"): (value, defaultWidth) = (month, 2)
            case UInt8(ascii: "d"): (value, defaultWidth) = (day, 2)
            case UInt8(ascii: "e"): (value, defaultWidth, pad) = (day, 2, 0x20)
            case UInt8(ascii: "j"): (value, defaultWidth) = (dayOfYear, 3)
            case UInt8(ascii: "H"): (value, defaultWidth) = (hour, 2)
            case UInt8(ascii: "k"): (value, defaultWidth, pad) = (hour, 2, 0x20)
            case UInt8(ascii: "I"): (value, defaultWidth) = (hour12, 2)
            case UInt8(ascii: "l"): (value, defaultWidth, pad) = (hour12, 2, 0x20)
            case UInt8(ascii: "M"): (value, defaultWidth) = (minute, 2)
            case UInt8(ascii: "S"): (value, defaultWidth) = (second, 2)
            case UInt8(ascii: "u"): (value, defaultWidth) = (weekday == 0 ? 7 : weekday, 1)
            case UInt8(ascii: "w"): (value, defaultWidth) = (weekday, 1)
            case UInt8(ascii: "U"): (value, defaultWidth) = ((dayOfYear - 1 + 7 - weekday) / 7, 2)
            case UInt8(ascii: "W"): (value, defaultWidth) = ((dayOfYear - 1 + 7 - (weekday + 6) % 7) / 7, 2)
            default: return false
            }
            let magnitude = value.magnitude
            var digitCount = 1
            var divisor: UInt = 1
            while magnitude / divisor >= 10 {
                divisor *= 10
                digitCount += 1
            }
            if value < 0 { output.append(UInt8(ascii: "-")) }
            if !flags.contains(.noPadding) {
                let padding = flags.contains(.spaces) ? 0x20 : flags.contains(.zeros) ? UInt8(ascii: "0") : pad
                let target = (width ?? defaultWidth) - (value < 0 ? 1 : 0)
                if digitCount < target {
                    for _ in digitCount..<target { output.append(padding) }
                }
            }
            var rest = magnitude
            while divisor > 0 {
                output.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
            return true
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
            case "p":
                return text(
                    flags.contains("#") ? (hour < 12 ? names.am : names.pm).lowercased() : (hour < 12 ? names.am : names.pm),
                    flags: flags.subtracting(["#"]), width: width)
            case "P": return text((hour < 12 ? names.am : names.pm).lowercased(), flags: flags, width: width)
            case "A": return text(names.longWeekdays[weekday], flags: flags, width: width)
            case "a": return text(names.shortWeekdays[weekday], flags: flags, width: width)
            case "B": return text(names.longMonths[month - 1], flags: flags, width: width)
            case "b", "h": return text(names.shortMonths[month - 1], flags: flags, width: width)
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
