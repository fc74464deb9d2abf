import Foundation
import Testing
import WidgetRuntime

/// `Timestamp` writes dates itself; it must write what Foundation's ISO 8601 format style writes.
struct TimestampTests {
    @Test func timestampsAreWhatTheFormatStyleWrites() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        var dates = [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -1), Date(timeIntervalSince1970: -0.5),
            Date(timeIntervalSince1970: 951_782_400), Date(timeIntervalSince1970: 1_795_739_153.999_7),
            Date(timeIntervalSince1970: 4_107_542_399), Date(timeIntervalSince1970: -62_135_596_799),
            Date(timeIntervalSince1970: 253_402_300_799.25),
        ]
        for _ in 0..<5_000 {
            // From the year 1 to 9999, with fractions of a second.
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let seconds = Double(seed >> 11) / Double(1 << 53) * 315_537_897_599 - 62_135_596_800
            dates.append(Date(timeIntervalSince1970: seconds))
        }
        let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        for date in dates {
            #expect(Timestamp.string(date) == date.formatted(.iso8601), "\(date.timeIntervalSince1970)")
            #expect(Timestamp.milliseconds(date) == date.formatted(fractional), "\(date.timeIntervalSince1970)")
        }
        #expect(Timestamp.string(Date(timeIntervalSince1970: 1_795_739_153.9)) == "2026-11-27T00:25:53Z")
    }
}
