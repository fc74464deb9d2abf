import Foundation
import Testing
import WidgetCore
import WidgetJSON

/// A stage that needs a file on the machine (``LocalFileDependent``), checked by a reader given a
/// ``LocalFileCheck`` as `validate` gives it, and not by one without (as `run` reads).
struct LocalFileCheckTests {
    /// A plugin-like transform that reads a certificate file named by its `certificate` option.
    struct SigningTransform: Transformer, LocalFileDependent {
        struct Options: Decodable, Sendable { var certificate: String }
        static let typeName = "sign"
        let certificate: String

        init(options: Options) { certificate = options.certificate }

        var localFiles: [LocalFile] {
            [LocalFile(path: certificate, option: ValuePath.root.appending("certificate"), use: .read)]
        }

        func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue { value }
    }

    static let registry: StageRegistry = {
        var builder = StageRegistry.Builder()
        builder.register(TestStages.PathFetcher.self)
        builder.register(TestStages.PlainJSONParser.self)
        builder.register(TestStages.OneEntryTimeline.self)
        builder.register(SigningTransform.self)
        do {
            return try builder.build()
        } catch {
            preconditionFailure("\(error)")
        }
    }()

    /// A fresh folder holding `files`, removed by the caller.
    private func folder(with files: [String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("widgetd-local-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in files { try Data("x".utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    private static let definition = #"""
        {
          "source": { "path": "data.json" },
          "transforms": [ { "type": "sign", "certificate": "keys/cert.pem" } ]
        }
        """#

    @Test func aPluginStagesMissingFileIsReportedAtItsOption() throws {
        let root = try folder(with: ["data.json"])
        defer { try? FileManager.default.removeItem(at: root) }
        let reader = DefinitionReader(registry: Self.registry, localFiles: LocalFileCheck(searchPath: nil))
        let result = reader.read(Data(Self.definition.utf8), file: root.path + "/signed.json")
        #expect(result.widgets.isEmpty)
        #expect(
            result.diagnostics.map { "\($0.location.map { "\($0.line):\($0.column)" } ?? "?") \($0.path?.description ?? "") \($0.message)" }
                == [
                    "3:52 $.transforms[0].certificate the file keys/cert.pem does not exist (looked for \(root.path)/keys/cert.pem); create it, or correct \"certificate\" (a relative path starts at the definition's folder)"
                ])
    }

    @Test func theFilesThereAreAccepted() throws {
        let root = try folder(with: ["data.json"])
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("keys"), withIntermediateDirectories: true)
        try Data("pem".utf8).write(to: root.appendingPathComponent("keys/cert.pem"))
        let reader = DefinitionReader(registry: Self.registry, localFiles: LocalFileCheck(searchPath: nil))
        let result = reader.read(Data(Self.definition.utf8), file: root.path + "/signed.json")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        #expect(result.widgets.count == 1)
    }

    @Test func aReaderWithoutTheCheckLoadsTheDefinitionAsRunDoes() throws {
        let result = DefinitionReader(registry: Self.registry).read(Data(Self.definition.utf8), file: "/nonexistent-folder/signed.json")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        #expect(result.widgets.count == 1)
    }

    @Test func aBareProgramIsLookedForInEachFolderOfTheSearchPath() throws {
        let empty = try folder(with: [])
        let tools = try folder(with: ["tool"])
        defer {
            try? FileManager.default.removeItem(at: empty)
            try? FileManager.default.removeItem(at: tools)
        }
        let program = LocalFile(path: "tool", option: ValuePath.root.appending("run").appending(index: 0), use: .run)
        let check = LocalFileCheck(searchPath: "\(empty.path):\(tools.path)")
        // There, but not executable: not what posix_spawnp would start.
        #expect(check.problem(with: program, definitionFolder: "widgets.d")?.hasPrefix("the program tool is not in PATH (") == true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tools.appendingPathComponent("tool").path)
        #expect(check.problem(with: program, definitionFolder: "widgets.d") == nil)
        #expect(LocalFileCheck(searchPath: nil).searchPath == ["/bin", "/usr/bin"])
    }
}
