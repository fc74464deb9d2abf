// MARK: - TLS failures, in words

extension HTTPClientError {
    /// The server's certificate was not accepted: expired, not yet valid, made for another name, or
    /// signed by an authority not trusted. `said` is libcurl's reason (`SSL certificate problem:
    /// self-signed certificate`), kept in the message; the fix depends on the reason and on whether the
    /// request had a CA file.
    static func certificateRejected(_ host: String, said: String, tls: HTTPRequest.TLS?) -> Self {
        let reason = said.isEmpty ? "" : " (\(said))"
        let lower = said.lowercased()
        let message: String
        if lower.contains("expired") {
            message = "the certificate of \(host) has expired\(reason); renew the server's certificate"
        } else if lower.contains("not yet valid") {
            message = "the certificate of \(host) is not valid yet\(reason); check the clocks of this machine and of the server"
        } else if lower.contains("subject name") || lower.contains("does not match") || lower.contains("host name") {
            message =
                "the certificate of \(host) is for another name\(reason); write the name the certificate was made for in the url, or remake the certificate with this name"
        } else if lower.contains("self-signed") || lower.contains("self signed") || lower.contains("issuer")
            || lower.contains("unable to verify")
        {
            if tls?.caFile == nil {
                message =
                    "the certificate of \(host) is signed by an unknown authority\(reason); add \"tls\": {\"caFile\": \"…\"} with the server's CA certificate (PEM), or its own certificate when it is self-signed"
            } else {
                message =
                    "the certificate of \(host) is not signed by a CA in tls.caFile\(reason); put the certificate of the CA that signed it (or the server's own, when self-signed) in that file"
            }
        } else {
            message = "the certificate of \(host) was not accepted\(reason); check the server's certificate, or add tls.caFile with its CA"
        }
        return Self(.connectionFailed, host: host, message: message)
    }

    /// The CA file could not be read as PEM certificates. Its path is not named: the definition names it
    /// at `tls.caFile`.
    static func badCAFile(_ host: String) -> Self {
        Self(
            .connectionFailed, host: host,
            message:
                "the CA file tls.caFile for \(host) cannot be used; point it at a readable PEM file of CA certificates (-----BEGIN CERTIFICATE-----)"
        )
    }

    /// The client certificate or key could not be used. Neither path is named: the key's is a secret.
    static func badClientCertificate(_ host: String) -> Self {
        Self(
            .connectionFailed, host: host,
            message:
                "the client certificate for \(host) cannot be used; check that tls.certFile and tls.keyFile are readable PEM files, the key unencrypted and made for that certificate"
        )
    }

    /// The server refused the connection for want of a client certificate it trusts (its TLS alert in
    /// `said`), or `nil` when `said` is not such an alert.
    static func clientCertificateRefused(_ host: String, said: String?, tls: HTTPRequest.TLS?) -> Self? {
        guard let said, said.contains("alert") else { return nil }
        let alerts = ["certificate required", "unknown ca", "bad certificate", "certificate unknown", "certificate expired"]
        guard alerts.contains(where: said.contains) else { return nil }
        guard tls?.certFile != nil else {
            return Self(
                .connectionFailed, host: host,
                message:
                    "\(host) asks for a client certificate (mutual TLS) and refused the connection without one; add \"tls\": {\"certFile\": \"…\", \"keyFile\": \"…\"}"
            )
        }
        return Self(
            .connectionFailed, host: host,
            message:
                "\(host) refused the client certificate of tls.certFile (\(said)); use a certificate signed by a CA the server trusts"
        )
    }

    /// An `https` server closed the connection before answering a request that sent no client
    /// certificate: what a server that asks for one may do instead of sending an alert.
    static func closedBeforeAnswerWithoutCertificate(_ host: String) -> Self {
        Self(
            .connectionFailed, host: host,
            message:
                "\(host) closed the connection before answering; if it asks for a client certificate (mutual TLS), add \"tls\": {\"certFile\": \"…\", \"keyFile\": \"…\"}"
        )
    }

    /// TLS settings this transport cannot honour: a client certificate through URLSession.
    static func tlsUnsupported(_ host: String, what: String) -> Self {
        Self(.invalidRequest, host: host, message: "the request to \(host) needs \(what), which this platform's HTTP transport cannot do")
    }
}
