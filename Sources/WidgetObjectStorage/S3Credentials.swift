/// The keys that sign requests to an S3-compatible store: an access key, its secret and, for temporary
/// credentials, a session token.
///
/// Its description and debug description show none of them, so a credential printed by mistake, in a log
/// line or an error, reveals nothing.
///
/// ```swift
/// let credentials = S3Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalr…")
/// print(credentials)   // S3Credentials(access key: redacted, secret: redacted)
/// ```
public struct S3Credentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The access key ID (`AWS_ACCESS_KEY_ID`).
    public var accessKeyID: String
    /// The secret access key (`AWS_SECRET_ACCESS_KEY`).
    public var secretAccessKey: String
    /// The session token of temporary credentials (`AWS_SESSION_TOKEN`), sent as `x-amz-security-token`.
    public var sessionToken: String?

    /// Credentials with `accessKeyID` and `secretAccessKey`, and `sessionToken` for temporary ones.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// `S3Credentials(access key: redacted, secret: redacted)`, with `, session token: redacted` when there
    /// is one: never a key.
    public var description: String {
        "S3Credentials(access key: redacted, secret: redacted\(sessionToken == nil ? "" : ", session token: redacted"))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}
