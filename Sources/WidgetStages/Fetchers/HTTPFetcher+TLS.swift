import Foundation
public import WidgetCore
import WidgetJSON
import WidgetLiquid

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - TLS files and cautions

extension HTTPFetcher: LocalFileDependent {
    /// The files of `tls`: `validate` checks that each is a readable PEM file, and warns when the key
    /// file may be read by other users.
    public var localFiles: [LocalFile] {
        guard let tls else { return [] }
        let base = ValuePath.root.appending("tls")
        var files: [LocalFile] = []
        if let caFile = tls.caFile { files.append(LocalFile(path: caFile, option: base.appending("caFile"), use: .readCertificate)) }
        if let certFile = tls.certFile {
            files.append(LocalFile(path: certFile, option: base.appending("certFile"), use: .readCertificate))
        }
        if let keyFile = tls.keyFile { files.append(LocalFile(path: keyFile, option: base.appending("keyFile"), use: .readKey)) }
        return files
    }
}

extension HTTPFetcher: CautionedStage {
    /// `"verify": false`: `validate` warns, and every refresh says so in its warnings (and `status`).
    public var cautions: [StageCaution] {
        guard tls?.verify == false else { return [] }
        // A constant URL names its host; a templated one may hold a secret, so it is not shown.
        var host = "its server"
        if url.isConstant, let parsed = URL(string: url.source), parsed.host != nil {
            host = HTTPRequest.hostDescription(of: parsed)
        }
        return [
            StageCaution(
                option: ValuePath.root.appending("tls").appending("verify"),
                message:
                    "reads \(host) without verifying its TLS certificate (\"verify\": false), so anyone on the way can pose as it; trust its CA with tls.caFile instead"
            )
        ]
    }

    /// The TLS settings of a request made with `context`: the files resolved against the definition's
    /// folder, and checked there as a `file` source's `path` is (inside the folder, or one allowed with
    /// `--allow-path`; readable). `nil` without `tls`.
    ///
    /// - Throws: A `StageError` naming the option (`tls.caFile`), never the key file's path.
    func tlsSettings(context: StageContext) throws -> HTTPRequest.TLS? {
        guard let tls else { return nil }
        func resolve(_ path: String?, _ key: TLSOptions.CodingKeys) throws -> String? {
            guard let path else { return nil }
            let name = TLSOptions.name(key)
            let shown = key == .keyFile ? name : "\(name) (\(path))"
            guard let (url, real) = FileAccessPolicy.confine(path, context: context) else {
                throw StageError(
                    "the file of \(shown) is outside the definition's folder; move it there or allow its folder with --allow-path")
            }
            let resolved = real ?? url.path
            guard access(resolved, R_OK) == 0 else {
                throw StageError(
                    "the file of \(shown) cannot be read (\(String(cString: strerror(errno)))); check that it exists and is readable, and run 'widgetd validate'"
                )
            }
            return resolved
        }
        return HTTPRequest.TLS(
            caFile: try resolve(tls.caFile, .caFile), certFile: try resolve(tls.certFile, .certFile),
            keyFile: try resolve(tls.keyFile, .keyFile), verify: tls.verify)
    }
}
