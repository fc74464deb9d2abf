import Foundation
import Testing
import WidgetJSON
import WidgetTestSupport

/// The Notifications article shows one definition for each receiver it names, each in that receiver's
/// wire format, and `widgetd validate` accepts them all.
struct NotificationExampleTests {
    static let file = "Sources/WidgetCommands/WidgetCommands.docc/Notifications.md"

    /// The article's definitions with `notify`, by id.
    static func examples() throws -> [String: DocumentationExampleTests.Example] {
        let text = try String(contentsOf: Widgetd.packageRoot.appendingPathComponent(file), encoding: .utf8)
        var examples: [String: DocumentationExampleTests.Example] = [:]
        for example in DocumentationExampleTests.examples(in: text, file: file) where example.value["notify"] != nil {
            examples[example.value["id"]?.string ?? "example"] = example
        }
        return examples
    }

    @Test func eachReceiverHasAnExampleInItsWireFormat() throws {
        let examples = try Self.examples()
        func webhook(_ id: String) throws -> WidgetValue {
            try #require(examples[id]?.value["notify"]?[0]?["webhook"], "no example \(id) in \(Self.file)")
        }
        let ntfy = try webhook("portfolio-ntfy")
        #expect(ntfy["url"]?.string?.hasPrefix("https://ntfy.sh/") == true)
        #expect(ntfy["headers"]?["Title"] != nil && ntfy["body"]?.string != nil)
        #expect(try webhook("build-slack")["body"]?["text"] != nil)
        #expect(try webhook("status-discord")["body"]?["content"] != nil)
        let matrix = try webhook("torrents-matrix")
        #expect(matrix["method"] == "PUT")
        #expect(matrix["url"]?.string?.contains("/_matrix/client/v3/rooms/") == true)
        #expect(matrix["url"]?.string?.hasSuffix("/send/m.room.message/{{ notification.id }}") == true)
        #expect(matrix["headers"]?["Authorization"]?.string?.hasPrefix("Bearer ") == true)
        #expect(matrix["body"]?["msgtype"] == "m.text")
        let gotify = try webhook("backup-gotify")
        #expect(gotify["url"]?.string?.hasSuffix("/message") == true)
        #expect(gotify["headers"]?["X-Gotify-Key"] != nil)
        #expect(gotify["body"]?["title"] != nil && gotify["body"]?["message"] != nil && gotify["body"]?["priority"] != nil)
        #expect(try webhook("price-home-assistant")["url"]?.string?.contains("/api/webhook/") == true)
    }

    @Test func widgetdValidateAcceptsEveryExample() async throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.file("secrets"), withIntermediateDirectories: true)
        let examples = try Self.examples()
        for (id, example) in examples {
            try folder.write("widgets.d/\(id).json", example.text)
            for secret in DocumentationExampleTests.names(after: "secret.", in: example.text) {
                try folder.write("secrets/\(secret)", "stand-in")
            }
        }
        let output = try await Widgetd.run(
            ["validate", "--config", folder.file("widgets.d").path, "--secrets", folder.file("secrets").path])
        #expect(examples.count >= 7)
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
        #expect(
            (output.stdout + output.stderr).contains("\(examples.count) files checked, \(examples.count) widgets valid"),
            "\(output.stdout)\(output.stderr)")
    }
}
