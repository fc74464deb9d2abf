import Foundation
import Testing
import WidgetObjectStorage
import WidgetTestSupport

struct S3ConfigurationTests {
    static let keys = ["AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "secret-env"]

    /// What `body` throws, as text, or `nil` when it throws nothing.
    static func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func anEndpointMeansPathStyleAndTheRegionDefaultsToUSEast1() throws {
        let configuration = try S3Configuration.resolve(
            environment: Self.keys, secretsFolders: [], flags: .init(out: "s3://widgets/prod", endpoint: "http://127.0.0.1:8333"))
        #expect(configuration.bucket == "widgets")
        #expect(configuration.prefix == "prod/")
        #expect(configuration.endpoint.absoluteString == "http://127.0.0.1:8333")
        #expect(configuration.region == "us-east-1")
        #expect(configuration.addressing == .path)
        #expect(configuration.credentials == S3Credentials(accessKeyID: "AKIDENV", secretAccessKey: "secret-env"))
        #expect(!configuration.description.contains("secret-env") && !configuration.description.contains("AKIDENV"))
    }

    @Test func withoutAnEndpointItIsAWSVirtualHostedInTheRegion() throws {
        var environment = Self.keys
        environment["AWS_DEFAULT_REGION"] = "eu-west-1"
        let configuration = try S3Configuration.resolve(environment: environment, secretsFolders: [], flags: .init(out: "s3://widgets"))
        #expect(configuration.prefix == "")
        #expect(configuration.region == "eu-west-1")
        #expect(configuration.endpoint.absoluteString == "https://s3.eu-west-1.amazonaws.com")
        #expect(configuration.addressing == .virtualHosted)
        let pathStyle = try S3Configuration.resolve(
            environment: environment, secretsFolders: [], flags: .init(out: "s3://widgets", pathStyle: true))
        #expect(pathStyle.addressing == .path)
    }

    @Test func flagsWinOverTheEnvironmentAndAWSRegionOverTheDefaultRegion() throws {
        var environment = Self.keys
        environment["AWS_REGION"] = "us-west-2"
        environment["AWS_DEFAULT_REGION"] = "eu-west-1"
        environment["AWS_ENDPOINT_URL"] = "http://general:9000"
        #expect(
            try S3Configuration.resolve(environment: environment, secretsFolders: [], flags: .init(out: "s3://b-1")).region == "us-west-2")
        let flagged = try S3Configuration.resolve(
            environment: environment, secretsFolders: [], flags: .init(out: "s3://b-1", endpoint: "https://flag.example", region: "auto"))
        #expect(flagged.region == "auto")
        #expect(flagged.endpoint.absoluteString == "https://flag.example")
        environment["AWS_ENDPOINT_URL_S3"] = "http://s3only:9000"
        #expect(
            try S3Configuration.resolve(environment: environment, secretsFolders: [], flags: .init(out: "s3://b-1")).endpoint.host
                == "s3only")
    }

    @Test func keysComeFromSecretFilesWhenTheEnvironmentHasNone() throws {
        let first = try TemporaryFolder()
        let second = try TemporaryFolder()
        try first.write("AWS_ACCESS_KEY_ID", "AKIDFILE\n")
        try second.write("AWS_ACCESS_KEY_ID", "AKIDSECOND")
        try second.write("AWS_SECRET_ACCESS_KEY", "  secret-file\n")
        try second.write("AWS_SESSION_TOKEN", "token-file")
        let configuration = try S3Configuration.resolve(
            environment: [:], secretsFolders: [first.url, second.url], flags: .init(out: "s3://widgets", endpoint: "http://127.0.0.1:1"))
        #expect(
            configuration.credentials == S3Credentials(accessKeyID: "AKIDFILE", secretAccessKey: "secret-file", sessionToken: "token-file"))
        let environmentWins = try S3Configuration.resolve(
            environment: Self.keys, secretsFolders: [first.url, second.url], flags: .init(out: "s3://widgets"))
        #expect(environmentWins.credentials.accessKeyID == "AKIDENV")
    }

    @Test func missingKeysNameTheVariableAndTheFolders() throws {
        let folder = try TemporaryFolder()
        #expect(
            Self.message {
                _ = try S3Configuration.resolve(environment: [:], secretsFolders: [folder.url], flags: .init(out: "s3://widgets"))
            }.map { message in message.contains("AWS_ACCESS_KEY_ID") && message.contains(folder.path) } == true)
        #expect(
            Self.message {
                _ = try S3Configuration.resolve(
                    environment: ["AWS_ACCESS_KEY_ID": "AKIDONLY"], secretsFolders: [], flags: .init(out: "s3://widgets"))
            }.map { message in message.contains("AWS_SECRET_ACCESS_KEY") && !message.contains("AKIDONLY") } == true)
    }

    @Test(arguments: [
        ("/srv/out", "is not an s3:// address"),
        ("s3://", "is not a bucket name"),
        ("s3://My_Bucket/x", "is not a bucket name"),
        ("s3://ab", "is not a bucket name"),
        ("s3://widgets/../x", "may not have"),
    ])
    func aBadAddressIsAClearError(_ out: String, _ expected: String) {
        #expect(
            Self.message {
                _ = try S3Configuration.resolve(environment: Self.keys, secretsFolders: [], flags: .init(out: out))
            }.map { message in message.contains(expected) && message.contains("write") } == true)
    }

    @Test func aBadEndpointNamesWhereItCameFrom() {
        var environment = Self.keys
        environment["AWS_ENDPOINT_URL"] = "localhost:9000"
        #expect(
            Self.message {
                _ = try S3Configuration.resolve(environment: environment, secretsFolders: [], flags: .init(out: "s3://widgets"))
            }.map { message in message.hasPrefix("AWS_ENDPOINT_URL: \"localhost:9000\" is not an endpoint URL") } == true)
        #expect(
            Self.message {
                _ = try S3Configuration.resolve(
                    environment: Self.keys, secretsFolders: [], flags: .init(out: "s3://widgets", endpoint: "ftp://x"))
            }.map { message in message.hasPrefix("--s3-endpoint:") } == true)
    }

    @Test func prefixesEndInOneSlash() throws {
        #expect(try S3Configuration.location("s3://widgets/a//b") == ("widgets", "a/b/"))
        #expect(try S3Configuration.location("s3://widgets/") == ("widgets", ""))
        #expect(try S3Configuration.location("S3://widgets/x/") == ("widgets", "x/"))
        #expect(S3Configuration.isBucket("s3://w") && !S3Configuration.isBucket("./out"))
    }
}
