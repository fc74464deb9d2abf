public import Foundation
public import WidgetStages

/// The OAuth2 tokens of the output folder: `OUT/.state/oauth2/<key>.json`, one file per credentials key
/// (a SHA-256 of the token endpoint, grant and configured credentials, see `OAuth2Client.Credentials.key`).
///
/// Each file is replaced with ``AtomicFile`` (flushed to disk, then renamed, then the folder flushed)
/// with mode 0600 in a folder of mode 0700: the access token and the refresh token the server rotated
/// are readable by the daemon's user alone, and a save that returns has made them durable. Nothing in
/// the folder reaches a snapshot, a page or `status`.
public struct OAuth2TokenFiles: OAuth2TokenStorage {
    /// `OUT/.state/oauth2/`.
    public let directory: URL

    /// The tokens kept in `directory`, created (mode 0700) on the first save.
    public init(directory: URL) {
        self.directory = directory
    }

    /// The tokens of the output folder `store`: its `.state/oauth2/`.
    public init(store: SnapshotStore) {
        self.init(directory: store.stateDirectory.appendingPathComponent("oauth2", isDirectory: true))
    }

    private func file(for key: String) -> String {
        directory.appendingPathComponent("\(key).json").path
    }

    public func load(key: String) -> OAuth2Token? {
        guard let data = AtomicFile.contentsWithoutFollowingLinks(atPath: file(for: key)) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(OAuth2Token.self, from: data)
    }

    public func save(_ token: OAuth2Token, key: String) throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        try AtomicFile.write(try encoder.encode(token), toPath: file(for: key), mode: 0o600)
    }
}
