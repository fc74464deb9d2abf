import Foundation
import WidgetJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Looks up the files stages need (``LocalFile``) the way they will be used when the widget refreshes,
/// and says what is wrong with one that is missing, unreadable or not executable.
///
/// `widgetd validate` sets one on its ``DefinitionReader``; `run` does not (a file that appears later is
/// read by the next refresh, and until then the refresh fails with the same reason).
///
/// ```swift
/// let check = LocalFileCheck(searchPath: ProcessInfo.processInfo.environment["PATH"])
/// check.problem(with: file, definitionFolder: "widgets.d") // nil, or a sentence with a fix
/// ```
public struct LocalFileCheck: Sendable {
    /// The folders a bare program name is looked for in, in order.
    public var searchPath: [String]

    /// What `posix_spawnp` searches when `PATH` is not set.
    public static let defaultSearchPath = "/bin:/usr/bin"

    /// A check that looks for bare program names in `searchPath` (a `PATH` value), or in
    /// ``defaultSearchPath`` when it is `nil`.
    public init(searchPath: String?) {
        // An empty entry of PATH is the current folder, as for the shell.
        self.searchPath = (searchPath ?? Self.defaultSearchPath).split(separator: ":", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "." : String($0) }
    }

    /// What is wrong with `file` for a definition in `definitionFolder` (as the user names it, e.g.
    /// `widgets.d`): a sentence that names the file and a fix, or `nil` when it can be used.
    public func problem(with file: LocalFile, definitionFolder: String) -> String? {
        // The option to correct, by its key: `path`, `run` for `run[0]`.
        let option = file.option.components.reversed().lazy.compactMap { component -> String? in
            if case .key(let key) = component { return key }
            return nil
        }.first
        switch file.use {
        case .read:
            return readProblem(file.path, at: resolved(file.path, in: definitionFolder), option: option ?? "path")
        case .run:
            guard file.path.contains("/") else { return searchProblem(file.path) }
            return runProblem(file.path, at: resolved(file.path, in: definitionFolder), option: option ?? "run")
        case .readCertificate, .readKey:
            return pemProblem(file, at: resolved(file.path, in: definitionFolder))
        }
    }

    /// What should change about `file` though it can be used, for a definition in `definitionFolder`: a
    /// key file that other users may read; `nil` when nothing should.
    public func warning(about file: LocalFile, definitionFolder: String) -> String? {
        guard file.use == .readKey else { return nil }
        var status = stat()
        guard stat(resolved(file.path, in: definitionFolder), &status) == 0, status.st_mode & 0o077 != 0 else { return nil }
        let mode = String(status.st_mode & 0o777, radix: 8)
        return
            "the key file \(Self.dottedName(of: file.option)) may be read by other users (mode \(mode)); make it readable by its owner only (chmod 600), as the secrets folder is"
    }

    /// The option's keys joined with dots: `tls.keyFile`.
    private static func dottedName(of option: ValuePath) -> String {
        option.components.compactMap { component -> String? in
            if case .key(let key) = component { return key }
            return nil
        }.joined(separator: ".")
    }

    /// What is wrong with a PEM file: missing, unreadable, or without the block it needs. A key file's
    /// messages name its option, never its path.
    private func pemProblem(_ file: LocalFile, at path: String) -> String? {
        let name = Self.dottedName(of: file.option)
        let isKey = file.use == .readKey
        let what = isKey ? "the key file \(name)" : "the file \(file.path) (\(name))"
        switch Self.kind(of: path) {
        case nil:
            return isKey
                ? "\(what) does not exist; correct \"\(name)\" (a relative path starts at the definition's folder)"
                : "\(what) does not exist (looked for \(path)); correct \"\(name)\" (a relative path starts at the definition's folder)"
        case "a regular file"?:
            guard access(path, R_OK) == 0, let handle = FileHandle(forReadingAtPath: path) else {
                return "\(what) cannot be read (\(String(cString: strerror(errno)))); make it readable by the user widgetd runs as"
            }
            defer { try? handle.close() }
            let head = String(decoding: (try? handle.read(upToCount: 65_536)) ?? Data(), as: UTF8.self)
            if isKey {
                guard head.contains("-----BEGIN "), head.contains("PRIVATE KEY-----") else {
                    return
                        "\(what) is not a PEM private key (-----BEGIN PRIVATE KEY-----); convert it, e.g. openssl pkey -in KEY -out KEY.pem"
                }
                if head.contains("ENCRYPTED") {
                    return
                        "\(what) is encrypted; widgetd reads unencrypted keys only, so decrypt it (openssl pkey -in KEY -out KEY.pem) and keep it private (chmod 600)"
                }
                return nil
            }
            guard head.contains("-----BEGIN CERTIFICATE-----") else {
                return
                    "\(what) holds no PEM certificate (-----BEGIN CERTIFICATE-----); convert it, e.g. openssl x509 -inform DER -in FILE -out FILE.pem"
            }
            return nil
        case let kind?:
            return "\(what) is \(kind), not a regular file; point \"\(name)\" at a file"
        }
    }

    /// `path` as the process will open it: absolute, or under the definition's folder (`./` steps
    /// dropped, for messages).
    private func resolved(_ path: String, in folder: String) -> String {
        if path.hasPrefix("/") || folder.isEmpty { return path }
        let joined = folder.hasSuffix("/") ? folder + path : folder + "/" + path
        return joined.split(separator: "/", omittingEmptySubsequences: false).filter { $0 != "." }.joined(separator: "/")
    }

    private func readProblem(_ written: String, at path: String, option: String) -> String? {
        switch Self.kind(of: path) {
        case nil:
            return
                "the file \(written) does not exist (looked for \(path)); create it, or correct \"\(option)\" (a relative path starts at the definition's folder)"
        case "a regular file"?:
            guard access(path, R_OK) == 0 else {
                return "the file \(written) cannot be read (\(String(cString: strerror(errno)))); make it readable, e.g. chmod a+r \(path)"
            }
            return nil
        case let kind?:
            return "the file \(written) is \(kind), not a regular file; point \"\(option)\" at a file"
        }
    }

    private func runProblem(_ written: String, at path: String, option: String) -> String? {
        switch Self.kind(of: path) {
        case nil:
            return
                "the program \(written) does not exist (looked for \(path)); create it, or correct \"\(option)\" (a program path with a '/' starts at the definition's folder)"
        case "a regular file"?:
            guard access(path, X_OK) == 0 else {
                return
                    "the program \(written) is not executable; make it so (chmod +x \(path)), or run it through its interpreter, e.g. [\"python3\", \"\((written as NSString).lastPathComponent)\"]"
            }
            return nil
        case let kind?:
            return "the program \(written) is \(kind), not a program; point \"\(option)\" at an executable file"
        }
    }

    private func searchProblem(_ name: String) -> String? {
        for folder in searchPath {
            let candidate = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            if Self.kind(of: candidate) == "a regular file", access(candidate, X_OK) == 0 { return nil }
        }
        return
            "the program \(name) is not in PATH (\(searchPath.joined(separator: ":"))); install it, or write its path (with a '/', relative to the definition's folder)"
    }

    /// What is at `path` (symbolic links followed): "a regular file", "a folder", …; `nil` when nothing is.
    private static func kind(of path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR, S_IFBLK: return "a device"
        default: return "not a regular file"
        }
    }
}
