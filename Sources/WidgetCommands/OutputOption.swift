/// `--out`: where the daemon writes — a folder, or `s3://BUCKET/PREFIX`, a bucket of an S3-compatible
/// object store — with the bucket's own options: `--s3-endpoint URL`, `--s3-region R`,
/// `--s3-path-style` and `--work DIR`.
///
/// Without `--out`, `$WIDGETD_OUT`, else `$STATE_DIRECTORY` (systemd), else `out`. A bucket's working
/// folder (its lock, `widgetd reload`'s requests, images before they are uploaded, a copy of what was
/// written) is `--work`, else `$WIDGETD_WORK`, else `$STATE_DIRECTORY`, else `.widgetd-work`.
///
/// ```
/// widgetd run --out s3://widgets/prod --s3-endpoint http://127.0.0.1:8333 --shard 1/3
/// ```
///
/// Credentials, the endpoint and the region not given here come from the environment (`AWS_*`) or the
/// secrets folder when the command connects.
public struct OutputOption: Sendable, Equatable {
    /// The value of `--out` (or the variable it fell back on): a folder's path, or `s3://BUCKET/PREFIX`.
    public var out: String
    /// Where ``out`` came from (`--out`, `$WIDGETD_OUT`, …), for messages.
    public var origin: String
    /// `--s3-endpoint`, when given (checked when the command connects).
    public var endpoint: String?
    /// `--s3-region`, when given.
    public var region: String?
    /// `--s3-path-style`: address the bucket as `ENDPOINT/BUCKET/KEY` even for AWS.
    public var pathStyle: Bool
    /// A bucket's working folder; nil for a folder output.
    public var work: String?
    /// Where ``work`` came from (`--work`, `$WIDGETD_WORK`, …), for messages.
    public var workOrigin: String?

    /// Reads `--out`, `--s3-endpoint`, `--s3-region`, `--s3-path-style` and `--work` from `arguments`.
    ///
    /// - Throws: ``UsageError`` when an option has no value, or a bucket's option is given with a
    ///   folder output.
    public init(arguments: inout Arguments) throws(UsageError) {
        (out, origin) = try arguments.outputFolder()
        endpoint = try arguments.option("--s3-endpoint")
        region = try arguments.option("--s3-region")
        pathStyle = arguments.flag("--s3-path-style")
        let workOption = try arguments.option("--work")
        guard isBucket else {
            let given = [
                endpoint.map { _ in "--s3-endpoint" }, region.map { _ in "--s3-region" }, pathStyle ? "--s3-path-style" : nil,
                workOption.map { _ in "--work" },
            ].compactMap { $0 }
            if let first = given.first {
                throw UsageError("\(first) applies only to a bucket output (--out s3://BUCKET/PREFIX), and the output is the folder \(out)")
            }
            return
        }
        if let workOption {
            (work, workOrigin) = (workOption, "--work")
        } else if let folder = arguments.variable("WIDGETD_WORK"), !folder.isEmpty {
            (work, workOrigin) = (folder, "$WIDGETD_WORK")
        } else if let folder = arguments.variable("STATE_DIRECTORY")?.split(separator: ":").first, !folder.isEmpty {
            (work, workOrigin) = (String(folder), "$STATE_DIRECTORY")
        } else {
            (work, workOrigin) = (".widgetd-work", "the default")
        }
    }

    /// Whether ``out`` names a bucket (`s3://…`, any case of the scheme) rather than a folder.
    public var isBucket: Bool { out.lowercased().hasPrefix("s3://") }

    /// The output folder, or for a bucket its working folder: where the lock and the requests are.
    public var localFolder: String { work ?? out }
}
