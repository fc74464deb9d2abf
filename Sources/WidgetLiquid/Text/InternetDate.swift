public import Foundation

/// The one reader of the dates the internet writes: in feeds, in HTTP (`Retry-After`, `Last-Modified`)
/// and in the data a Liquid `date` filter is given; by hand and fast, and written back as ISO 8601 instants.
///
/// Understood shapes:
/// - RFC 822 / RFC 1123 and their everyday variants: `Tue, 10 Jun 2003 04:00:00 GMT`, without the weekday,
///   without seconds, with full month names, two-digit years (`03` is 2003, `97` is 1997), named zones
///   (`UT`, `GMT`, `Z`, `EST`, `EDT`, `CST`, `CDT`, `MST`, `MDT`, `PST`, `PDT` and a few more) and numeric
///   offsets (`-0700`, `+05:30`). A missing or unknown zone is read as UTC. RFC 850's `Sunday, 06-Nov-94`
///   and C's `asctime` (`Sun Nov  6 08:49:37 1994`), which HTTP still allows, are read too.
/// - RFC 3339 / ISO 8601: `2003-12-13T18:30:02Z`, `2003-12-13T18:30:02.25+01:00`, a space instead of `T`,
///   a date alone (midnight UTC).
///
/// `DateFormatter` costs more than the rest of a feed's parse, so this reader walks the bytes itself.
///
/// ```swift
/// let date = InternetDate.parse("Sat, 07 Sep 02 00:00:01 GMT")   // 2002-09-07T00:00:01Z
/// InternetDate.iso8601(date!)                                     // "2002-09-07T00:00:01Z"
/// ```
public enum InternetDate {
    /// The instant `text` names, or `nil` when it is no date this reader knows.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes in
            guard let seconds = parse(bytes) else { return nil }
            return Date(timeIntervalSince1970: seconds)
        }
    }

    /// The instants this reader reads and writes: 0001-01-01T00:00:00Z up to the end of
    /// 9999-12-31T23:59:59Z, in seconds since 1970. A date from outside (a feed, a Unix time in an item)
    /// beyond them is an error where it is read; the writers below clamp to them, so that no date can stop
    /// a snapshot or a state from being written.
    public static let secondsRange: Range<Double> = -62_135_596_800..<253_402_300_800

    /// Whether `seconds` since 1970 lie within ``secondsRange`` (`false` for NaN and infinities).
    public static func isWritable(_ seconds: Double) -> Bool {
        secondsRange.contains(seconds)
    }

    /// `seconds` since 1970 unchanged within ``secondsRange``; outside, its first second or its last
    /// whole second (9999-12-31T23:59:59Z), NaN and +∞ the last, −∞ the first.
    static func clamped(_ seconds: Double) -> Double {
        if secondsRange.contains(seconds) { return seconds }
        return seconds < secondsRange.lowerBound ? secondsRange.lowerBound : secondsRange.upperBound - 1
    }

    /// `date` as `YYYY-MM-DDTHH:MM:SSZ` in UTC, with milliseconds when it has a fraction of a second.
    /// A date outside ``secondsRange`` is written as the nearest end of it.
    public static func iso8601(_ date: Date) -> String {
        let interval = clamped(date.timeIntervalSince1970)
        var seconds = Int64(interval.rounded(.down))
        var fraction = Int(((interval - Double(seconds)) * 1000).rounded())
        if fraction == 1000 {
            seconds += 1
            fraction = 0
        }
        return utc(seconds: seconds, milliseconds: fraction != 0 ? fraction : nil)
            ?? ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: interval))
    }

    /// `date` in UTC exactly as Foundation's ISO 8601 format style writes it: to the second
    /// (`2026-11-22T05:00:03Z`, the fraction dropped), or with `milliseconds` always
    /// (`2026-11-22T05:00:03.042Z`, truncated). Written directly from 1900 on (the style was a tenth of
    /// writing a snapshot); before, the style itself writes it, in the Julian calendar before 1582. A date
    /// outside ``secondsRange`` (a Unix time of `1e19` in an old state, say) is written as the nearest
    /// end of it, never a trap.
    package static func timestamp(_ date: Date, milliseconds: Bool = false) -> String {
        let interval = clamped(date.timeIntervalSince1970)
        if interval >= -2_208_988_800 {
            let whole = interval.rounded(.down)
            let fraction = milliseconds ? min(999, Int(((interval - whole) * 1000).rounded(.down))) : nil
            if let text = utc(seconds: Int64(whole), milliseconds: fraction) { return text }
        }
        let inRange = Date(timeIntervalSince1970: interval)
        return milliseconds
            ? inRange.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)) : inRange.formatted(.iso8601)
    }

    /// `seconds` since 1970 as `YYYY-MM-DDTHH:MM:SSZ`, with `.mmm` before the `Z` when `milliseconds` is
    /// given; `nil` outside the years 1 to 9999.
    private static func utc(seconds: Int64, milliseconds: Int?) -> String? {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        // CivilDate counts from 0001-03-01.
        guard days >= Int64(CivilDate.days(year: 1, month: 3, day: 1)), days < Int64(CivilDate.days(year: 10000, month: 1, day: 1)) else {
            return nil
        }
        let (year, month, day) = CivilDate.date(days: Int(days))
        let count = milliseconds != nil ? 24 : 20
        return String(unsafeUninitializedCapacity: count) { bytes in
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var value = value
                for position in stride(from: offset + width - 1, through: offset, by: -1) {
                    bytes[position] = UInt8(0x30 + value % 10)
                    value /= 10
                }
            }
            put(Int(year), 4, at: 0)
            bytes[4] = UInt8(ascii: "-")
            put(month, 2, at: 5)
            bytes[7] = UInt8(ascii: "-")
            put(day, 2, at: 8)
            bytes[10] = UInt8(ascii: "T")
            put(secondOfDay / 3600, 2, at: 11)
            bytes[13] = UInt8(ascii: ":")
            put(secondOfDay / 60 % 60, 2, at: 14)
            bytes[16] = UInt8(ascii: ":")
            put(secondOfDay % 60, 2, at: 17)
            if let milliseconds {
                bytes[19] = UInt8(ascii: ".")
                put(milliseconds, 3, at: 20)
            }
            bytes[count - 1] = UInt8(ascii: "Z")
            return count
        }
    }

    /// `text` normalised to an ISO 8601 instant, or `nil` when it is no date.
    public static func normalize(_ text: String) -> String? {
        parse(text).map(iso8601)
    }

    // MARK: - Reading

    /// Seconds since 1970 for the date in `bytes`.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        read(bytes)?.seconds
    }

    /// The instant `text` names when it names its zone (`Z`, `+01:00`, `GMT`, `EST`, …), or `nil`: for
    /// readers that take a date without a zone to be local time (Liquid's `date` filter).
    package static func parseZoned(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes in
            guard let (seconds, zoned) = read(bytes), zoned else { return nil }
            return Date(timeIntervalSince1970: seconds)
        }
    }

    /// Seconds since 1970 for the date in `bytes`, and whether it named its zone.
    private static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> (seconds: Double, zoned: Bool)? {
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        guard end - start >= 6, end - start <= 80 else { return nil }
        if isDigit(bytes[start]), end - start >= 10, bytes[start + 4] == UInt8(ascii: "-") {
            return parseISO(bytes, start, end)
        }
        return parseRFC822(bytes, start, end)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    /// Reads exactly `count` digits at `index`.
    private static func digits(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int, _ count: Int, _ end: Int) -> Int? {
        guard index + count <= end else { return nil }
        var value = 0
        for offset in 0..<count {
            let byte = bytes[index + offset]
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        index += count
        return value
    }

    /// Reads exactly `count` digits at `index` and then the byte `separator`.
    private static func field(
        _ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int, _ count: Int, _ end: Int, then separator: UInt8
    ) -> Int? {
        guard let value = digits(bytes, &index, count, end), index < end, bytes[index] == separator else { return nil }
        index += 1
        return value
    }

    private static func parseISO(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (seconds: Double, zoned: Bool)? {
        var index = start
        guard let year = field(bytes, &index, 4, end, then: UInt8(ascii: "-")),
            let month = field(bytes, &index, 2, end, then: UInt8(ascii: "-")),
            let day = digits(bytes, &index, 2, end)
        else { return nil }
        var hour = 0
        var minute = 0
        var second = 0
        var fraction = 0.0
        var offset = 0
        var zoned = false
        if index < end, bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: "t") || bytes[index] == 0x20 {
            index += 1
            guard let h = digits(bytes, &index, 2, end), index < end, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let m = digits(bytes, &index, 2, end) else { return nil }
            hour = h
            minute = m
            if index < end, bytes[index] == UInt8(ascii: ":") {
                index += 1
                guard let s = digits(bytes, &index, 2, end) else { return nil }
                second = s
                if index < end, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    var scale = 0.1
                    let fractionStart = index
                    while index < end, isDigit(bytes[index]) {
                        fraction += Double(bytes[index] - 0x30) * scale
                        scale /= 10
                        index += 1
                    }
                    guard index > fractionStart else { return nil }
                }
            }
            while index < end, bytes[index] == 0x20 { index += 1 }
            if index < end {
                guard let zone = zoneOffset(bytes, &index, end) else { return nil }
                offset = zone
                zoned = true
            }
        }
        guard index == end else { return nil }
        return seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: offset)
            .map { ($0 + fraction, zoned) }
    }

    private static func parseRFC822(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (seconds: Double, zoned: Bool)? {
        var index = start
        // An optional weekday, with or without its comma.
        if isLetter(bytes[index]) {
            let wordStart = index
            while index < end, isLetter(bytes[index]) { index += 1 }
            if monthNumber(bytes, wordStart, index) != nil {
                // "Jun 10 2003 …": month first.
                index = wordStart
                return parseMonthFirst(bytes, index, end)
            }
            guard index - wordStart >= 3 else { return nil }
            while index < end, bytes[index] == UInt8(ascii: ",") || bytes[index] == UInt8(ascii: ".") || isSpace(bytes[index]) {
                index += 1
            }
        }
        guard let day = dayOfMonth(bytes, &index, end) else {
            if index < end, isLetter(bytes[index]) { return parseMonthFirst(bytes, index, end) }
            return nil
        }
        while index < end, isSpace(bytes[index]) || bytes[index] == UInt8(ascii: "-") { index += 1 }
        // Month.
        let monthStart = index
        while index < end, isLetter(bytes[index]) { index += 1 }
        guard let month = monthNumber(bytes, monthStart, index) else { return nil }
        if index < end, bytes[index] == UInt8(ascii: ".") { index += 1 }
        while index < end, isSpace(bytes[index]) || bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: ",") { index += 1 }
        return parseYearTimeZone(bytes, index, end, day: day, month: month)
    }

    /// One or two digits at `index`: a day of the month as written (`6`, `06`); nil, `index` unmoved, when
    /// there is no digit.
    private static func dayOfMonth(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int, _ end: Int) -> Int? {
        var day = 0
        let start = index
        while index < end, isDigit(bytes[index]), index - start < 2 {
            day = day * 10 + Int(bytes[index] - 0x30)
            index += 1
        }
        return index > start ? day : nil
    }

    /// `Jun 10 2003 04:00:00 GMT`, `June 10, 2003`, and `asctime`'s `Nov  6 08:49:37 1994` (UTC).
    private static func parseMonthFirst(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (seconds: Double, zoned: Bool)? {
        var index = start
        let monthStart = index
        while index < end, isLetter(bytes[index]) { index += 1 }
        guard let month = monthNumber(bytes, monthStart, index) else { return nil }
        if index < end, bytes[index] == UInt8(ascii: ".") { index += 1 }
        while index < end, isSpace(bytes[index]) { index += 1 }
        guard let day = dayOfMonth(bytes, &index, end) else { return nil }
        while index < end, isSpace(bytes[index]) || bytes[index] == UInt8(ascii: ",") { index += 1 }
        if let time = asctimeTime(bytes, &index, end) {
            // asctime: the time, then the year, and no zone (HTTP's are in GMT).
            while index < end, isSpace(bytes[index]) { index += 1 }
            guard let year = digits(bytes, &index, 4, end), index == end else { return nil }
            return seconds(year: year, month: month, day: day, hour: time.hour, minute: time.minute, second: time.second, offset: 0)
                .map { ($0, false) }
        }
        return parseYearTimeZone(bytes, index, end, day: day, month: month)
    }

    /// `hh:mm:ss` at `index` when a time comes before the year (as in `asctime`); nil, `index` unmoved,
    /// otherwise.
    private static func asctimeTime(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int, _ end: Int) -> (
        hour: Int, minute: Int, second: Int
    )? {
        var cursor = index
        guard let hour = field(bytes, &cursor, 2, end, then: UInt8(ascii: ":")),
            let minute = field(bytes, &cursor, 2, end, then: UInt8(ascii: ":")),
            let second = digits(bytes, &cursor, 2, end)
        else { return nil }
        index = cursor
        return (hour, minute, second)
    }

    private static func parseYearTimeZone(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, day: Int, month: Int
    ) -> (seconds: Double, zoned: Bool)? {
        var index = start
        var year = 0
        var yearDigits = 0
        while index < end, isDigit(bytes[index]) {
            // More than four digits is no year; stop counting before the number can overflow.
            if yearDigits < 5 { year = year * 10 + Int(bytes[index] - 0x30) }
            index += 1
            yearDigits += 1
        }
        guard yearDigits == 2 || yearDigits == 4 else { return nil }
        if yearDigits == 2 { year += year < 90 ? 2000 : 1900 }
        while index < end, isSpace(bytes[index]) || bytes[index] == UInt8(ascii: ",") { index += 1 }
        var hour = 0
        var minute = 0
        var second = 0
        if index < end, isDigit(bytes[index]) {
            var hourDigits = 0
            while index < end, isDigit(bytes[index]), hourDigits < 2 {
                hour = hour * 10 + Int(bytes[index] - 0x30)
                index += 1
                hourDigits += 1
            }
            guard index < end, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let m = digits(bytes, &index, 2, end) else { return nil }
            minute = m
            if index < end, bytes[index] == UInt8(ascii: ":") {
                index += 1
                guard let s = digits(bytes, &index, 2, end) else { return nil }
                second = s
                // Fractions of a second are rare here; skip them.
                if index < end, bytes[index] == UInt8(ascii: ".") {
                    index += 1
                    while index < end, isDigit(bytes[index]) { index += 1 }
                }
            }
        }
        while index < end, isSpace(bytes[index]) { index += 1 }
        var offset = 0
        var zoned = false
        if index < end {
            guard let zone = zoneOffset(bytes, &index, end) else { return nil }
            offset = zone
            zoned = true
            // Trailing words such as "(PST)" are ignored.
        }
        return seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: offset)
            .map { ($0, zoned) }
    }

    /// A zone at `index` in seconds east of UTC: `Z`, `+0100`, `-07:00`, `+05`, `GMT`, `EST`, `GMT+2`.
    /// An unknown name of up to four letters is UTC; anything after the zone (`(PST)`) is ignored.
    private static func zoneOffset(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int, _ end: Int) -> Int? {
        let first = bytes[index]
        if first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            let sign = first == UInt8(ascii: "-") ? -1 : 1
            index += 1
            var hours = 0
            let hoursStart = index
            while index < end, index - hoursStart < 2, isDigit(bytes[index]) {
                hours = hours * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            guard index > hoursStart else { return nil }
            var minutes = 0
            if index < end, bytes[index] == UInt8(ascii: ":") { index += 1 }
            if index < end, isDigit(bytes[index]) {
                guard let m = digits(bytes, &index, 2, end) else { return nil }
                minutes = m
            }
            guard hours <= 23, minutes <= 59 else { return nil }
            return sign * (hours * 3600 + minutes * 60)
        }
        guard isLetter(first) else { return nil }
        let nameStart = index
        while index < end, isLetter(bytes[index]) { index += 1 }
        var name: UInt32 = 0
        guard index - nameStart <= 4 else { return nil }
        for position in nameStart..<index { name = name << 8 | UInt32(bytes[position] | 0x20) }
        var offset = namedZones[name] ?? 0
        if index < end, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            guard let extra = zoneOffset(bytes, &index, end) else { return nil }
            offset += extra
        }
        index = end
        return offset
    }

    private static func code(_ text: StaticString) -> UInt32 {
        var value: UInt32 = 0
        text.withUTF8Buffer { for byte in $0 { value = value << 8 | UInt32(byte | 0x20) } }
        return value
    }

    /// Zone names in use in feeds, in seconds east of UTC (RFC 822's names and a few more).
    private static let namedZones: [UInt32: Int] = {
        let hours: [(StaticString, Int)] = [
            ("ut", 0), ("utc", 0), ("gmt", 0), ("z", 0),
            ("est", -5), ("edt", -4), ("cst", -6), ("cdt", -5), ("mst", -7), ("mdt", -6), ("pst", -8), ("pdt", -7),
            ("ast", -4), ("adt", -3), ("et", -5), ("ct", -6), ("mt", -7), ("pt", -8), ("at", -4),
            ("met", 1), ("mest", 2), ("cet", 1), ("cest", 2), ("bst", 1),
            ("a", -1), ("n", 1), ("m", -12), ("y", 12),
        ]
        var table: [UInt32: Int] = [:]
        for (name, offset) in hours { table[code(name)] = offset * 3600 }
        return table
    }()

    /// The months' English names, lowercased, January first.
    package static let monthNames = [
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
        "december",
    ]

    /// The offset east of UTC, in seconds, of the zone abbreviation `name` (`GMT`, `EST`, `CEST`, any case),
    /// or `nil` when it is not one this reader knows.
    package static func zoneOffset(named name: String) -> Int? {
        guard (1...4).contains(name.utf8.count) else { return nil }
        var value: UInt32 = 0
        for byte in name.utf8 { value = value << 8 | UInt32(byte | 0x20) }
        return namedZones[value]
    }

    private static let monthPrefixes: [UInt32] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ].map { (name: StaticString) in code(name) }

    /// The month whose English name (or its first three letters, or `Sept`) is `bytes[start..<end]`.
    private static func monthNumber(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int? {
        guard end - start >= 3 else { return nil }
        let prefix = UInt32(bytes[start] | 0x20) << 16 | UInt32(bytes[start + 1] | 0x20) << 8 | UInt32(bytes[start + 2] | 0x20)
        guard let index = monthPrefixes.firstIndex(of: prefix) else { return nil }
        if end - start > 3 {
            let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self).lowercased()
            guard word == monthNames[index] || word == "sept" else { return nil }
        }
        return index + 1
    }

    // MARK: - Arithmetic

    private static func seconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, offset: Int) -> Double? {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1, day <= CivilDate.daysInMonth(year: year, month: month),
            (0...23).contains(hour) || (hour == 24 && minute == 0 && second == 0), (0...59).contains(minute),
            (0...60).contains(second)
        else { return nil }
        let days = Int64(CivilDate.days(year: year, month: month, day: day))
        let total = days * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59)) - Int64(offset)
        return Double(total)
    }
}
