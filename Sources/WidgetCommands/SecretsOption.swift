import Foundation
import WidgetCore
import WidgetRuntime

/// `--secrets DIR`: the folder `{{ secret.NAME }}` reads the file NAME from; without it
/// `$CREDENTIALS_DIRECTORY`, where systemd puts the files of `LoadCredential=`.
///
/// The files are read once, when the command starts (a service's credentials are fixed for its life;
/// restart the daemon after changing one). Each is one secret: its text, without a final newline.
public struct SecretsOption: Sendable {
    /// `--secrets`, if given.
    public var folder: String?

    /// The largest secret file read, in bytes.
    public static let maximumFileSize = 65_536

    /// Reads `--secrets DIR` from `arguments`.
    ///
    /// - Throws: ``UsageError`` when `--secrets` has no value.
    public init(arguments: inout Arguments) throws(UsageError) {
        folder = try arguments.option("--secrets")
    }

    /// `environment` with the secrets folder's files readable as `secret.NAME`; nil, with the error
    /// printed, when the folder or a file in it cannot be read (the command then exits 2).
    public func apply(to environment: CommandEnvironment) -> CommandEnvironment? {
        let origin: String
        let path: String
        if let folder {
            (path, origin) = (folder, "--secrets")
        } else if let credentials = environment.variables["CREDENTIALS_DIRECTORY"], !credentials.isEmpty {
            (path, origin) = (credentials, "$CREDENTIALS_DIRECTORY")
        } else {
            return environment
        }
        do {
            var copy = environment
            copy.secrets = environment.secrets.withFiles(try SecretsOption.read(path, origin: origin), folder: path)
            return copy
        } catch {
            environment.printError("Error: \(error)")
            return nil
        }
    }

    /// The regular files directly in `path` (names not starting with a dot), by name.
    static func read(_ path: String, origin: String) throws(UsageError) -> [String: String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw UsageError(
                "the secrets folder \(path) (from \(origin)) cannot be read: \(error.localizedDescription); create it or pass --secrets DIR"
            )
        }
        var secrets: [String: String] = [:]
        for name in names.sorted() where !name.hasPrefix(".") {
            let file = URL(fileURLWithPath: path).appendingPathComponent(name)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
                attributes[.type] as? FileAttributeType == .typeRegular
            else { continue }
            if let size = attributes[.size] as? Int, size > maximumFileSize {
                throw UsageError("the secret file \(file.path) has \(size) bytes, more than the \(maximumFileSize) a secret may have")
            }
            guard let data = try? Data(contentsOf: file), let text = String(data: data, encoding: .utf8) else {
                throw UsageError("the secret file \(file.path) cannot be read as UTF-8 text; check its permissions and contents")
            }
            var value = Substring(text)
            if value.hasSuffix("\r\n") {
                value = value.dropLast(2)
            } else if value.hasSuffix("\n") {
                value = value.dropLast()
            }
            secrets[name] = String(value)
        }
        return secrets
    }
}
