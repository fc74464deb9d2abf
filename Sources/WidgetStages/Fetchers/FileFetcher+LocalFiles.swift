public import WidgetCore
import WidgetJSON

extension FileFetcher: LocalFileDependent {
    /// The file `path` names, read when the widget refreshes: `validate` reports it when it is missing.
    public var localFiles: [LocalFile] {
        [LocalFile(path: path, option: ValuePath.root.appending("path"), use: .read)]
    }
}
