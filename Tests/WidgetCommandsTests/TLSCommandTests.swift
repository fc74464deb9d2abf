import Foundation
import Synchronization
import Testing
import WidgetCommands
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages
import WidgetTestSupport
import WidgetTesting

/// A widget read over mutual TLS and one read without verification, through `validate`, `run --once`,
/// `status` and `preview --trace`: the unverified one is shown as such, and the client key's path and
/// content appear nowhere.
struct TLSCommandTests {
    let folder: TemporaryFolder
    let clock = ManualClock(now: Date())

    init() throws {
        folder = try TemporaryFolder()
    }

    private func widgetd(_ arguments: [String]) async -> (status: Int32, stdout: String, stderr: String) {
        let output = Mutex<[String]>([])
        let errors = Mutex<[String]>([])
        let environment = CommandEnvironment(
            registry: .builtIn, clock: clock, variables: [:],
            print: { line in output.withLock { $0.append(line) } },
            printError: { line in errors.withLock { $0.append(line) } }
        )
        let status = await WidgetCommandLine.main(arguments, environment: environment)
        return (status, output.withLock { $0.joined(separator: "\n") }, errors.withLock { $0.joined(separator: "\n") })
    }

    /// Every file under `url`, as text.
    private func texts(under url: URL) -> [String: String] {
        var found: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil)
        while let file = enumerator?.nextObject() as? URL {
            if let data = try? Data(contentsOf: file) { found[file.path] = String(decoding: data, as: UTF8.self) }
        }
        return found
    }

    @Test func theUnverifiedWidgetIsShownAndTheKeyNowhere() async throws {
        let nas = try TLSTestServer(certificate: "server", clientCA: "client-ca")
        let lab = try TLSTestServer(certificate: "self-signed")
        let key = try String(contentsOfFile: TLSTestServer.file("client.key"), encoding: .utf8)
        // A line of the key's base64, and a path that names it.
        let keyLine = try #require(key.split(separator: "\n").dropFirst().first.map(String.init))
        for name in ["ca.pem", "client.pem"] {
            try folder.write("widgets.d/certs/\(name)", try String(contentsOfFile: TLSTestServer.file(name), encoding: .utf8))
        }
        try folder.write("widgets.d/certs/widgetd-client-key.pem", key)
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o600], ofItemAtPath: folder.file("widgets.d/certs/widgetd-client-key.pem").path)
        try folder.write(
            "widgets.d/nas.json",
            #"""
            {"source": {"url": "\#(nas.url("/api/pools").absoluteString)",
                        "tls": {"caFile": "certs/ca.pem", "certFile": "certs/client.pem", "keyFile": "certs/widgetd-client-key.pem"}},
             "schedule": {"every": "5m"}}
            """#)
        try folder.write(
            "widgets.d/lab.json",
            #"{"source": {"url": "\#(lab.url("/api").absoluteString)", "tls": {"verify": false}}, "schedule": {"every": "5m"}}"#)
        let config = folder.file("widgets.d").path
        let out = folder.file("out").path

        let validate = await widgetd(["validate", "--config", config])
        #expect(validate.status == 0, "\(validate.stderr)")
        #expect(validate.stdout.contains("$.source.tls.verify"), "\(validate.stdout)\n\(validate.stderr)")
        #expect(
            (validate.stdout + validate.stderr).contains(
                "reads 127.0.0.1:\(lab.port) without verifying its TLS certificate (\"verify\": false)"))

        let run = await widgetd(["run", "--config", config, "--out", out, "--once"])
        #expect(run.status == 0, "\(run.stderr)")
        let status = await widgetd(["status", "--out", out])
        #expect(
            status.stdout.contains("lab: source: reads 127.0.0.1:\(lab.port) without verifying its TLS certificate"), "\(status.stdout)")
        let json = await widgetd(["status", "--out", out, "--format", "json"])
        let widgets = try JSONReader.read(json.stdout)["widgets"]?.array ?? []
        #expect(widgets.map { $0["status"] } == ["fresh", "fresh"], "\(json.stdout)")
        #expect(widgets.first { $0["id"] == "lab" }?["warnings"]?.array?.count == 1)
        #expect(widgets.first { $0["id"] == "nas" }?["warnings"] == [])

        let trace = await widgetd(["preview", "nas", "--config", config, "--trace"])
        let traceJSON = await widgetd(["preview", "nas", "--config", config, "--trace", "--format", "json"])
        #expect(trace.status == 0, "\(trace.stderr)")
        var shown = [validate.stdout, validate.stderr, run.stdout, run.stderr, status.stdout, json.stdout]
        shown += [trace.stdout, trace.stderr, traceJSON.stdout, traceJSON.stderr]
        shown += texts(under: folder.file("out")).values
        for text in shown {
            #expect(!text.contains("widgetd-client-key"))
            #expect(!text.contains(keyLine))
        }
    }
}
