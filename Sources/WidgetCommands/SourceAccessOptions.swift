import WidgetCore
import WidgetRuntime
import WidgetStages

/// The options of `run` and `preview` that widen what sources may reach: `--allow-path DIR` (folders
/// `path` sources may read besides the definitions' folder) and `--rewrite-origin FROM=TO` (URL prefixes
/// HTTP sources and asset downloads are sent elsewhere with).
public struct SourceAccessOptions: Sendable {
    /// Every `--allow-path` folder, in order.
    public var allowedPaths: [String]
    /// Every `--rewrite-origin` rule, as given (`FROM=TO`), in order.
    public var originRewrites: [String]

    /// Reads both options, checking the rewrite rules.
    ///
    /// - Throws: ``UsageError`` for a rule that is not `FROM=TO`.
    public init(arguments: inout Arguments) throws(UsageError) {
        allowedPaths = try arguments.options("--allow-path")
        originRewrites = try arguments.options("--rewrite-origin")
        do {
            _ = try OriginRewrites(arguments: originRewrites)
        } catch {
            throw UsageError(error.message)
        }
    }

    /// `environment` with the allowed folders and rewrite rules among its stage resources.
    public func apply(to environment: CommandEnvironment) -> CommandEnvironment {
        (try? environment.allowingPaths(allowedPaths).rewritingOrigins(originRewrites)) ?? environment
    }
}
