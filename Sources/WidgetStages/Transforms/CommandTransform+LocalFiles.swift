public import WidgetCore
import WidgetJSON

extension CommandTransform: LocalFileDependent {
    /// The program `run` starts (its first element): `validate` reports one that is missing or not
    /// executable, looking for a bare name in `PATH` as the transform does.
    public var localFiles: [LocalFile] {
        [LocalFile(path: arguments[0], option: ValuePath.root.appending("run").appending(index: 0), use: .run)]
    }
}
