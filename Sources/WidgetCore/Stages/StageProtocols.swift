public import WidgetJSON

/// A stage of a widget's pipeline: a named, configurable piece of work.
///
/// Every stage has a stable ``typeName`` (what a definition writes, as `"parser": "json"` or
/// `{"type": "json"}`), its own `Decodable` `Options` with their defaults, and an initializer that checks
/// those options once, when the definition is loaded. A stage is then immutable and shared by every
/// refresh, so it must be `Sendable` and keep no mutable state of its own.
///
/// Implementation rules:
/// - Never read the system clock; use `context.now`.
/// - Never print; throw a ``StageError`` whose message is one sentence that names what went wrong.
/// - Never put a secret in an error message.
public protocol Stage: Sendable {
    /// The options a definition passes to this stage: every member of the stage's JSON object except
    /// `type`. Unknown members are rejected with a "did you mean" hint.
    ///
    /// Options that also conform to ``DescribedOptions`` describe each key (meaning, JSON shape, default),
    /// and `widgetd schema` lists them; the options of a stage that does not are left open there.
    associatedtype Options: Decodable & Sendable

    /// The name definitions use for this stage. Stable: renaming it breaks users' files.
    static var typeName: String { get }

    /// A one-line description, shown by `widgetd list` and in the JSON Schema.
    static var summary: String { get }

    /// Checks `options` and prepares the stage.
    ///
    /// - Throws: A ``StageError`` (or `DecodingError`) that says which option is wrong and what would work.
    init(options: Options) throws

    /// The options whose templates may read secrets (`{{ env.NAME }}`, `{{ secret.NAME }}`), by coding key,
    /// checked by the same rules as a source's `url`, `headers` and `body`. Empty for most stages: only a
    /// stage that sends requests of its own names any (the `fetch` transform: `url`, `headers`, `body`).
    /// A source's `url`, `headers` and `body` may always read secrets.
    ///
    /// For ``DescribedOptions`` the default is their ``DescribedOptions/secretKeys``: the keys whose
    /// ``KeyDescription`` says `secrets: true`.
    static var secretOptions: [any CodingKey & Sendable] { get }
}

extension Stage {
    /// No summary: `widgetd schema` then describes the stage by its type name only.
    public static var summary: String { "" }

    /// No option reads secrets.
    public static var secretOptions: [any CodingKey & Sendable] { [] }
}

/// Fetches the raw bytes of a widget's source or input.
///
/// A source that speaks HTTP sends through `context.http` (from `WidgetStages`): the runtime's shared
/// client with its per-host limit, the coalescing of identical requests within a refresh wave, and
/// `--rewrite-origin`, with nothing to wire.
///
/// ```swift
/// struct StaticFetcher: Fetcher {
///     struct Options: Decodable, Sendable { var text: String }
///     static let typeName = "static"
///     let text: String
///     init(options: Options) { text = options.text }
///     func fetch(context: StageContext) async throws -> Payload {
///         Payload(data: Data(text.utf8), contentType: "text/plain", origin: "static")
///     }
/// }
/// ```
public protocol Fetcher: Stage {
    /// Fetches the payload for one refresh.
    ///
    /// - Throws: A ``StageError`` naming the source (without secrets) and the cause.
    func fetch(context: StageContext) async throws -> Payload
}

/// Turns a payload into a `WidgetValue`.
///
/// A parser keeps to the payload's ``Payload/valueLimits``: it reads JSON with
/// `ValueLimits.readJSON(_:_:)` and stops, with the limit's message, once what it builds holds more
/// than `ValueLimits.maximumValues` values or nests deeper than `ValueLimits.maximumDepth` (the
/// pipeline fails a deeper value whoever made it).
public protocol Parser: Stage {
    /// Parses `payload`.
    ///
    /// - Throws: A ``StageError`` naming where in the payload reading stopped.
    func parse(_ payload: Payload, context: StageContext) throws -> WidgetValue
}

/// Reshapes a value: selects, maps, filters, sorts, downloads assets.
public protocol Transformer: Stage {
    /// Transforms `value`.
    ///
    /// - Throws: A ``StageError`` that says which item or field failed.
    func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue
}

/// Lays a value out as a timeline of dated entries.
public protocol TimelineBuilder: Stage {
    /// The entries for `value`, in date order.
    ///
    /// - Throws: A ``StageError`` when the value cannot be laid out (no items, a date that is not a date).
    func entries(for value: WidgetValue, context: StageContext) throws -> [TimelineEntry]
}

/// The four kinds of stage.
public enum StageKind: String, Sendable, CaseIterable, CustomStringConvertible {
    /// A source that fetches a payload; written `source` in names and messages.
    case fetcher = "source"
    /// A parser that turns a payload into a value.
    case parser
    /// A transform that reshapes a value; written `transform` in names and messages.
    case transformer = "transform"
    /// A timeline that lays a value out as dated entries.
    case timeline

    public var description: String { rawValue }
}

/// A stage's failure, as one sentence for a snapshot's `error` and the log.
public struct StageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as one sentence: `127.0.0.1:8123 answered 503 Service Unavailable`.
    public var message: String
    /// How long the source asked us to wait before trying again (HTTP `Retry-After`), when it did.
    public var retryAfter: Double?
    /// When thrown while checking options, the name of the option at fault (its coding key's), so that
    /// `validate` points at it.
    public var option: String?
    /// When a template of the stage's options failed while running: the template's path inside the stage's
    /// options (`fields.title`) and the column inside the template, so the error can name the file, line
    /// and column.
    public var template: TemplatePlace?

    /// Where a template sits in a stage's options.
    public struct TemplatePlace: Sendable, Hashable {
        /// The path of the template's string inside the stage's options.
        public var path: ValuePath
        /// The 1-based column inside the template, when the error has one.
        public var column: Int?

        /// Creates a place from the option's path and the column inside the template.
        public init(path: ValuePath, column: Int?) {
            self.path = path
            self.column = column
        }
    }

    /// Creates an error from its message, with the wait the source asked for when it is known.
    public init(_ message: String, retryAfter: Double? = nil) {
        self.message = message
        self.retryAfter = retryAfter
    }

    /// Creates an error about the option `key`, thrown while checking options, so that `validate` points
    /// at it: `StageError("\"run\" needs the program", option: CodingKeys.run)`.
    public init(_ message: String, option key: some CodingKey) {
        self.message = message
        option = key.stringValue
    }

    public var description: String { message }
}
