import Foundation
import Testing
import WidgetTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What widgetd is given cannot hold it or fill its memory: a definition file over 1 MiB is refused from
/// its size, and something in the folder that is not a file is named, not read.
struct DefinitionLimitsTests {
    @Test func anOversizedDefinitionIsRefusedBeforeItIsParsed() async throws {
        let folder = try TemporaryFolder()
        // Valid JSON just over the limit: only its size is wrong.
        let padding = String(repeating: "x", count: 1 << 20)
        try folder.write("widgets.d/huge.json", #"{"source": {"path": "data/a.json"}, "parser": "json", "description": "\#(padding)"}"#)
        try folder.write("widgets.d/small.json", #"{"source": {"path": "data/a.json"}, "parser": "json"}"#)
        try folder.write("widgets.d/data/a.json", "{}")
        let result = try await Widgetd.run(["validate", "--config", "widgets.d"], in: folder.url)
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                "widgets.d/huge.json: the file is larger than 1048576 bytes, the limit for a definition"
            ), "\(result.stdout)")
        #expect(!result.stdout.contains("small.json"), "\(result.stdout)")
    }

    @Test func aTemplateThatCanOnlyGrowPastItsLimitIsReportedByValidate() async throws {
        let folder = try TemporaryFolder()
        let padding = String(repeating: "y", count: 40)
        try folder.write(
            "widgets.d/grows.json",
            #"""
            {"source": {"path": "data/a.json"}, "parser": "json",
             "transforms": [{"type": "map", "fields": {"n": "{{ (1..99999) | join | replace: ' ', '\#(padding)' }}",
                                                         "r": "{{ (1..1000000) | size }}", "ok": "{{ (1..3) | join: '-' }}"}}]}
            """#)
        try folder.write("widgets.d/data/a.json", "{}")
        let result = try await Widgetd.run(["validate", "--config", "widgets.d"], in: folder.url)
        #expect(result.status == 1)
        #expect(
            result.stdout.contains("$.transforms[0].fields.n: this template can never render: replace would make a text of"),
            "\(result.stdout)")
        #expect(
            result.stdout.contains(
                "$.transforms[0].fields.r: this template can never render: the range (1..1000000) has more than 100000 numbers"),
            "\(result.stdout)")
        #expect(!result.stdout.contains("fields.ok"), "\(result.stdout)")
    }

    @Test func aFIFOInTheFolderIsNamedNotWaitedFor() async throws {
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/small.json", #"{"source": {"path": "data/a.json"}, "parser": "json"}"#)
        try folder.write("widgets.d/data/a.json", "{}")
        // A FIFO with no writer: a blocking open would wait for ever.
        #expect(mkfifo(folder.file("widgets.d/pipe.json").path, 0o600) == 0)
        let result = try await Widgetd.run(["validate", "--config", "widgets.d"], in: folder.url)
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                "widgets.d/pipe.json: this is a FIFO, not a regular file; only definition files belong in this folder"
            ), "\(result.stdout)")
    }
}
