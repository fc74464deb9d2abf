import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetTestSupport
import WidgetTesting

/// What `widgetd validate` checks beyond the format: the files stages need (a `path` source's file, a
/// `command`'s program), and schedules against their daily budget (a warning).
@Suite(.timeLimit(.minutes(5)))
struct ValidateChecksTests {
    // MARK: - Schedules and maxPerDay

    @Test func aScheduleBeyondMaxPerDayIsAWarningThatDoesNotFailValidate() async throws {
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/data.txt", "[]")
        try folder.write(
            "widgets.d/ticker.json",
            #"""
            {
              "source": { "path": "data.txt" },
              "schedule": { "cron": "*/2 * * * *", "allowFrequent": true, "maxPerDay": 100 }
            }
            """#)
        try folder.write("widgets.d/calm.json", #"{"source": {"path": "data.txt"}, "schedule": {"every": "15m", "maxPerDay": 96}}"#)
        let output = try await Widgetd.run(["validate", "--config", "widgets.d"], in: folder.url)
        #expect(output.status == 0)
        #expect(
            output.stdoutLines == [
                #"widgets.d/ticker.json:3:25: $.schedule.cron: warning: cron "*/2 * * * *" fires 720 times on each day it runs, but maxPerDay is 100: after 100 refreshes in a day the widget waits for the next day; raise "maxPerDay" to 720, or fire less often"#
            ])
        #expect(output.stderrLines == ["2 files checked, 2 widgets valid, 0 problems, 1 warning"])

        let json = try await Widgetd.run(["validate", "--config", "widgets.d", "--format", "json"], in: folder.url)
        #expect(json.status == 0)
        let reported = try #require(try JSONReader.read(Data(json.stdout.utf8)).array)
        #expect(reported.map { $0["severity"] } == ["warning"])
        #expect(reported.map { $0["path"] } == ["$.schedule.cron"])
        #expect(reported.map { $0["line"] } == [3])
    }

    // MARK: - Files the stages need

    /// Runs `validate` on `definitions` (file name → text) in a folder that also holds `files`; `PATH` is
    /// the folder's `bin` (made, empty, when no file goes there) unless `path` is given.
    private func validate(
        _ definitions: [String: String], files: [String: String] = [:], executable: [String] = [], path: String? = nil
    ) async throws -> Widgetd.Output {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.file("bin"), withIntermediateDirectories: true)
        for (name, text) in definitions { try folder.write("widgets.d/\(name)", text) }
        for (name, text) in files { try folder.write(name, text) }
        for name in executable {
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.file(name).path)
        }
        return try await Widgetd.run(
            ["validate", "--config", "widgets.d"], in: folder.url, variables: ["PATH": path ?? folder.file("bin").path])
    }

    @Test func aPathSourceWhoseFileIsMissingIsAnErrorAtItsPath() async throws {
        let output = try await validate([
            "news.json": #"""
            {
              "inputs": { "extra": { "path": "data/extra.json" } },
              "source": { "path": "data/news.json" }
            }
            """#
        ])
        #expect(output.status == 1)
        #expect(
            output.stdoutLines == [
                #"widgets.d/news.json:2:34: $.inputs.extra.path: the file data/extra.json does not exist (looked for widgets.d/data/extra.json); create it, or correct "path" (a relative path starts at the definition's folder)"#,
                #"widgets.d/news.json:3:23: $.source.path: the file data/news.json does not exist (looked for widgets.d/data/news.json); create it, or correct "path" (a relative path starts at the definition's folder)"#,
            ])
    }

    @Test func aPathSourceWhoseFileIsThereIsAccepted() async throws {
        let output = try await validate(
            ["news.json": #"{"inputs": {"extra": {"path": "data/extra.json"}}, "source": {"path": "data/news.json"}}"#],
            files: ["widgets.d/data/news.json": "[]", "widgets.d/data/extra.json": "{}"])
        #expect(output.stdout == "")
        #expect(output.status == 0)
    }

    @Test func aPathSourceThatNamesAFolderIsAnError() async throws {
        let output = try await validate(
            ["news.json": #"{"source": {"path": "data"}}"#], files: ["widgets.d/data/news.json": "[]"])
        #expect(output.status == 1)
        #expect(
            output.stdoutLines == [
                #"widgets.d/news.json:1:21: $.source.path: the file data is a folder, not a regular file; point "path" at a file"#
            ])
    }

    @Test func aCommandProgramThatIsMissingIsAnErrorAtRun() async throws {
        let output = try await validate([
            "jokes.json": #"{"source": {"path": "jokes.json"}, "transforms": [{"type": "command", "run": ["./split.py", "--fast"]}]}"#
        ])
        #expect(output.status == 1)
        #expect(
            output.stdoutLines == [
                #"widgets.d/jokes.json:1:79: $.transforms[0].run[0]: the program ./split.py does not exist (looked for widgets.d/split.py); create it, or correct "run" (a program path with a '/' starts at the definition's folder)"#
            ])
    }

    @Test func aCommandProgramThatIsNotExecutableIsAnErrorWithTheFix() async throws {
        let output = try await validate(
            ["jokes.json": #"{"source": {"path": "jokes.json"}, "transforms": [{"type": "command", "run": ["tools/split.py"]}]}"#],
            files: ["widgets.d/tools/split.py": "import sys\n"])
        #expect(output.status == 1)
        #expect(
            output.stdoutLines == [
                #"widgets.d/jokes.json:1:79: $.transforms[0].run[0]: the program tools/split.py is not executable; make it so (chmod +x widgets.d/tools/split.py), or run it through its interpreter, e.g. ["python3", "split.py"]"#
            ])
    }

    @Test func anExecutableCommandProgramIsAccepted() async throws {
        let output = try await validate(
            ["jokes.json": #"{"source": {"path": "jokes.json"}, "transforms": [{"type": "command", "run": ["tools/split.sh"]}]}"#],
            files: ["widgets.d/tools/split.sh": "#!/bin/sh\ncat\n"], executable: ["widgets.d/tools/split.sh"])
        #expect(output.stdout == "")
        #expect(output.status == 0)
    }

    @Test func aBareProgramNameIsLookedForInPATH() async throws {
        let definitions = ["jokes.json": #"{"source": {"path": "jokes.json"}, "transforms": [{"type": "command", "run": ["splitter"]}]}"#]
        let folder = try TemporaryFolder()
        let missing = try await validate(definitions, path: folder.path)
        #expect(missing.status == 1)
        #expect(
            missing.stdoutLines == [
                "widgets.d/jokes.json:1:79: $.transforms[0].run[0]: the program splitter is not in PATH (\(folder.path)); install it, or write its path (with a '/', relative to the definition's folder)"
            ])
        let found = try await validate(definitions, files: ["bin/splitter": "#!/bin/sh\ncat\n"], executable: ["bin/splitter"])
        #expect(found.stdout == "")
        #expect(found.status == 0)
    }

    @Test func onlyValidateLooksForFilesListStillShowsTheWidget() async throws {
        let folder = try TemporaryFolder()
        try folder.write("widgets.d/news.json", #"{"source": {"path": "later.json"}}"#)
        let list = try await Widgetd.run(["list", "--config", "widgets.d", "--out", "out"], in: folder.url)
        #expect(list.status == 0)
        #expect(list.stdoutLines.count == 2)
    }
}
