import Foundation
public import WidgetJSON

/// A file a stage needs on the machine that runs it: a `path` source's file, a `command` transform's
/// program, an `http` source's CA file or client key.
///
/// A stage names its files through ``LocalFileDependent``; `widgetd validate` then looks each one up with
/// a ``LocalFileCheck`` and reports one that is missing at the option that names it.
///
/// ```swift
/// LocalFile(path: "data/prices.json", option: ValuePath.root.appending("path"), use: .read)
/// ```
public struct LocalFile: Sendable, Hashable {
    /// What the stage does with the file.
    public enum Use: Sendable, Hashable {
        /// Reads it: it must be a regular file the process may read.
        case read
        /// Runs it as a program: a path with a `/` must be an executable file; a bare name is looked for
        /// in `PATH`, as `posix_spawnp` does.
        case run
        /// Reads it as PEM certificates (a CA file, a client certificate): a readable regular file with a
        /// `-----BEGIN CERTIFICATE-----` block.
        case readCertificate
        /// Reads it as a PEM private key, a secret: a readable regular file with a `PRIVATE KEY` block,
        /// which other users should not be able to read (a warning when they can). Messages name the
        /// option, never the path.
        case readKey
    }

    /// The file as the definition writes it: absolute, or relative to the definition's folder (a bare
    /// program name: looked for in `PATH`).
    public var path: String
    /// Where the stage's options name it, relative to the stage: `$.path`, `$.run[0]`.
    public var option: ValuePath
    /// Whether the stage reads the file or runs it.
    public var use: Use

    /// Creates a file requirement from its parts.
    public init(path: String, option: ValuePath, use: Use) {
        self.path = path
        self.option = option
        self.use = use
    }
}
