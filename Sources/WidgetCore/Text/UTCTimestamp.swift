package import Foundation

/// RFC 3339 timestamps in UTC as Foundation's ISO 8601 format style writes them,
/// `2026-11-22T05:00:03Z`, written directly: the format style was a tenth of writing a snapshot.
package enum UTCTimestamp {
    /// `date` to the second, or with milliseconds (`2026-11-22T05:00:03.042Z`).
    package static func string(_ date: Date, milliseconds: Bool = false) -> String {
        if let text = format(date, milliseconds: milliseconds) { return text }
        return milliseconds ? date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)) : date.formatted(.iso8601)
    }

    /// The timestamp of `date` written directly (Foundation's format style was a tenth of writing a
    /// snapshot); `nil` outside the years 1900 to 9999, which the format style writes (before the
    /// Gregorian calendar, in the Julian).
    static func format(_ date: Date, milliseconds: Bool) -> String? {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, interval >= -2_208_988_800, interval < 253_402_300_800 else { return nil }
        let whole = interval.rounded(.down)
        let seconds = Int64(whole)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = Int(seconds - days * 86_400)
        // Days since 1970-01-01 to the civil date (proleptic Gregorian), after Howard Hinnant's algorithm.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        let month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        let year = Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        func append(_ value: Int, digits: Int) {
            var divisor = 1
            for _ in 1..<digits { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(48 + rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        append(year, digits: 4)
        bytes.append(UInt8(ascii: "-"))
        append(month, digits: 2)
        bytes.append(UInt8(ascii: "-"))
        append(day, digits: 2)
        bytes.append(UInt8(ascii: "T"))
        append(time / 3_600, digits: 2)
        bytes.append(UInt8(ascii: ":"))
        append(time / 60 % 60, digits: 2)
        bytes.append(UInt8(ascii: ":"))
        append(time % 60, digits: 2)
        if milliseconds {
            bytes.append(UInt8(ascii: "."))
            append(min(999, Int(((interval - whole) * 1000).rounded(.down))), digits: 3)
        }
        bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
