import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTestSupport

/// What `validate` says about the TLS settings of a definition: its files, a key others may read, and
/// `"verify": false`; and what every refresh then says.
struct TLSValidationTests {
    /// A definitions folder with the fixtures' CA, client certificate and key under `certs/`, the key
    /// with `keyMode`.
    private func folder(keyMode: Int16 = 0o600) throws -> TemporaryFolder {
        let folder = try TemporaryFolder("widgetd-tls")
        for name in ["ca.pem", "client.pem", "client.key"] {
            try folder.write("certs/\(name)", try String(contentsOfFile: TLSTestServer.file(name), encoding: .utf8))
        }
        try FileManager.default.setAttributes([.posixPermissions: keyMode], ofItemAtPath: folder.file("certs/client.key").path)
        try folder.write("certs/notes.txt", "not a certificate\n")
        return folder
    }

    private func validate(_ tls: String, in folder: TemporaryFolder) -> DefinitionReader.Result {
        let definition = #"{"source": {"url": "https://nas.lan:8443/api/status", "tls": \#(tls)}}"#
        let reader = DefinitionReader(registry: .builtIn, localFiles: LocalFileCheck(searchPath: nil))
        return reader.read(Data(definition.utf8), file: folder.path + "/nas.json")
    }

    private func lines(_ diagnostics: [Diagnostic]) -> [String] {
        diagnostics.map { "\($0.path?.description ?? "") \($0.message)" }
    }

    @Test func readableFilesAndAPrivateKeyPassQuietly() throws {
        let folder = try folder()
        let result = validate(#"{"caFile": "certs/ca.pem", "certFile": "certs/client.pem", "keyFile": "certs/client.key"}"#, in: folder)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        #expect(result.widgets.count == 1)
    }

    @Test func aKeyOthersMayReadDrawsAWarningWithoutItsPath() throws {
        let folder = try folder(keyMode: 0o644)
        let result = validate(#"{"certFile": "certs/client.pem", "keyFile": "certs/client.key"}"#, in: folder)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        #expect(
            lines(result.warnings) == [
                "$.source.tls.keyFile the key file tls.keyFile may be read by other users (mode 644); make it readable by its owner only (chmod 600), as the secrets folder is"
            ])
    }

    @Test func missingAndNonPEMFilesAreProblemsAtTheirOptions() throws {
        let folder = try folder()
        let result = validate(
            #"{"caFile": "certs/notes.txt", "certFile": "certs/missing.pem", "keyFile": "certs/secret-name.key"}"#, in: folder)
        #expect(
            lines(result.diagnostics) == [
                "$.source.tls.caFile the file certs/notes.txt (tls.caFile) holds no PEM certificate (-----BEGIN CERTIFICATE-----); convert it, e.g. openssl x509 -inform DER -in FILE -out FILE.pem",
                "$.source.tls.certFile the file certs/missing.pem (tls.certFile) does not exist (looked for \(folder.path)/certs/missing.pem); correct \"tls.certFile\" (a relative path starts at the definition's folder)",
                "$.source.tls.keyFile the key file tls.keyFile does not exist; correct \"tls.keyFile\" (a relative path starts at the definition's folder)",
            ])
        #expect(!result.diagnostics.contains { $0.message.contains("secret-name") })
    }

    @Test func aCertificateGivenAsKeyIsNotAKey() throws {
        let folder = try folder()
        let result = validate(#"{"certFile": "certs/client.pem", "keyFile": "certs/ca.pem"}"#, in: folder)
        #expect(
            lines(result.diagnostics) == [
                "$.source.tls.keyFile the key file tls.keyFile is not a PEM private key (-----BEGIN PRIVATE KEY-----); convert it, e.g. openssl pkey -in KEY -out KEY.pem"
            ])
    }

    @Test func verifyFalseDrawsAWarningAndEveryRefreshSaysIt() async throws {
        let folder = try folder()
        let result = validate(#"{"verify": false}"#, in: folder)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let caution =
            "reads nas.lan:8443 without verifying its TLS certificate (\"verify\": false), so anyone on the way can pose as it; trust its CA with tls.caFile instead"
        #expect(lines(result.warnings) == ["$.source.tls.verify \(caution)"])

        // The refresh carries it among its warnings, which the snapshot, status and the gallery show.
        let server = try TLSTestServer(certificate: "wrong-host")
        let definition = #"{"source": {"url": "\#(server.url("/status").absoluteString)", "tls": {"verify": false}}}"#
        let read = DefinitionReader(registry: .builtIn).read(Data(definition.utf8), file: folder.path + "/nas.json")
        let pipeline = try #require(read.widgets.first)
        var resources = StageResources()
        resources.insert(HTTPClient())
        let context = StageContext(widgetID: pipeline.id, now: Date(), baseDirectory: folder.url, resources: resources)
        let refresh = try await pipeline.run(context: context, cache: [:])
        #expect(
            refresh.warnings.map(\.description) == [
                "source: reads 127.0.0.1:\(server.port) without verifying its TLS certificate (\"verify\": false), so anyone on the way can pose as it; trust its CA with tls.caFile instead"
            ])
    }
}
