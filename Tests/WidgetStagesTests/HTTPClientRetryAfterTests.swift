import Foundation
import Testing
import WidgetStages

struct HTTPClientRetryAfterTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT.
    private let date = Date(timeIntervalSince1970: 784_111_777)

    @Test func deltaSecondsAreReadAsSeconds() {
        #expect(HTTPClient.retryAfter("120", now: date) == 120)
        #expect(HTTPClient.retryAfter(" 0 ", now: date) == 0)
    }

    @Test func deltaSecondsAreCappedAtOneDay() {
        #expect(HTTPClient.retryAfter("999999999", now: date) == 86_400)
    }

    @Test func anIMFFixdateIsReadRelativeToNow() {
        let now = date.addingTimeInterval(-90)
        #expect(HTTPClient.retryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == 90)
    }

    @Test func theObsoleteRFC850AndAsctimeFormsAreRead() {
        let now = date.addingTimeInterval(-60)
        #expect(HTTPClient.retryAfter("Sunday, 06-Nov-94 08:49:37 GMT", now: now) == 60)
        #expect(HTTPClient.retryAfter("Sun Nov  6 08:49:37 1994", now: now) == 60)
    }

    @Test func aDateInThePastMeansNow() {
        #expect(HTTPClient.retryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now: date.addingTimeInterval(3600)) == 0)
    }

    @Test func aDateFarAheadIsCappedAtOneDay() {
        #expect(HTTPClient.retryAfter("Fri, 06 Nov 1998 08:49:37 GMT", now: date) == 86_400)
    }

    @Test(arguments: ["", "soon", "-5", "1.5", "12 s", "Sun, 32 Nov 1994 08:49:37 GMT"])
    func anythingElseIsNotADelay(_ value: String) {
        #expect(HTTPClient.retryAfter(value, now: date) == nil)
    }
}
