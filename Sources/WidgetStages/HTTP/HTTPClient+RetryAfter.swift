public import Foundation

extension HTTPClient {
    /// The longest delay ``retryAfter(_:now:)`` returns: 24 hours.
    public static let maximumRetryAfter: Double = 24 * 3600

    /// The delay, in seconds from `now`, that a `Retry-After` header value asks for.
    ///
    /// Accepts both forms of RFC 9110: delta-seconds (`120`) and an HTTP date — the preferred IMF-fixdate
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`) and the obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and
    /// asctime (`Sun Nov  6 08:49:37 1994`) forms. A date in the past gives `0`; anything longer than
    /// ``maximumRetryAfter`` is capped to it, so a confused server cannot silence a widget for a year.
    ///
    /// ```swift
    /// HTTPClient.retryAfter("120", now: .now)                            // 120
    /// HTTPClient.retryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now: date) // seconds until then, or 0
    /// HTTPClient.retryAfter("soon", now: .now)                           // nil
    /// ```
    public static func retryAfter(_ value: String, now: Date) -> Double? {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        if text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            guard let seconds = Double(text) else { return nil }
            return min(seconds, maximumRetryAfter)
        }
        guard let date = httpDate(text, now: now) else { return nil }
        return min(max(0, date.timeIntervalSince(now)), maximumRetryAfter)
    }

    /// Parses the three HTTP date forms; RFC 850's two-digit years fall within the 50 years before `now`
    /// and the 50 after, as RFC 9110 asks.
    static func httpDate(_ text: String, now: Date) -> Date? {
        let collapsed = text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        let formats = [
            "EEE, dd MMM yyyy HH:mm:ss zzz",  // IMF-fixdate
            "EEEE, dd-MMM-yy HH:mm:ss zzz",  // RFC 850
            "EEE MMM d HH:mm:ss yyyy",  // asctime
        ]
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.isLenient = false
        formatter.twoDigitStartDate = now.addingTimeInterval(-50 * 365.25 * 24 * 3600)
        for format in formats {
            formatter.dateFormat = format
            if let date = formatter.date(from: collapsed) { return date }
        }
        return nil
    }
}
