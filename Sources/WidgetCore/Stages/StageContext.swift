public import Foundation
public import WidgetJSON
public import WidgetLiquid

/// What a stage knows about the refresh it takes part in.
///
/// A context is built by the pipeline for each refresh and handed to every stage as `context:`. It is a
/// value: stages read it, and the pipeline adds the results of named inputs to it as they arrive.
public struct StageContext: Sendable {
    /// The widget's id, for example `jotd` or `bitdream.home`.
    public var widgetID: String
    /// The widget's display title, when it has one.
    public var widgetTitle: String?
    /// The moment of this refresh. Stages never read the system clock themselves.
    public var now: Date {
        didSet { nowText = InternetDate.timestamp(now) }
    }
    /// `now` as templates see it, written once rather than for every scope.
    private(set) var nowText: String
    /// The widget's time zone, for schedules and date templates.
    public var timeZone: TimeZone
    /// The results of the widget's `inputs`, by name, once fetched and parsed.
    public var inputs: WidgetObject
    /// The instance parameters (`params.NAME` in templates); empty for a widget without instances.
    public var params: WidgetObject
    /// The widget's history as it was before this refresh (`history.NAME` in templates): each series of
    /// its `history` block with its points, oldest first, each `{"at": …, "value": …}`; empty for a widget
    /// that keeps none.
    public var history: WidgetObject = [:]
    /// Secrets that `{{ env.NAME }}` may read in a source's URL, headers and body, and nowhere else.
    public var secrets: SecretStore
    /// The folder that holds the widget's definition; relative file paths start here.
    public var baseDirectory: URL? {
        didSet { partials = StageContext.partials(in: baseDirectory) }
    }
    /// The partials of `partials/` in ``baseDirectory`` that templates may render, made once rather than
    /// for every scope.
    private(set) var partials: TemplatePartialFolder?
    /// The folder that holds downloaded assets, when the runtime writes snapshots.
    public var assetsDirectory: URL?
    /// Shared services of the runtime (an HTTP client, say), by type.
    public var resources: StageResources
    /// Validators from the last successful fetch of the stage being run: an HTTP fetcher sends them as
    /// `If-None-Match` and `If-Modified-Since`, and answers a 304 with ``Payload/notModified(origin:status:)``;
    /// the pipeline then reuses the last parsed value.
    public var validators = FetchValidators()
    /// The conditional-request memory of a stage that fetches several things (one per item), kept per
    /// request across refreshes: see ``FetchCache``. The pipeline gives each transform its own.
    public var fetchCache = FetchCache()
    /// Where a stage reports what it did, one line at a time (never secrets).
    public var log: @Sendable (String) -> Void
    /// What the templates of this refresh may produce together (see `RenderBudget`); every scope made
    /// by ``templateScope(item:secrets:)`` shares it. A new context has a new budget.
    public var renderBudget = RenderBudget()
    /// The steps the templates of this refresh may take together (see `TemplateSteps`); every scope made
    /// by ``templateScope(item:secrets:)`` shares it. A new context has a new budget.
    public var templateSteps = TemplateSteps()

    /// Creates the context of one refresh of `widgetID` at `now`.
    ///
    /// Everything else has a default: the machine's zone, no inputs, params, secrets, folders or resources,
    /// and a log that drops its lines. ``validators`` start empty and ``renderBudget`` and ``templateSteps`` are
    /// new.
    public init(
        widgetID: String,
        widgetTitle: String? = nil,
        now: Date,
        timeZone: TimeZone = .current,
        inputs: WidgetObject = [:],
        params: WidgetObject = [:],
        secrets: SecretStore = SecretStore(),
        baseDirectory: URL? = nil,
        assetsDirectory: URL? = nil,
        resources: StageResources = StageResources(),
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.widgetID = widgetID
        self.widgetTitle = widgetTitle
        self.now = now
        nowText = InternetDate.timestamp(now)
        self.timeZone = timeZone
        self.inputs = inputs
        self.params = params
        self.secrets = secrets
        self.baseDirectory = baseDirectory
        partials = StageContext.partials(in: baseDirectory)
        self.assetsDirectory = assetsDirectory
        self.resources = resources
        self.log = log
    }

    /// The partials of `partials/` in `folder`.
    private static func partials(in folder: URL?) -> TemplatePartialFolder? {
        folder.map { TemplatePartialFolder($0.appending(path: "partials")) }
    }

    /// The `widget` object templates see: `id`, `title`, `timeZone`.
    public var widgetValue: WidgetValue {
        var object: WidgetObject = ["id": .string(widgetID), "timeZone": .string(timeZone.identifier)]
        if let widgetTitle { object["title"] = .string(widgetTitle) }
        return .object(object)
    }
}

/// Values that may be read by `{{ env.NAME }}` (environment variables) and `{{ secret.NAME }}` (files in
/// a secrets folder) in a source, and must never appear anywhere else.
///
/// ```swift
/// let secrets = SecretStore(environment: ["API_KEY": "…"], files: ["coingecko-key": "…"])
/// secrets[.secret, "coingecko-key"]
/// ```
public struct SecretStore: Sendable {
    /// Where a template finds secrets: its root name, `env` or `secret` (the template engine's
    /// `Template.SecretNamespace`, whose rules say how a template may use one).
    public typealias Namespace = Template.SecretNamespace

    private let values: [Namespace: [String: String]]
    /// Each namespace as a template variable, plain and masked: built once, since every refresh's
    /// templates see them.
    private let variables: [Namespace: (plain: WidgetValue, masked: WidgetValue)]
    /// The folder `secret.NAME` is read from, for messages; nil when none was given.
    public let folder: String?

    /// Secrets from `environment` (for `env`) and `files` (for `secret`, read from `folder`).
    public init(environment: [String: String] = [:], files: [String: String] = [:], folder: String? = nil) {
        values = [.env: environment, .secret: files]
        var variables: [Namespace: (plain: WidgetValue, masked: WidgetValue)] = [:]
        for (namespace, entries) in [(Namespace.env, environment), (.secret, files)] {
            let sorted = entries.sorted { $0.key < $1.key }
            variables[namespace] = (
                .object(WidgetObject(sorted.map { ($0.key, .string($0.value)) })),
                .object(WidgetObject(sorted.map { ($0.key, .string("***")) }))
            )
        }
        self.variables = variables
        self.folder = folder
    }

    /// The process environment, and no secret files.
    public static var processEnvironment: SecretStore {
        SecretStore(environment: ProcessInfo.processInfo.environment)
    }

    /// An environment variable (`env.NAME`).
    public subscript(name: String) -> String? { values[.env]?[name] }

    /// `namespace.name`.
    public subscript(namespace: Namespace, name: String) -> String? { values[namespace]?[name] }

    /// This store with `secret.NAME` read from `files`, which came from `folder`.
    public func withFiles(_ files: [String: String], folder: String) -> SecretStore {
        SecretStore(environment: values[.env] ?? [:], files: files, folder: folder)
    }

    /// `text` with every value of the store of 4 characters or more replaced by `***`, in all the forms of
    /// ``mask(_:uses:params:)``: for a stage that cannot say which secrets it read. (The store holds the
    /// whole environment, whose short values — `SHLVL=1` — would garble any message; a stage that knows
    /// its secrets uses ``mask(_:uses:params:)``, which masks them whatever their length.)
    public func redact(_ text: String) -> String {
        redactionMask.apply(text)
    }

    /// The mask of ``redact(_:)``: every value of the store of 4 characters or more.
    public var redactionMask: SecretMask {
        SecretMask(values: values.values.flatMap(\.values).filter { $0.count >= 4 })
    }

    /// `text` with the secrets `uses` read (names from `params` where a use takes its name from them)
    /// replaced by `***`, whatever their length, as written and in the forms the secret-keeping filters
    /// give them (URL-encoded, base64, HTML-escaped).
    public func mask(_ text: String, uses: [Template.SecretUse], params: WidgetObject = [:]) -> String {
        mask(uses: uses, params: params).apply(text)
    }

    /// The mask of the secrets `uses` read (see ``mask(_:uses:params:)``): to cut a text that may hold
    /// them, use its ``SecretMask/excerpt(_:limit:)``.
    public func mask(uses: [Template.SecretUse], params: WidgetObject = [:]) -> SecretMask {
        SecretMask(values: uses.compactMap { use in use.name.resolved(with: params).flatMap { self[use.namespace, $0] } })
    }

    /// The environment variables as a template variable, keyed by name.
    public var value: WidgetValue { value(of: .env) }

    /// One namespace's secrets as a template variable, keyed by name.
    public func value(of namespace: Namespace, masked: Bool = false) -> WidgetValue {
        guard let variable = variables[namespace] else { return .object([:]) }
        return masked ? variable.masked : variable.plain
    }

    /// `scope` with `env` and `secret` as globals; with every value `***` when `masked`.
    public func install(in scope: inout TemplateScope, masked: Bool) {
        for namespace in Namespace.allCases {
            scope.globals[namespace.rawValue] = value(of: namespace, masked: masked)
        }
    }
}

/// Shared services a runtime offers to stages, looked up by type.
///
/// ```swift
/// var resources = StageResources()
/// resources.insert(HTTPClient(maximumConnectionsPerHost: 4))
/// let client = context.resources[HTTPClient.self]
/// ```
public struct StageResources: Sendable {
    private var storage: [ObjectIdentifier: any Sendable] = [:]

    /// Creates an empty set of resources.
    public init() {}

    /// Adds `resource`, keyed by its static type `Resource`; it replaces any resource of that type.
    public mutating func insert<Resource: Sendable>(_ resource: Resource) {
        storage[ObjectIdentifier(Resource.self)] = resource
    }

    /// The resource inserted as `type`, or `nil` when there is none.
    public subscript<Resource: Sendable>(_ type: Resource.Type) -> Resource? {
        storage[ObjectIdentifier(type)] as? Resource
    }
}
