import Foundation

extension HTTPRequest {
    /// How an `https` request verifies the server and proves who it is: the files it reads and whether
    /// it verifies at all. The paths are absolute, as the process opens them.
    ///
    /// ```swift
    /// var request = HTTPRequest(url: URL(string: "https://nas.lan:8443/api")!)
    /// request.tls = HTTPRequest.TLS(caFile: "/etc/widgetd/certs/homelab-ca.pem")
    /// ```
    ///
    /// On Linux libcurl reads the files (`CURLOPT_CAINFO`, `CURLOPT_SSLCERT`, `CURLOPT_SSLKEY`); elsewhere
    /// URLSession trusts the CA file's certificates, and a client certificate is refused with an error.
    public struct TLS: Sendable, Hashable {
        /// A PEM file of CA certificates trusted instead of the system's store, as curl's `--cacert`.
        public var caFile: String?
        /// The client certificate (PEM) sent to a server that asks for one.
        public var certFile: String?
        /// The client certificate's private key (PEM). Its path is never shown in a message.
        public var keyFile: String?
        /// Whether the server's certificate and host name are verified.
        public var verify: Bool

        /// Settings that read the files given and verify the server unless `verify` is `false`.
        public init(caFile: String? = nil, certFile: String? = nil, keyFile: String? = nil, verify: Bool = true) {
            self.caFile = caFile
            self.certFile = certFile
            self.keyFile = keyFile
            self.verify = verify
        }

        /// Whether these settings change nothing from the system's defaults.
        var isDefault: Bool { caFile == nil && certFile == nil && keyFile == nil && verify }
    }

    /// The DER bytes of each `CERTIFICATE` block of a PEM text, in order.
    static func certificates(inPEM data: Data) -> [Data] {
        let text = String(decoding: data, as: UTF8.self)
        var blocks: [Data] = []
        var body: String?
        for line in text.split(whereSeparator: \.isNewline) {
            let line = line.trimmingCharacters(in: .whitespaces)
            if line == "-----BEGIN CERTIFICATE-----" {
                body = ""
            } else if line == "-----END CERTIFICATE-----" {
                if let body, let der = Data(base64Encoded: body) { blocks.append(der) }
                body = nil
            } else if body != nil {
                body? += line
            }
        }
        return blocks
    }
}
