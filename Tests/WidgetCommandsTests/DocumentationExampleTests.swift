import Foundation
import Testing
import WidgetJSON
import WidgetTestSupport

@testable import WidgetCore

/// Every widget definition the documentation shows is one `widgetd validate` accepts, so no example rots:
/// each ```` ```json ```` block of the README and of every DocC article whose value is an object with a
/// `source` is written to a definitions folder of its own and validated there, with the environment
/// variables and secret files it names set to stand-ins and the local files its `path` sources name
/// created empty. A block that shows part of a definition (one transform, a snapshot) is not one.
struct DocumentationExampleTests {
    /// One definition shown in the documentation, and where.
    struct Example: CustomStringConvertible {
        var file: String
        var line: Int
        var text: String
        var value: WidgetValue

        var description: String { "\(file):\(line)" }
    }

    /// The README and every DocC article, as paths relative to the package.
    static func documents() throws -> [String] {
        let root = Widgetd.packageRoot
        var files = ["README.md"]
        for module in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path).sorted() {
            let catalogue = "Sources/\(module)/\(module).docc"
            let articles = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(catalogue).path)) ?? []
            files += articles.filter { $0.hasSuffix(".md") }.sorted().map { "\(catalogue)/\($0)" }
        }
        return files
    }

    /// The ```` ```json ```` blocks of `text` that are definitions, their indentation (a block inside a list
    /// item) taken off.
    static func examples(in text: String, file: String) -> [Example] {
        var examples: [Example] = []
        var block: (line: Int, indent: Int, lines: [String])?
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let open = block {
                if trimmed == "```" {
                    let source = open.lines.joined(separator: "\n")
                    if let value = try? JSONReader.read(DefinitionText.prepare(Data(source.utf8)).data),
                        value["source"] != nil
                    {
                        examples.append(Example(file: file, line: open.line, text: source, value: value))
                    }
                    block = nil
                } else {
                    block?.lines.append(String(line.dropFirst(min(open.indent, line.prefix { $0 == " " }.count))))
                }
            } else if trimmed == "```json" {
                block = (index + 2, line.prefix { $0 == " " }.count, [])
            }
        }
        return examples
    }

    static func allExamples() throws -> [Example] {
        try documents().flatMap { file in
            examples(in: try String(contentsOf: Widgetd.packageRoot.appendingPathComponent(file), encoding: .utf8), file: file)
        }
    }

    /// The names after `prefix` (`env.`, `secret.`) in `text`.
    static func names(after prefix: String, in text: String) -> Set<String> {
        var names: Set<String> = []
        var rest = Substring(text)
        while let range = rest.range(of: prefix) {
            let name = rest[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            if !name.isEmpty { names.insert(String(name)) }
            rest = rest[range.upperBound...]
        }
        return names
    }

    /// Every object under a `tls` key, anywhere in `value`.
    static func tlsBlocks(in value: WidgetValue) -> [WidgetValue] {
        switch value {
        case .object(let members):
            members.flatMap { key, member in
                (key == "tls" && member.object != nil ? [member] : []) + tlsBlocks(in: member)
            }
        case .array(let items): items.flatMap { tlsBlocks(in: $0) }
        default: []
        }
    }

    @Test func theDocumentationShowsDefinitions() throws {
        let examples = try Self.allExamples()
        #expect(examples.count >= 2, "found \(examples)")
        #expect(examples.contains { $0.file == "README.md" })
    }

    @Test func everyDefinitionTheDocumentationShowsIsValid() async throws {
        for example in try Self.allExamples() {
            let folder = try TemporaryFolder()
            let name = example.value["id"]?.string.map { "\($0).json" } ?? "example.json"
            try folder.write("widgets.d/\(name)", example.text)
            // The local files its sources and inputs read, as empty files.
            var sources = [example.value["source"]]
            if case .object(let inputs)? = example.value["inputs"] { sources += inputs.values.map { $0 } }
            for source in sources {
                if let path = source?["path"]?.string, !path.contains("{{") {
                    try folder.write("widgets.d/\(path)", "{}")
                }
            }
            try FileManager.default.createDirectory(at: folder.file("secrets"), withIntermediateDirectories: true)
            // The certificates and keys its `tls` blocks name, from the test certificates.
            for tls in Self.tlsBlocks(in: example.value) {
                for (key, fixture) in [("caFile", "ca.pem"), ("certFile", "client.pem"), ("keyFile", "client.key")] {
                    guard let path = tls[key]?.string else { continue }
                    let pem = try String(contentsOf: TLSTestServer.fixtures.appendingPathComponent(fixture), encoding: .utf8)
                    let file = try folder.write("widgets.d/\(path)", pem)
                    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
                }
            }
            var variables: [String: String] = [:]
            for variable in Self.names(after: "env.", in: example.text) { variables[variable] = "stand-in" }
            for secret in Self.names(after: "secret.", in: example.text) { try folder.write("secrets/\(secret)", "stand-in") }
            let output = try await Widgetd.run(
                ["validate", "--config", folder.file("widgets.d").path, "--secrets", folder.file("secrets").path],
                variables: variables)
            #expect(
                output.status == 0,
                "\(example): widgetd validate refuses the definition shown there:\n\(output.stdout)\(output.stderr)")
        }
    }
}
