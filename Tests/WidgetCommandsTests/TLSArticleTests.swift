import Foundation
import Synchronization
import Testing
import WidgetCommands
import WidgetCore
import WidgetStages
import WidgetTestSupport
import WidgetTesting

/// Every definition the TLS article shows passes `widgetd validate`, with the files it names in place.
struct TLSArticleTests {
    @Test func everyDefinitionInTheArticleValidates() async throws {
        let article = try String(
            contentsOf: Widgetd.packageRoot.appendingPathComponent("Sources/WidgetCommands/WidgetCommands.docc/TLS.md"), encoding: .utf8)
        let blocks = article.components(separatedBy: "```json\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
        #expect(blocks.count == 4)
        let folder = try TemporaryFolder()
        // The files the definitions name, from the test certificates.
        let files = [
            "pve-root-ca.pem": "ca.pem", "truenas.pem": "self-signed.pem", "homelab-ca.pem": "ca.pem", "widgetd.pem": "client.pem",
            "widgetd.key": "client.key",
        ]
        for (name, fixture) in files {
            try folder.write("widgets.d/certs/\(name)", try String(contentsOfFile: TLSTestServer.file(fixture), encoding: .utf8))
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: folder.file("widgets.d/certs/widgetd.key").path)
        for name in ["pve_token", "truenas_api_key", "ha_token"] { try folder.write("secrets/\(name)", "x") }
        for (index, block) in blocks.enumerated() { try folder.write("widgets.d/example-\(index).json", block) }

        let output = Mutex<[String]>([])
        let environment = CommandEnvironment(
            registry: .builtIn, clock: ManualClock(now: Date()), variables: [:],
            print: { line in output.withLock { $0.append(line) } }, printError: { line in output.withLock { $0.append(line) } })
        let status = await WidgetCommandLine.main(
            ["validate", "--config", folder.file("widgets.d").path, "--secrets", folder.file("secrets").path], environment: environment)
        let printed = output.withLock { $0.joined(separator: "\n") }
        #expect(status == 0, "\(printed)")
        #expect(printed.contains("4 widgets valid, 0 problems, 1 warning"), "\(printed)")
    }
}
