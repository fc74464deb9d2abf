/// A stage that needs files on the machine it runs on, so that `validate` can check that they are there.
///
/// The built-in `file` source names its `path`, the `command` transform its program. A plugin stage that
/// reads a local file (a certificate, a script) can adopt it too.
///
/// ```swift
/// extension FileFetcher: LocalFileDependent {
///     public var localFiles: [LocalFile] { [LocalFile(path: path, option: ValuePath.root.appending("path"), use: .read)] }
/// }
/// ```
public protocol LocalFileDependent: Stage {
    /// The files this stage reads or runs, with the options that name them.
    var localFiles: [LocalFile] { get }
}
