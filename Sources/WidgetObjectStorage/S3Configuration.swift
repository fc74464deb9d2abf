public import Foundation

/// Where the bucket output writes and with which keys: a bucket and a prefix (from `--out s3://BUCKET/PREFIX`),
/// the endpoint, the region, the addressing style and the credentials, resolved from flags, the standard
/// AWS environment variables and secret files.
///
/// ```swift
/// let configuration = try S3Configuration.resolve(
///     environment: ProcessInfo.processInfo.environment,
///     secretsFolders: [URL(fileURLWithPath: "/run/secrets")],
///     flags: .init(out: "s3://widgets/prod", endpoint: "http://127.0.0.1:8333")
/// )
/// let client = S3Client(configuration: configuration, httpClient: HTTPClient())
/// ```
public struct S3Configuration: Sendable, Hashable, CustomStringConvertible {
    /// The bucket's name.
    public var bucket: String
    /// The prefix every key is under: empty, or ending in `/` (`prod/`).
    public var prefix: String
    /// The server's base URL: the flag's or `AWS_ENDPOINT_URL`'s, else AWS's for the region
    /// (`https://s3.REGION.amazonaws.com`).
    public var endpoint: URL
    /// The region signatures name.
    public var region: String
    /// How the bucket is named in requests.
    public var addressing: S3Client.Addressing
    /// The keys that sign.
    public var credentials: S3Credentials

    /// A configuration with every value given.
    public init(
        bucket: String, prefix: String, endpoint: URL, region: String, addressing: S3Client.Addressing, credentials: S3Credentials
    ) {
        self.bucket = bucket
        self.prefix = prefix
        self.endpoint = endpoint
        self.region = region
        self.addressing = addressing
        self.credentials = credentials
    }

    /// `s3://BUCKET/PREFIX at ENDPOINT (REGION, path style)`: safe to log, no credential in it.
    public var description: String {
        let style = addressing == .path ? "path style" : "virtual-hosted"
        return "s3://\(bucket)/\(prefix) at \(endpoint.absoluteString) (\(region), \(style))"
    }

    /// What the command line said about the bucket; `nil` for a flag not given.
    public struct Flags: Sendable, Hashable {
        /// `--out` (or `WIDGETD_OUT`): `s3://BUCKET` or `s3://BUCKET/PREFIX`.
        public var out: String
        /// `--s3-endpoint URL`.
        public var endpoint: String?
        /// `--s3-region R`.
        public var region: String?
        /// `--s3-path-style`: `true` when given; `nil` takes the default (path style with an endpoint,
        /// virtual-hosted for AWS).
        public var pathStyle: Bool?

        /// The flags as given.
        public init(out: String, endpoint: String? = nil, region: String? = nil, pathStyle: Bool? = nil) {
            self.out = out
            self.endpoint = endpoint
            self.region = region
            self.pathStyle = pathStyle
        }
    }

    /// The environment variables and secret files read, each under the same name.
    public enum Name {
        /// The endpoint URL for every AWS service.
        public static let endpoint = "AWS_ENDPOINT_URL"
        /// The endpoint URL for S3 alone; wins over ``endpoint``.
        public static let s3Endpoint = "AWS_ENDPOINT_URL_S3"
        /// The region.
        public static let region = "AWS_REGION"
        /// The region when ``region`` is not set.
        public static let defaultRegion = "AWS_DEFAULT_REGION"
        /// The access key ID.
        public static let accessKeyID = "AWS_ACCESS_KEY_ID"
        /// The secret access key.
        public static let secretAccessKey = "AWS_SECRET_ACCESS_KEY"
        /// The session token of temporary credentials.
        public static let sessionToken = "AWS_SESSION_TOKEN"
    }

    /// Whether `out` names a bucket (`s3://…`) rather than a folder.
    public static func isBucket(_ out: String) -> Bool {
        out.lowercased().hasPrefix("s3://")
    }

    /// Resolves the configuration.
    ///
    /// Each value comes from the first place that has it:
    /// - endpoint: `--s3-endpoint`, `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, else AWS's
    ///   (`https://s3.REGION.amazonaws.com`);
    /// - region: `--s3-region`, `AWS_REGION`, `AWS_DEFAULT_REGION`, else `us-east-1`;
    /// - addressing: path style with `--s3-path-style` or when an endpoint is given, else virtual-hosted;
    /// - `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`: the environment variable, else
    ///   a file of that name in the first of `secretsFolders` that has one (`--secrets DIR`, then
    ///   `$CREDENTIALS_DIRECTORY`), its content without the white space around it.
    ///
    /// - Parameters:
    ///   - environment: The process's environment.
    ///   - secretsFolders: The folders of secret files, in the order they are searched.
    ///   - flags: What the command line said.
    /// - Throws: ``S3ConfigurationError``, a sentence naming the flag, variable or file and a fix, for a
    ///   malformed `s3://` address, endpoint or bucket name, or missing keys. No credential is in it.
    public static func resolve(environment: [String: String], secretsFolders: [URL], flags: Flags) throws(S3ConfigurationError)
        -> S3Configuration
    {
        let (bucket, prefix) = try location(flags.out)

        func variable(_ name: String) -> String? {
            guard let value = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
            return value
        }
        func secret(_ name: String) throws(S3ConfigurationError) -> String? {
            if let value = variable(name) { return value }
            for folder in secretsFolders {
                let file = folder.appendingPathComponent(name)
                guard FileManager.default.fileExists(atPath: file.path) else { continue }
                guard let data = FileManager.default.contents(atPath: file.path) else {
                    throw S3ConfigurationError("\(file.path): the secret file \(name) cannot be read; make it readable by this user")
                }
                let value = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                if value.isEmpty {
                    throw S3ConfigurationError("\(file.path): the secret file \(name) is empty; write the value in it")
                }
                return value
            }
            return nil
        }

        let region =
            flags.region.map { $0.trimmingCharacters(in: .whitespaces) } ?? variable(Name.region) ?? variable(Name.defaultRegion)
            ?? "us-east-1"
        guard !region.isEmpty, region.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw S3ConfigurationError("--s3-region: \"\(region)\" is not a region; write e.g. us-east-1")
        }

        var endpointText: (value: String, source: String)?
        if let flag = flags.endpoint {
            endpointText = (flag, "--s3-endpoint")
        } else if let value = variable(Name.s3Endpoint) {
            endpointText = (value, Name.s3Endpoint)
        } else if let value = variable(Name.endpoint) {
            endpointText = (value, Name.endpoint)
        }
        let endpoint: URL
        if let (text, source) = endpointText {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                let host = url.host, !host.isEmpty, url.query == nil, url.user == nil
            else {
                throw S3ConfigurationError(
                    "\(source): \"\(text)\" is not an endpoint URL; write the server's base URL, e.g. http://127.0.0.1:8333 or https://s3.example.com"
                )
            }
            endpoint = url
        } else {
            endpoint = URL(string: "https://s3.\(region).amazonaws.com")!
        }
        let addressing: S3Client.Addressing = flags.pathStyle == true || endpointText != nil ? .path : .virtualHosted

        let accessKeyID = try secret(Name.accessKeyID)
        let secretAccessKey = try secret(Name.secretAccessKey)
        let folders = secretsFolders.map(\.path).joined(separator: " or ")
        let elsewhere = secretsFolders.isEmpty ? "" : " or as a file of that name in \(folders)"
        guard let accessKeyID else {
            throw S3ConfigurationError("--out \(flags.out): no access key; set \(Name.accessKeyID) in the environment\(elsewhere)")
        }
        guard let secretAccessKey else {
            throw S3ConfigurationError("--out \(flags.out): no secret key; set \(Name.secretAccessKey) in the environment\(elsewhere)")
        }
        let credentials = S3Credentials(
            accessKeyID: accessKeyID, secretAccessKey: secretAccessKey, sessionToken: try secret(Name.sessionToken))
        return S3Configuration(
            bucket: bucket, prefix: prefix, endpoint: endpoint, region: region, addressing: addressing, credentials: credentials)
    }

    /// The bucket and prefix of `s3://BUCKET/PREFIX` (the prefix empty or ending in `/`).
    ///
    /// - Throws: ``S3ConfigurationError`` when `out` is no `s3://` address or names no valid bucket.
    public static func location(_ out: String) throws(S3ConfigurationError) -> (bucket: String, prefix: String) {
        guard isBucket(out) else {
            throw S3ConfigurationError("--out: \"\(out)\" is not an s3:// address; write s3://BUCKET or s3://BUCKET/PREFIX")
        }
        let rest = out.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        var prefix = String(rest.dropFirst(bucket.count)).drop { $0 == "/" }.description
        let valid =
            (3...63).contains(bucket.count)
            && bucket.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" || $0 == "." }
            && bucket.first.map { $0.isLowercase || $0.isNumber } == true
            && bucket.last.map { $0.isLowercase || $0.isNumber } == true
        guard valid else {
            throw S3ConfigurationError(
                "--out \(out): \"\(bucket)\" is not a bucket name; write one of 3 to 63 lower-case letters, digits, dots and hyphens, "
                    + "beginning and ending with a letter or digit, e.g. s3://widgets/prod")
        }
        while prefix.contains("//") { prefix = prefix.replacingOccurrences(of: "//", with: "/") }
        if !prefix.isEmpty && !prefix.hasSuffix("/") { prefix += "/" }
        guard !prefix.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) else {
            throw S3ConfigurationError("--out \(out): the prefix may not have a \".\" or \"..\" segment; write e.g. s3://\(bucket)/prod")
        }
        return (bucket, prefix)
    }
}

/// A bucket configuration that cannot be used: one sentence naming the flag, variable or file, what is
/// wrong and a fix. It never holds a credential.
public struct S3ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The sentence.
    public var message: String

    /// An error saying `message`.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
