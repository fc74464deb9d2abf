import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetTestSupport

/// Text from outside (a server's error, a file name) never reaches a log as raw control characters: one
/// record stays one line, and no escape sequence reaches the terminal.
struct LogControlCharacterTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let hostile = "news: source: HTTP 500: \u{1B}[2J\u{1B}]0;owned\u{07}a\u{0}b\rc\nd\te\u{7F}f\u{9B}31mg"

    @Test func textEscapesEveryControlButTabOnOneLine() throws {
        let line = try #require(LogFormat().line(LogRecord(.warning, "refresh-failed", Self.hostile), at: Self.now))
        #expect(
            line
                == #"\#(Timestamp.string(Self.now)) news: source: HTTP 500: \u{1B}[2J\u{1B}]0;owned\u{7}a\u{0}b\rc\nd"#
                + "\t" + #"e\u{7F}f\u{9B}31mg"#)
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" || (0x7F...0x9F).contains($0.value) })
    }

    @Test func textWithoutControlsIsUnchanged() throws {
        let message = "quotes: fresh, 3 entries in 8 ms — «ok» \\ done"
        #expect(LogFormat().line(LogRecord(.info, "refreshed", message), at: Self.now) == "\(Timestamp.string(Self.now)) \(message)")
    }

    @Test func jsonEscapesDeleteAndC1TooAndReadsBackTheSame() throws {
        let record = LogRecord(.warning, "refresh-failed", Self.hostile, error: Self.hostile)
        let line = try #require(LogFormat(style: .json).line(record, at: Self.now))
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(line.contains(#"\u001b[2J"#) && line.contains(#"\u007ff\u009b31mg"#))
        let object = try JSONReader.read(Data(line.utf8))
        #expect(object["message"] == .string(Self.hostile))
        #expect(object["error"] == .string(Self.hostile))
    }

    @Test func aRefreshFailureNamingAFileWithControlsLogsOneEscapedLine() async throws {
        let folder = try TemporaryFolder()
        try folder.write(
            "widgets.d/odd.json", #"{"source": {"path": "data/\u001b[31mred\u0000.json"}, "parser": "json", "timeline": "single"}"#)
        let output = try await Widgetd.run(["run", "--config", "widgets.d", "--out", "out", "--once"], in: folder.url)
        #expect(output.status == 1)
        #expect(!output.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        let failure = try #require(output.stderrLines.first { $0.contains("odd:") })
        #expect(failure.contains(#"data/\u{1B}[31mred\u{0}.json"#), "\(failure)")
    }
}
