import Foundation
import Testing
import WidgetCore
import WidgetLiquid

@testable import WidgetStages

struct InternetDateTests {
    @Test(arguments: [
        ("Tue, 10 Jun 2003 04:00:00 GMT", "2003-06-10T04:00:00Z"),
        ("10 Jun 2003 04:00:00 GMT", "2003-06-10T04:00:00Z"),
        ("Tue, 10 Jun 2003 04:00 GMT", "2003-06-10T04:00:00Z"),
        ("Tue, 10 Jun 03 04:00:00 GMT", "2003-06-10T04:00:00Z"),
        ("Fri, 31 Dec 99 23:59:59 EST", "2000-01-01T04:59:59Z"),
        ("Tue, 10 Jun 2003 04:00:00 PDT", "2003-06-10T11:00:00Z"),
        ("Tue, 10 Jun 2003 04:00:00 PST", "2003-06-10T12:00:00Z"),
        ("Tue, 10 Jun 2003 04:00:00 EDT", "2003-06-10T08:00:00Z"),
        ("Tue, 10 Jun 2003 04:00:00 CST", "2003-06-10T10:00:00Z"),
        ("Tue, 10 Jun 2003 04:00:00 UT", "2003-06-10T04:00:00Z"),
        ("Tue, 10 Jun 2003 04:00:00 Z", "2003-06-10T04:00:00Z"),
        ("Tue, 10 Jun 2003 04:00:00 +0530", "2003-06-09T22:30:00Z"),
        ("Tue, 10 Jun 2003 04:00:00 -07:00", "2003-06-10T11:00:00Z"),
        ("Sun, 1 Jun 2003 4:05:06 -0800", "2003-06-01T12:05:06Z"),
        ("Tuesday, 10 June 2003 04:00:00 GMT", "2003-06-10T04:00:00Z"),
        ("Tue, 10 Jun 2003 04:00:00", "2003-06-10T04:00:00Z"),
        ("Jun 10 2003 04:00:00 GMT", "2003-06-10T04:00:00Z"),
        ("June 10, 2003 04:00:00 -07:00", "2003-06-10T11:00:00Z"),
        ("Sat, 07 Sep 2002 00:00:01 GMT+2", "2002-09-06T22:00:01Z"),
        ("Wed, 02 Oct 2002 08:00:00 EST (Eastern)", "2002-10-02T13:00:00Z"),
        ("  Wed, 02 Oct 2002 13:00:00 GMT\n", "2002-10-02T13:00:00Z"),
        ("2003-12-13T18:30:02Z", "2003-12-13T18:30:02Z"),
        ("2003-12-13T18:30:02.25Z", "2003-12-13T18:30:02.250Z"),
        ("2003-12-13T18:30:02.123456+01:00", "2003-12-13T17:30:02.123Z"),
        ("2003-12-13T09:17:51-08:00", "2003-12-13T17:17:51Z"),
        ("2003-12-13 18:30:02+0000", "2003-12-13T18:30:02Z"),
        ("2003-12-13T18:30Z", "2003-12-13T18:30:00Z"),
        ("2003-12-13", "2003-12-13T00:00:00Z"),
        ("2024-02-29T12:00:00Z", "2024-02-29T12:00:00Z"),
        ("1969-12-31T23:59:59Z", "1969-12-31T23:59:59Z"),
    ])
    func readsEveryDateShapeAsAnInstant(input: String, expected: String) {
        #expect(InternetDate.normalize(input) == expected)
    }

    @Test(arguments: [
        "", "sometime last week", "Tue, 32 Jun 2003 04:00:00 GMT", "2003-13-01T00:00:00Z", "2023-02-29",
        "Tue, 10 Foo 2003 04:00:00 GMT", "2003-06-10T25:00:00Z", "10 Jun 2003 04:00:00 +99", "2003-06-10T04:00:00Zjunk",
    ])
    func rejectsWhatIsNoDate(input: String) {
        #expect(InternetDate.parse(input) == nil)
    }

    @Test func fuzzSeedsAreFeedsAndDates() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/fuzz-corpus")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        #expect(files.count >= 10)
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: file))
            switch bytes.first {
            case 4: _ = try FeedParser().read(Payload(data: Data(bytes.dropFirst()), origin: file.lastPathComponent))
            case 5: #expect(InternetDate.parse(String(decoding: bytes.dropFirst(), as: UTF8.self)) != nil, "\(file.lastPathComponent)")
            default: break  // the other parsers' seeds, replayed by their own tests
            }
        }
    }

    @Test func agreesWithFoundationOnRFC3339() throws {
        let formatter = ISO8601DateFormatter()
        for text in ["2026-11-22T05:00:03Z", "1999-01-01T00:00:00+14:00", "2100-03-01T23:59:59-12:00"] {
            #expect(InternetDate.parse(text) == formatter.date(from: text))
        }
    }
}

/// What the one internet-date reader does for HTTP and Liquid besides feeds.
struct InternetDateForHTTPAndLiquidTests {
    @Test func asctimeAndRFC850AreReadAsHTTPAllows() {
        #expect(InternetDate.normalize("Sun Nov  6 08:49:37 1994") == "1994-11-06T08:49:37Z")
        #expect(InternetDate.normalize("Sunday, 06-Nov-94 08:49:37 GMT") == "1994-11-06T08:49:37Z")
        #expect(InternetDate.normalize("Sun, 06 Nov 1994 08:49:37 GMT") == "1994-11-06T08:49:37Z")
        // A time before the year without seconds is no asctime.
        #expect(InternetDate.parse("Nov 6 08:49 1994") == nil)
    }

    @Test func parseZonedReadsOnlyDatesThatNameTheirZone() {
        #expect(InternetDate.parseZoned("2016-03-14T10:00:00+01:00") == InternetDate.parse("2016-03-14T09:00:00Z"))
        #expect(InternetDate.parseZoned("Mon, 14 Mar 2016 10:00:00 EST") == InternetDate.parse("2016-03-14T15:00:00Z"))
        #expect(InternetDate.parseZoned("2016-03-14T10:00:00") == nil)
        #expect(InternetDate.parseZoned("Mon, 14 Mar 2016 10:00:00") == nil)
        #expect(InternetDate.parseZoned("2016-03-14") == nil)
    }

    @Test func zoneNamesHaveOneTable() {
        #expect(InternetDate.zoneOffset(named: "GMT") == 0)
        #expect(InternetDate.zoneOffset(named: "pdt") == -7 * 3600)
        #expect(InternetDate.zoneOffset(named: "BST") == 3600)
        #expect(InternetDate.zoneOffset(named: "CEST") == 7200)
        #expect(InternetDate.zoneOffset(named: "Mars") == nil)
        #expect(InternetDate.monthNames.count == 12)
    }
}
