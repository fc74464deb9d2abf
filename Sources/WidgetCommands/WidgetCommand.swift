public import Foundation
public import WidgetCore
public import WidgetLiquid
public import WidgetRuntime
import WidgetStages

/// One subcommand of `widgetd`: `run`, `validate`, `list`, `preview`, `next`, `schema`, `status`, `reload`.
///
/// A command reads its options from ``Arguments`` in its initializer (so a bad command line fails before
/// anything runs) and does its work in ``run(_:)``, returning the exit code: 0 success, 1 a widget or
/// definition failed, 2 wrong usage.
public protocol WidgetCommand: Sendable {
    /// The word that selects the command.
    static var name: String { get }
    /// One line for `widgetd --help`.
    static var summary: String { get }
    /// The full `--help` text.
    static var help: String { get }

    /// Reads the command's options.
    ///
    /// - Throws: ``UsageError`` for a command line that does not fit.
    init(arguments: inout Arguments) throws(UsageError)

    /// Does the work.
    func run(_ environment: CommandEnvironment) async -> Int32
}

/// What commands work with: the stage registry, the filters, the clock, secrets, the build's identity
/// and where to print.
public struct CommandEnvironment: Sendable {
    /// The stages definitions may name.
    public var registry: StageRegistry
    /// The filters templates may use.
    public var filters: FilterRegistry
    /// The source of "now" and of waits.
    public var clock: any WidgetClock
    /// What `{{ env.NAME }}` and `{{ secret.NAME }}` read.
    public var secrets: SecretStore
    /// The shared services stages look up by type, such as the folders `path` sources may read
    /// (`--allow-path`) and the origin rewrites (`--rewrite-origin`).
    public var resources: StageResources
    /// What `widgetd --version` prints.
    public var build: BuildInfo
    /// The environment variables commands read (`WIDGETD_CONFIG`, `NOTIFY_SOCKET`, …): the process's own
    /// by default.
    public var variables: [String: String]
    /// Prints to standard output (the text has no trailing newline; one is added). The defaults never
    /// stop the process when a stream is closed or broken (`StandardStream`).
    public var print: @Sendable (String) -> Void
    /// Prints to standard error.
    public var printError: @Sendable (String) -> Void
    /// The steps templates may take (see `TemplateSteps`): `TemplateSteps.defaultLimit` unless
    /// `--template-steps` sets it.
    public var templateStepLimit = TemplateSteps.defaultLimit

    /// An environment with `registry`; by default the standard filters, the system clock, the process
    /// environment as `env` and no secret files, no resources, a build with no known commit, the process's
    /// environment variables, and standard output and error.
    public init(
        registry: StageRegistry,
        filters: FilterRegistry = .standard,
        clock: any WidgetClock = SystemClock(),
        secrets: SecretStore = .processEnvironment,
        resources: StageResources = StageResources(),
        build: BuildInfo = BuildInfo(),
        variables: [String: String] = ProcessInfo.processInfo.environment,
        print: @escaping @Sendable (String) -> Void = { StandardStream.output.write($0 + "\n") },
        printError: @escaping @Sendable (String) -> Void = { StandardStream.error.write($0 + "\n") }
    ) {
        self.registry = registry
        self.filters = filters
        self.clock = clock
        self.secrets = secrets
        self.resources = resources
        self.build = build
        self.variables = variables
        self.print = print
        self.printError = printError
    }

    /// A definition reader for this environment.
    public var reader: DefinitionReader {
        var reader = DefinitionReader(registry: registry, filters: filters, environment: secrets)
        reader.templateStepLimit = templateStepLimit
        return reader
    }

    /// This environment with HTTP sources' URLs rewritten by `rules` (`FROM=TO`).
    ///
    /// - Throws: ``UsageError`` for a rule without `=`.
    public func rewritingOrigins(_ rules: [String]) throws(UsageError) -> CommandEnvironment {
        guard !rules.isEmpty else { return self }
        var copy = self
        do {
            copy.resources.insert(try OriginRewrites(arguments: rules))
        } catch {
            throw UsageError("\(error)")
        }
        return copy
    }

    /// This environment with `path` sources also allowed to read `folders`.
    public func allowingPaths(_ folders: [String]) -> CommandEnvironment {
        guard !folders.isEmpty else { return self }
        var copy = self
        copy.resources.insert(FileAccessPolicy(allowedFolders: folders.map { URL(fileURLWithPath: $0, isDirectory: true) }))
        return copy
    }

    /// A refresher for this environment.
    public func refresher(assets: URL? = nil, log: @escaping @Sendable (LogRecord) -> Void = { _ in }) -> WidgetRefresher {
        WidgetRefresher(secrets: secrets, resources: resources, assetsDirectory: assets, log: log)
    }
}
