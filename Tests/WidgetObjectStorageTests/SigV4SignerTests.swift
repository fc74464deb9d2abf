import Foundation
import Testing
import WidgetJSON
import WidgetObjectStorage
import WidgetStages

/// The AWS Signature Version 4 test suite (vendored under Resources/, see its README for the cases left
/// out and why), then the signer's S3 specifics.
struct SigV4SignerTests {
    /// One case of the suite: the request, its context, and what signing it must give.
    struct SuiteCase {
        var name: String
        var method: String
        var path: String
        var query: [(name: String, value: String)]
        var headers: HTTPHeaders
        var body: Data
        var credentials: S3Credentials
        var region: String
        var service: String
        var date: Date
        var signBody: Bool
        var canonicalRequest: String
        var stringToSign: String
        var signature: String
        var authorization: String
    }

    static let suiteFolder = Bundle.module.url(forResource: "Resources", withExtension: nil)!
        .appendingPathComponent("aws-signing-test-suite/v4")

    static func text(_ folder: URL, _ file: String) throws -> String {
        String(decoding: try Data(contentsOf: folder.appendingPathComponent(file)), as: UTF8.self)
    }

    /// Reads `request.txt` (request line, header lines with folded continuations, a blank line, the body)
    /// and the rest of the case's files.
    static func loadCase(_ name: String) throws -> SuiteCase {
        let folder = suiteFolder.appendingPathComponent(name)
        let context = try JSONReader.read(try text(folder, "context.json"))
        let request = try text(folder, "request.txt")
        var lines = request.components(separatedBy: "\n")
        let requestLine = lines.removeFirst()
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        let method = String(parts[0])
        let target = parts[1..<(parts.count - 1)].joined(separator: " ")
        let pathPart = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var query: [(name: String, value: String)] = []
        if pathPart.count == 2 {
            for item in pathPart[1].split(separator: "&") {
                let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(pair[0]).removingPercentEncoding ?? String(pair[0])
                let value = pair.count == 2 ? (String(pair[1]).removingPercentEncoding ?? String(pair[1])) : ""
                query.append((name, value))
            }
        }
        var fields: [(String, String)] = []
        while !lines.isEmpty {
            let line = lines.removeFirst()
            if line.isEmpty { break }
            if line.first == " " || line.first == "\t", !fields.isEmpty {
                fields[fields.count - 1].1 += "\n" + line
                continue
            }
            let colon = line.firstIndex(of: ":")!
            fields.append((String(line[..<colon]), String(line[line.index(after: colon)...])))
        }
        let body = Data(lines.joined(separator: "\n").utf8)
        let credentialsValue = context["credentials"]
        var credentials = S3Credentials(
            accessKeyID: credentialsValue?["access_key_id"]?.string ?? "",
            secretAccessKey: credentialsValue?["secret_access_key"]?.string ?? "",
            sessionToken: credentialsValue?["token"]?.string)
        // "omit_session_token": the token is added after signing, so it is not signed.
        if context["omit_session_token"]?.bool == true { credentials.sessionToken = nil }
        let signedRequest = try text(folder, "header-signed-request.txt")
        let authorization = signedRequest.components(separatedBy: "\n").first { $0.hasPrefix("Authorization:") }
            .map { String($0.dropFirst("Authorization:".count)) }
        return SuiteCase(
            name: name, method: method, path: String(pathPart[0]), query: query, headers: HTTPHeaders(fields), body: body,
            credentials: credentials, region: context["region"]?.string ?? "", service: context["service"]?.string ?? "",
            date: ISO8601DateFormatter().date(from: context["timestamp"]?.string ?? "")!, signBody: context["sign_body"]?.bool == true,
            canonicalRequest: try text(folder, "header-canonical-request.txt"), stringToSign: try text(folder, "header-string-to-sign.txt"),
            signature: try text(folder, "header-signature.txt").trimmingCharacters(in: .whitespacesAndNewlines),
            authorization: authorization ?? "")
    }

    static func caseNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: suiteFolder.path).sorted()
    }

    @Test func passesTheSignatureVersion4TestSuite() throws {
        let names = try Self.caseNames()
        #expect(names.count == 32)
        var passed = 0
        for name in names {
            let testCase = try Self.loadCase(name)
            let signer = SigV4Signer(credentials: testCase.credentials, region: testCase.region, service: testCase.service)
            let signed = signer.sign(
                method: testCase.method, path: testCase.path, query: testCase.query, headers: testCase.headers, host: nil,
                payloadHash: SHA256.hexDigest(of: testCase.body), date: testCase.date, sendPayloadHash: testCase.signBody)
            #expect(signed.canonicalRequest == testCase.canonicalRequest, "\(name): canonical request")
            #expect(signed.stringToSign == testCase.stringToSign, "\(name): string to sign")
            #expect(signed.signature == testCase.signature, "\(name): signature")
            #expect(signed.authorization == testCase.authorization, "\(name): Authorization")
            if signed.authorization == testCase.authorization && signed.canonicalRequest == testCase.canonicalRequest
                && signed.stringToSign == testCase.stringToSign
            {
                passed += 1
            }
        }
        print(
            "SigV4 test suite: \(passed)/\(names.count) (6 cases that need path normalization left out, see Resources/aws-signing-test-suite/README.md)"
        )
        #expect(passed == names.count)
    }

    @Test func addsTheDateThePayloadHashAndTheSessionToken() {
        let signer = SigV4Signer(
            credentials: S3Credentials(accessKeyID: "AKID", secretAccessKey: "secret", sessionToken: "token"), region: "eu-west-1")
        let signed = signer.sign(
            method: "PUT", path: "/bucket/a b/ä.json", query: [], headers: ["Content-Type": "application/json"], host: "127.0.0.1:8333",
            payloadHash: SigV4Signer.emptyPayloadHash, date: Date(timeIntervalSince1970: 1_440_938_160))
        #expect(signed.headers["X-Amz-Date"] == "20150830T123600Z")
        #expect(signed.headers["X-Amz-Content-SHA256"] == SigV4Signer.emptyPayloadHash)
        #expect(signed.headers["X-Amz-Security-Token"] == "token")
        #expect(signed.headers["Host"] == nil)
        #expect(signed.canonicalRequest.hasPrefix("PUT\n/bucket/a%20b/%C3%A4.json\n\ncontent-type:application/json\nhost:127.0.0.1:8333\n"))
        #expect(signed.authorization.contains("SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token,"))
        #expect(signed.authorization.contains("Credential=AKID/20150830/eu-west-1/s3/aws4_request"))
        #expect(!signed.authorization.contains("secret"))
    }

    @Test func encodesEverythingButTheUnreservedCharacters() {
        #expect(SigV4Signer.encode("AZaz09-_.~") == "AZaz09-_.~")
        #expect(SigV4Signer.encode("a b/c+d=e*") == "a%20b%2Fc%2Bd%3De%2A")
        #expect(SigV4Signer.encodePath("/b/shards/1-of-3.json") == "/b/shards/1-of-3.json")
        #expect(SigV4Signer.encodePath("/b/x y") == "/b/x%20y")
        #expect(SigV4Signer.encodePath("") == "/")
        #expect(SigV4Signer.canonicalQuery([("prefix", "a/"), ("list-type", "2")]) == "list-type=2&prefix=a%2F")
    }

    @Test func credentialsDescribeThemselvesWithoutAKey() {
        let credentials = S3Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI", sessionToken: "tok123")
        for text in [credentials.description, credentials.debugDescription, "\(credentials)", String(reflecting: credentials)] {
            #expect(!text.contains("AKIDEXAMPLE") && !text.contains("wJalrXUtnFEMI") && !text.contains("tok123"))
        }
    }
}
