public import Foundation
import WidgetCore
import WidgetLiquid

extension HTTPClient {
    /// The longest delay ``retryAfter(_:now:)`` returns: 24 hours.
    public static let maximumRetryAfter: Double = RefreshPolicy.longestRetryAfter

    /// The delay, in seconds from `now`, that a `Retry-After` header value asks for.
    ///
    /// Accepts both forms of RFC 9110: delta-seconds (`120`) and an HTTP date — the preferred IMF-fixdate
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`) and the obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and
    /// asctime (`Sun Nov  6 08:49:37 1994`) forms. A date in the past gives `0`; anything longer than
    /// ``maximumRetryAfter`` is capped to it, so a confused server cannot silence a widget for a year. A
    /// negative, fractional or otherwise malformed value (`-1`, `1e9`, `NaN`) is no delay: `nil`.
    ///
    /// ```swift
    /// HTTPClient.retryAfter("120", now: .now)                            // 120
    /// HTTPClient.retryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now: date) // seconds until then, or 0
    /// HTTPClient.retryAfter("soon", now: .now)                           // nil
    /// ```
    public static func retryAfter(_ value: String, now: Date) -> Double? {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        if let seconds = HTTPHeaders.deltaSeconds(text) {
            // Delta-seconds, which the one reader caps at 2³¹ (however many digits): then capped here.
            return min(Double(seconds), maximumRetryAfter)
        }
        // An HTTP date, read by the one internet-date reader (RFC 850's two-digit years: 00–89 are 2000–2089).
        guard let date = InternetDate.parse(text) else { return nil }
        return min(max(0, date.timeIntervalSince(now)), maximumRetryAfter)
    }
}
