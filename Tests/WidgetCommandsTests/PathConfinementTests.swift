import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetTestSupport

/// `path` sources read only inside their definition's folder and the folders `--allow-path` names, and
/// widget ids cannot name files outside the output folder.
@Suite(.timeLimit(.minutes(5)))
struct PathConfinementTests {
    static let document = #"{"items": [1, 2]}"#

    static func widget(path: String) -> String {
        let escaped = path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return #"{"source": {"path": "\#(escaped)"}, "parser": "json", "timeline": "single", "placeholder": {"text": "Loading…"}}"#
    }

    /// A folder with `widgets.d/` and, beside it, `outside/data.json`.
    static func layout() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try folder.write("outside/data.json", document)
        try folder.write("widgets.d/data/inside.json", document)
        return folder
    }

    static func runOnce(_ folder: TemporaryFolder, _ extra: [String] = []) async throws -> Widgetd.Output {
        try await Widgetd.run(["run", "--config", "widgets.d", "--out", "out", "--once"] + extra, in: folder.url)
    }

    static func snapshot(_ id: String, _ folder: TemporaryFolder) throws -> WidgetValue {
        try OutputFolder.snapshot(id, in: folder.file("out"))
    }

    @Test func pathsOutsideTheDefinitionsFolderAreRefusedWithTheExactMessage() async throws {
        let folder = try Self.layout()
        let absolute = folder.file("outside/data.json").path
        try folder.write("widgets.d/inside.json", Self.widget(path: "data/inside.json"))
        try folder.write("widgets.d/dotdot.json", Self.widget(path: "../outside/data.json"))
        try folder.write("widgets.d/sneaky.json", Self.widget(path: "data/../../outside/data.json"))
        try folder.write("widgets.d/absolute.json", Self.widget(path: absolute))
        try folder.write("widgets.d/system.json", Self.widget(path: "/etc/passwd"))

        let output = try await Self.runOnce(folder)
        #expect(output.status == 1)
        #expect(try Self.snapshot("inside", folder)["status"] == "fresh")
        #expect(try Self.snapshot("inside", folder)["entries"]?[0]?["content"] == ["items": [1, 2]])
        let refused = [
            "dotdot": "../outside/data.json", "sneaky": "data/../../outside/data.json", "absolute": absolute, "system": "/etc/passwd",
        ]
        for (id, path) in refused.sorted(by: { $0.key < $1.key }) {
            let snapshot = try Self.snapshot(id, folder)
            #expect(snapshot["status"] == "placeholder", "\(id)")
            #expect(
                snapshot["error"]
                    == .string(
                        "source: the file \(path) is outside the definition's folder; move it there or allow its folder with --allow-path"
                    ),
                "\(id)"
            )
        }
    }

    @Test func allowPathLetsASourceReadAnotherFolder() async throws {
        let folder = try Self.layout()
        try folder.write("widgets.d/dotdot.json", Self.widget(path: "../outside/data.json"))
        try folder.write("widgets.d/absolute.json", Self.widget(path: folder.file("outside/data.json").path))

        #expect(try await Self.runOnce(folder, ["--allow-path", "outside"]).status == 0)
        for id in ["dotdot", "absolute"] {
            let snapshot = try Self.snapshot(id, folder)
            #expect(snapshot["status"] == "fresh", "\(id): \(snapshot["error"] ?? .null)")
            #expect(snapshot["entries"]?[0]?["content"] == ["items": [1, 2]], "\(id)")
        }

        let preview = try await Widgetd.run(["preview", "dotdot", "--config", "widgets.d", "--allow-path", "outside"], in: folder.url)
        #expect(preview.status == 0, "\(preview.stderr)")
        let refused = try await Widgetd.run(["preview", "dotdot", "--config", "widgets.d"], in: folder.url)
        #expect(refused.status == 1)
        #expect(
            refused.stderrLines == [
                "Error: dotdot: source: the file ../outside/data.json is outside the definition's folder; move it there or allow its folder with --allow-path"
            ])
    }

    @Test func symbolicLinkInsideTheFolderToAFileOutsideIsRefused() async throws {
        let folder = try Self.layout()
        try FileManager.default.createSymbolicLink(
            atPath: folder.file("widgets.d/data/link.json").path, withDestinationPath: folder.file("outside/data.json").path)
        try FileManager.default.createSymbolicLink(
            atPath: folder.file("widgets.d/escape").path, withDestinationPath: folder.file("outside").path)
        try FileManager.default.createSymbolicLink(
            atPath: folder.file("widgets.d/data/alias.json").path, withDestinationPath: "inside.json")
        try folder.write("widgets.d/link.json", Self.widget(path: "data/link.json"))
        try folder.write("widgets.d/folderlink.json", Self.widget(path: "escape/data.json"))
        try folder.write("widgets.d/alias.json", Self.widget(path: "data/alias.json"))

        #expect(try await Self.runOnce(folder).status == 1)
        for (id, path) in [("link", "data/link.json"), ("folderlink", "escape/data.json")] {
            #expect(
                try Self.snapshot(id, folder)["error"]
                    == .string(
                        "source: the file \(path) is outside the definition's folder; move it there or allow its folder with --allow-path"
                    ),
                "\(id)"
            )
        }
        // A link that stays inside is followed.
        #expect(try Self.snapshot("alias", folder)["status"] == "fresh")
    }

    @Test func idsThatCouldNameAFileOutsideTheOutputFolderAreValidationErrors() async throws {
        let folder = try TemporaryFolder()
        let body = #""source": {"path": "data/x.json"}, "parser": "json""#
        try folder.write("widgets.d/data/x.json", "{}")
        try folder.write("widgets.d/ok.json", "{\(body)}")
        try folder.write("widgets.d/slash.json", #"{"id": "a/b", \#(body)}"#)
        try folder.write("widgets.d/dotdot.json", #"{"id": "..", \#(body)}"#)
        try folder.write("widgets.d/parent.json", #"{"id": "../evil", \#(body)}"#)
        try folder.write(
            "widgets.d/instances.json", #"{\#(body), "instances": [{"id": "../../evil", "params": {}}, {"id": "a/b", "params": {}}]}"#)

        let output = try await Widgetd.run(["validate", "--config", "widgets.d"], in: folder.url)
        #expect(output.status == 1)
        let rule = "an id is 1 to 64 characters: lowercase letters, digits, '.', '_' or '-', starting with a letter or digit"
        let messages = output.stdoutLines + output.stderrLines
        for expected in [
            #"$.id: "a/b" is not a valid id; \#(rule)"#,
            #"$.id: ".." is not a valid id; \#(rule)"#,
            #"$.id: "../evil" is not a valid id; \#(rule)"#,
            #"$.instances[0].id: "instances.../../evil" is not a valid widget id; \#(rule)"#,
            #"$.instances[1].id: "instances.a/b" is not a valid widget id; \#(rule)"#,
        ] {
            #expect(messages.contains { $0.hasSuffix(expected) }, "\(expected)\n\(messages.joined(separator: "\n"))")
        }

        // Nothing is written for them, and nothing outside the output folder.
        _ = try await Widgetd.run(["run", "--config", "widgets.d", "--out", "out", "--once"], in: folder.url)
        #expect(
            OutputFolder.files(in: folder.file("out")).filter { !$0.hasPrefix(".state/") && !$0.hasPrefix("assets") }.sorted()
                == ["index.html", "index.json", "ok.html", "ok.json", "widgetd.prom"])
        #expect(folder.names() == ["out", "widgets.d"])
    }
}
