import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTestSupport

/// TLS settings of the `http` source and the `fetch` transform against HTTPS servers on 127.0.0.1 made
/// with the certificates of `Tests/Fixtures/tls/` (see its `make.sh`).
struct TLSTests {
    /// 2026-11-22T09:36:43Z.
    let now = Date(timeIntervalSince1970: 1_795_340_203)

    /// A context whose definition lives in the fixtures folder, with a client of its own (no connection
    /// kept from another test).
    private func context(client: HTTPClient = HTTPClient()) -> StageContext {
        var resources = StageResources()
        resources.insert(client)
        return StageContext(widgetID: "nas", now: now, baseDirectory: TLSTestServer.fixtures, resources: resources)
    }

    private func fetcher(_ url: URL, tls: WidgetObject?) throws -> HTTPFetcher {
        var options: WidgetObject = ["url": .string(url.absoluteString)]
        if let tls { options["tls"] = .object(tls) }
        let stage = try StageRegistry.builtIn.makeStage(.fetcher, typeName: "http", options: .object(options), decoder: OptionsDecoder())
        return try #require(stage as? HTTPFetcher)
    }

    /// The fetch's error message, or nil when it succeeded.
    private func failure(_ fetcher: HTTPFetcher, client: HTTPClient = HTTPClient()) async -> String? {
        do {
            _ = try await fetcher.fetch(context: context(client: client))
            return nil
        } catch {
            return "\(error)"
        }
    }

    private func body(_ fetcher: HTTPFetcher, client: HTTPClient = HTTPClient()) async throws -> WidgetValue {
        try JSONReader.read(try await fetcher.fetch(context: context(client: client)).data)
    }

    // MARK: - Verification

    @Test func aServerSignedByAPrivateCAIsReadWithItsCAAndRefusedWithout() async throws {
        let server = try TLSTestServer(certificate: "server")
        let read = try await body(try fetcher(server.url("/status"), tls: ["caFile": "ca.pem"]))
        #expect(read["ok"] == .bool(true))
        let refused = await failure(try fetcher(server.url("/status"), tls: nil))
        #expect(
            refused
                == "the certificate of 127.0.0.1:\(server.port) is signed by an unknown authority (SSL certificate problem: unable to get local issuer certificate); add \"tls\": {\"caFile\": \"…\"} with the server's CA certificate (PEM), or its own certificate when it is self-signed"
        )
        // The name it was made for, and the other one in it.
        #expect(try await body(try fetcher(server.url("/", host: "localhost"), tls: ["caFile": "ca.pem"]))["ok"] == .bool(true))
    }

    @Test func aSelfSignedServerIsReadWithItsOwnCertificateAsCAAndRefusedWithout() async throws {
        let server = try TLSTestServer(certificate: "self-signed")
        let read = try await body(try fetcher(server.url("/status"), tls: ["caFile": "self-signed.pem"]))
        #expect(read["ok"] == .bool(true))
        let refused = await failure(try fetcher(server.url("/status"), tls: nil))
        print("self-signed, read with its CA: \(read); without: \(refused ?? "read")")
        #expect(
            refused
                == "the certificate of 127.0.0.1:\(server.port) is signed by an unknown authority (SSL certificate problem: self-signed certificate); add \"tls\": {\"caFile\": \"…\"} with the server's CA certificate (PEM), or its own certificate when it is self-signed"
        )
        // Another CA is no better: the file replaces the system's store, and the server is not in it.
        let otherCA = await failure(try fetcher(server.url("/status"), tls: ["caFile": "ca.pem"]))
        #expect(
            otherCA
                == "the certificate of 127.0.0.1:\(server.port) is not signed by a CA in tls.caFile (SSL certificate problem: self-signed certificate); put the certificate of the CA that signed it (or the server's own, when self-signed) in that file"
        )
    }

    @Test func anExpiredCertificateIsRefusedInWords() async throws {
        let server = try TLSTestServer(certificate: "expired")
        let refused = await failure(try fetcher(server.url(), tls: ["caFile": "ca.pem"]))
        #expect(
            refused
                == "the certificate of 127.0.0.1:\(server.port) has expired (SSL certificate problem: certificate has expired); renew the server's certificate"
        )
    }

    @Test func aCertificateForAnotherNameIsRefusedInWords() async throws {
        let server = try TLSTestServer(certificate: "wrong-host")
        let refused = await failure(try fetcher(server.url(), tls: ["caFile": "ca.pem"]))
        #expect(
            refused
                == "the certificate of 127.0.0.1:\(server.port) is for another name (SSL: no alternative certificate subject name matches target host name '127.0.0.1'); write the name the certificate was made for in the url, or remake the certificate with this name"
        )
    }

    @Test func verifyFalseReadsAServerNothingVouchesFor() async throws {
        let server = try TLSTestServer(certificate: "wrong-host")
        #expect(try await body(try fetcher(server.url("/x"), tls: ["verify": false]))["path"] == "/x")
    }

    @Test func aRequestInheritsNoTLSSettingOfTheOneBefore() async throws {
        // One client: its libcurl handles and kept connections serve request after request.
        let client = HTTPClient(maximumConnectionsPerHost: 1)
        let server = try TLSTestServer(certificate: "self-signed")
        let unverified = try fetcher(server.url("/a"), tls: ["verify": false])
        let trusting = try fetcher(server.url("/b"), tls: ["caFile": "self-signed.pem"])
        let plain = try fetcher(server.url("/c"), tls: nil)
        for _ in 0..<2 {
            #expect(try await body(unverified, client: client)["path"] == "/a")
            #expect(await failure(plain, client: client)?.contains("unknown authority") == true)
            #expect(try await body(trusting, client: client)["path"] == "/b")
            #expect(await failure(plain, client: client)?.contains("unknown authority") == true)
        }
    }

    @Test func aCAFileThatIsNotPEMIsRefusedInWords() async throws {
        let server = try TLSTestServer(certificate: "server")
        let refused = await failure(try fetcher(server.url(), tls: ["caFile": "server.py"]))
        #expect(
            refused
                == "the CA file tls.caFile for 127.0.0.1:\(server.port) cannot be used; point it at a readable PEM file of CA certificates (-----BEGIN CERTIFICATE-----)"
        )
    }

    @Test func aFileOutsideTheDefinitionsFolderIsRefused() async throws {
        let server = try TLSTestServer(certificate: "server")
        let refused = await failure(try fetcher(server.url(), tls: ["caFile": "../../Package.swift"]))
        #expect(
            refused
                == "the file of tls.caFile (../../Package.swift) is outside the definition's folder; move it there or allow its folder with --allow-path"
        )
    }

    // MARK: - Mutual TLS

    @Test func mutualTLSIsAcceptedWithTheClientCertificateAndRefusedWithout() async throws {
        let server = try TLSTestServer(certificate: "server", clientCA: "client-ca")
        // One client throughout: a connection kept from the request with the certificate must not serve
        // the one without.
        let client = HTTPClient()
        let withCertificate = try fetcher(server.url("/me"), tls: ["caFile": "ca.pem", "certFile": "client.pem", "keyFile": "client.key"])
        #expect(try await body(withCertificate, client: client)["path"] == "/me")
        let refused = try #require(await failure(try fetcher(server.url("/me"), tls: ["caFile": "ca.pem"]), client: client))
        // A TLS 1.3 server hangs up after the handshake, or sends its alert with the first read.
        #expect(refused.hasPrefix("127.0.0.1:\(server.port) "), "\(refused)")
        #expect(refused.contains("client certificate (mutual TLS)"), "\(refused)")
        // Another CA's certificate is refused too.
        let wrongCertificate = try fetcher(server.url("/me"), tls: ["caFile": "ca.pem", "certFile": "server.pem", "keyFile": "server.key"])
        #expect(await failure(wrongCertificate, client: client) != nil)
        #expect(try await body(withCertificate, client: client)["path"] == "/me")
    }

    @Test func aBadKeyIsRefusedWithoutNamingItsPath() async throws {
        let server = try TLSTestServer(certificate: "server", clientCA: "client-ca")
        let refused = await failure(
            try fetcher(server.url(), tls: ["caFile": "ca.pem", "certFile": "client.pem", "keyFile": "wrong-host.key"]))
        #expect(
            refused
                == "the client certificate for 127.0.0.1:\(server.port) cannot be used; check that tls.certFile and tls.keyFile are readable PEM files, the key unencrypted and made for that certificate"
        )
        let missing = await failure(try fetcher(server.url(), tls: ["certFile": "client.pem", "keyFile": "missing.key"]))
        #expect(
            missing
                == "the file of tls.keyFile cannot be read (No such file or directory); check that it exists and is readable, and run 'widgetd validate'"
        )
    }

    // MARK: - Options

    @Test func aCertificateWithoutItsKeyIsAnOptionsError() throws {
        #expect(throws: (any Error).self) { try fetcher(URL(string: "https://nas.lan/")!, tls: ["certFile": "client.pem"]) }
        #expect(throws: (any Error).self) { try fetcher(URL(string: "https://nas.lan/")!, tls: ["caFile": "ca.pem", "verify": false]) }
        #expect(throws: (any Error).self) { try fetcher(URL(string: "https://nas.lan/")!, tls: ["ca": "ca.pem"]) }
    }

    @Test func theFetchTransformSendsTheSameTLSSettings() async throws {
        let server = try TLSTestServer(certificate: "server")
        let options: WidgetValue = [
            "url": .string(server.url().absoluteString + "item/{{ item }}"), "tls": ["caFile": "ca.pem"],
        ]
        let stage = try StageRegistry.builtIn.makeStage(.transformer, typeName: "fetch", options: options, decoder: OptionsDecoder())
        let transform = try #require(stage as? FetchTransform)
        let value = try await transform.transform([1, 2], context: context())
        #expect(value == [["ok": true, "path": "/item/1"], ["ok": true, "path": "/item/2"]])
    }
}
