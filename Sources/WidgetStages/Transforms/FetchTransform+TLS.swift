public import WidgetCore

extension FetchTransform: LocalFileDependent {
    /// The files of `tls`, as an `http` source's (see `HTTPFetcher`).
    public var localFiles: [LocalFile] { fetcher.localFiles }
}

extension FetchTransform: CautionedStage {
    /// `"verify": false`, as an `http` source's.
    public var cautions: [StageCaution] { fetcher.cautions }
}
