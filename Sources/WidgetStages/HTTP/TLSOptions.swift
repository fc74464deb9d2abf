public import WidgetCore
import WidgetJSON

/// The TLS settings of a request, under `"tls"` in an `http` source or a `fetch` transform: a CA file to
/// trust, a client certificate and key (mutual TLS), or an explicit opt-out of verification.
///
/// ```json
/// "tls": {"caFile": "certs/homelab-ca.pem", "certFile": "certs/widgetd.pem", "keyFile": "certs/widgetd.key"}
/// ```
///
/// `caFile` replaces the system's store of trusted authorities for the request, as curl's `--cacert`
/// does: a server is trusted when a certificate in the file signed its chain (or is its own, for a
/// self-signed server). Relative paths start at the definition's folder, like a `file` source's `path`,
/// and the same folder rules apply (`--allow-path` for a file elsewhere). The key file's path and content
/// are never shown: errors name the option, `tls.keyFile`.
public struct TLSOptions: Decodable, Sendable, Hashable, DescribedOptions {
    /// A PEM file of the CA certificates to trust instead of the system's.
    public var caFile: String?
    /// The client certificate (PEM) sent to a server that asks for one.
    public var certFile: String?
    /// The client certificate's private key (PEM, unencrypted); kept secret.
    public var keyFile: String?
    /// Whether the server's certificate and name are verified; `false` reads the server without.
    public var verify: Bool

    /// The TLS keys.
    public enum CodingKeys: String, DescribedKey {
        case caFile, certFile, keyFile, verify

        public var keyDescription: KeyDescription {
            switch self {
            case .caFile:
                KeyDescription(
                    "A PEM file of CA certificates trusted instead of the system's (as curl's --cacert), relative to the definition's folder: a private CA, or a self-signed server's own certificate.",
                    .string(pattern: "."))
            case .certFile:
                KeyDescription(
                    "The client certificate (PEM) for a server that asks for one (mutual TLS), relative to the definition's folder; needs keyFile.",
                    .string(pattern: "."))
            case .keyFile:
                KeyDescription(
                    "The client certificate's private key (PEM, unencrypted), relative to the definition's folder; readable by its owner only. Its path and content are never shown.",
                    .string(pattern: "."))
            case .verify:
                KeyDescription(
                    "Whether the server's certificate and host name are verified; false reads the server without verification (validate warns, status shows it). Prefer caFile.",
                    .boolean, default: .bool(true))
            }
        }
    }

    /// The option a message names for `key`: `tls.keyFile`.
    static func name(_ key: CodingKeys) -> String { "tls.\(key.rawValue)" }

    /// Checks that a certificate comes with its key.
    ///
    /// - Throws: A `StageError` at `tls` when only one of `certFile` and `keyFile` is written.
    func check() throws {
        if (certFile == nil) != (keyFile == nil) {
            throw StageError(
                "\"tls\" has \(certFile == nil ? "a keyFile without a certFile" : "a certFile without a keyFile"); a client certificate needs both, write e.g. {\"certFile\": \"certs/client.pem\", \"keyFile\": \"certs/client.key\"}",
                option: RequestOptions.CodingKeys.tls)
        }
        if !verify, caFile != nil {
            throw StageError(
                "\"tls\" has a caFile and \"verify\": false; a CA file is only read to verify, so drop \"verify\": false (or the caFile)",
                option: RequestOptions.CodingKeys.tls)
        }
    }
}
