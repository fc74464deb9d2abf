public import Foundation

/// A widget's definition bound to stage implementations: checked once, then shared by every refresh.
///
/// The stages are fixed in number and type — fetch, parse, transform…, timeline — so a pipeline needs no
/// casts between them. Named inputs run first, in order; their parsed values are visible to the later
/// stages as `context.inputs` and to templates as `inputs.NAME`. A source (input or main) whose `when`
/// template does not pass is neither fetched nor parsed: its value is `null`.
///
/// ```swift
/// let entries = try await pipeline.run(context: context)
/// ```
public struct WidgetPipeline: Sendable {
    /// A named input's stages.
    public struct Input: Sendable {
        /// The input's name, as templates read it (`inputs.NAME`).
        public let name: String
        /// The input's fetcher, built from its source.
        public let fetcher: any Fetcher
        /// The parser for the input's payload.
        public let parser: any Parser
    }

    /// The definition the stages were built from.
    public let definition: WidgetDefinition
    /// The named inputs' stages, in the order they run, before the main source.
    public let inputs: [Input]
    /// The main source's fetcher.
    public let fetcher: any Fetcher
    /// The parser for the main source's payload.
    public let parser: any Parser
    /// The transforms, applied in order to the main source's parsed value.
    public let transformers: [any Transformer]
    /// The timeline stage that lays the final value out as entries.
    public let timeline: any TimelineBuilder

    /// The widget's id, from its definition: `jotd`, or `bitdream.home` for an instance.
    public var id: String { definition.id }

    /// Binds `definition` to the stages of `registry`.
    ///
    /// - Throws: ``PipelineBuildError`` listing every stage that could not be built.
    public init(_ definition: WidgetDefinition, registry: StageRegistry, filters: FilterRegistry = .standard) throws(PipelineBuildError) {
        var problems: [PipelineBuildError.Problem] = []
        let pipeline = WidgetPipeline.build(definition, registry: registry, filters: filters) { error, base in
            problems.append(.init(base: base, error: error))
        }
        guard let pipeline, problems.isEmpty else { throw PipelineBuildError(id: definition.id, problems: problems) }
        self = pipeline
    }

    private init(
        definition: WidgetDefinition,
        inputs: [Input],
        fetcher: any Fetcher,
        parser: any Parser,
        transformers: [any Transformer],
        timeline: any TimelineBuilder
    ) {
        self.definition = definition
        self.inputs = inputs
        self.fetcher = fetcher
        self.parser = parser
        self.transformers = transformers
        self.timeline = timeline
    }

    /// Builds every stage, reporting each failure with the path of the stage it belongs to; `templates`
    /// compiles the options' templates when the caller has compiled some of them already.
    static func build(
        _ definition: WidgetDefinition,
        registry: StageRegistry,
        filters: FilterRegistry,
        templates: TemplateCache? = nil,
        report: (OptionsError, ValuePath) -> Void
    ) -> WidgetPipeline? {
        var userInfo: [CodingUserInfoKey: any Sendable] = [FilterRegistry.userInfoKey: filters, StageRegistry.userInfoKey: registry]
        if let templates { userInfo[TemplateCache.userInfoKey] = templates }
        let decoder = OptionsDecoder(userInfo: userInfo)

        func make<S>(_ kind: StageKind, _ spec: StageSpec, as type: S.Type) -> S? {
            guard registry.entry(kind, named: spec.typeName) != nil else {
                do {
                    _ = try registry.makeStage(kind, typeName: spec.typeName, options: .object(spec.options))
                } catch {
                    report(OptionsError(path: .root, message: error.message), spec.typePath)
                }
                return nil
            }
            do {
                var decoder = decoder
                decoder.hintKeys = spec.ownerKeys
                let stage = try registry.makeStage(kind, typeName: spec.typeName, options: .object(spec.options), decoder: decoder)
                guard let typed = stage as? S else {
                    // The registry files stages by kind, so this is a stage type registered under a kind it
                    // does not conform to: said, not dropped.
                    report(
                        OptionsError(
                            path: .root,
                            message:
                                "the stage type \"\(spec.typeName)\" (\(String(describing: Swift.type(of: stage)))) is registered as a \(kind.rawValue) but is not one; register it with the kind of its protocol"
                        ), spec.typePath)
                    return nil
                }
                return typed
            } catch {
                report(error, spec.path)
                return nil
            }
        }

        var inputs: [Input] = []
        for input in definition.inputs {
            let fetcher = make(.fetcher, input.source, as: (any Fetcher).self)
            let parser = make(.parser, input.parser, as: (any Parser).self)
            if let fetcher, let parser { inputs.append(Input(name: input.name, fetcher: fetcher, parser: parser)) }
        }
        let fetcher = make(.fetcher, definition.source, as: (any Fetcher).self)
        let parser = make(.parser, definition.parser, as: (any Parser).self)
        let transformers = definition.transforms.map { make(.transformer, $0, as: (any Transformer).self) }
        let timeline = make(.timeline, definition.timeline.stage, as: (any TimelineBuilder).self)
        guard let fetcher, let parser, let timeline, inputs.count == definition.inputs.count else { return nil }
        let built = transformers.compactMap { $0 }
        guard built.count == transformers.count else { return nil }
        return WidgetPipeline(
            definition: definition, inputs: inputs, fetcher: fetcher, parser: parser,
            transformers: built, timeline: timeline
        )
    }

    // MARK: - Running

    /// Runs every stage once and returns the timeline.
    ///
    /// - Parameter context: the refresh's context; the pipeline adds the inputs' values to it.
    /// - Throws: ``PipelineError`` naming the stage that failed and why.
    public func run(context: StageContext) async throws(PipelineError) -> [TimelineEntry] {
        try await run(context: context, cache: [:]).entries
    }

    /// Runs every stage once with conditional requests: a fetch whose stage has an entry in `cache` is sent
    /// with that entry's validators, and a "not modified" answer reuses the cached parsed value without
    /// parsing.
    ///
    /// - Returns: the entries and the cache to keep for the next refresh (validators are stored only after
    ///   a successful parse).
    /// - Throws: ``PipelineError`` naming the stage that failed and why.
    public func run(context: StageContext, cache: [String: CachedFetch]) async throws(PipelineError) -> PipelineResult {
        var result = PipelineResult(entries: [], cache: [:])
        let value = try await runToValue(context: context, cache: cache, result: &result)
        result.entries = try layOut(value.value, context: value.context)
        return result
    }

    /// Runs the fetch, parse and transform stages, returning the final value and the context used.
    public func runToValue(context: StageContext) async throws(PipelineError) -> (value: WidgetValue, context: StageContext) {
        var ignored = PipelineResult(entries: [], cache: [:])
        return try await runToValue(context: context, cache: [:], result: &ignored)
    }

    private func runToValue(
        context: StageContext,
        cache: [String: CachedFetch],
        result: inout PipelineResult
    ) async throws(PipelineError) -> (value: WidgetValue, context: StageContext) {
        var context = context
        context.params = definition.params
        for (index, input) in inputs.enumerated() {
            let stage = PipelineStage.input(input.name)
            guard try Self.passes(definition.inputs[index].when, stage: stage, context: context) else {
                context.inputs[input.name] = .null
                continue
            }
            let value = try await fetchAndParse(
                stage, input.fetcher, input.parser, parserKey: Self.key(of: definition.inputs[index].parser),
                context: context, cache: cache, result: &result)
            context.inputs[input.name] = value
        }
        var value = WidgetValue.null
        if try Self.passes(definition.sourceWhen, stage: .source, context: context) {
            value = try await fetchAndParse(
                .source, fetcher, parser, parserKey: Self.key(of: definition.parser), context: context, cache: cache, result: &result)
        }
        for (index, transformer) in transformers.enumerated() {
            let input = value
            let stage = PipelineStage.transform(index: index, type: type(of: transformer).typeName)
            // A transform that fetches (one request per item) keeps its validators under its own place.
            let prefix = "\(stage) "
            var transformContext = context
            transformContext.fetchCache = FetchCache(previous: Self.entries(of: cache, under: prefix))
            let stageContext = transformContext
            let started = ContinuousClock.now
            value = try await attempt(stage, .transformer) {
                try await transformer.transform(input, context: stageContext)
            }
            let fetches = stageContext.fetchCache
            for (key, entry) in fetches.kept { result.cache[prefix + key] = entry }
            result.notModified += fetches.notModifiedKeys.map { prefix + $0 }
            let fetched = fetches.fetched
            if fetched.requests > 0 {
                // A transform that fetched spent its time fetching, as far as the metrics tell.
                result.fetchSeconds += Self.seconds(ContinuousClock.now - started)
                result.fetchBytes += fetched.bytes
            }
        }
        return (value, context)
    }

    private func fetchAndParse(
        _ stage: PipelineStage,
        _ fetcher: any Fetcher,
        _ parser: any Parser,
        parserKey: String,
        context: StageContext,
        cache: [String: CachedFetch],
        result: inout PipelineResult
    ) async throws(PipelineError) -> WidgetValue {
        var context = context
        // A value parsed by another parser (the definition changed) is not what this one would give.
        let key = stage.description
        let cached = cache[key].flatMap { $0.validators.parser == parserKey ? $0 : nil }
        context.validators = cached?.validators ?? FetchValidators()
        let fetchContext = context
        let started = ContinuousClock.now
        let payload = try await attempt(stage, .fetcher) { try await fetcher.fetch(context: fetchContext) }
        result.fetchSeconds += Self.seconds(ContinuousClock.now - started)
        result.fetchBytes += payload.data.count
        if let maxAge = payload.maxAge, maxAge > 0 {
            let earliest = context.now.addingTimeInterval(min(maxAge, 86_400))
            result.earliestNextFetch = max(result.earliestNextFetch ?? earliest, earliest)
        }
        if payload.notModified {
            guard let cached else {
                throw PipelineError(
                    stage: stage, kind: .fetcher,
                    underlying: StageError("\(payload.origin) answered 304 Not Modified to a request that had no validators")
                )
            }
            result.cache[key] = cached
            result.notModified.append(key)
            return cached.value
        }
        let value = try await attempt(stage.parsing, .parser) {
            try parser.parse(payload, context: fetchContext)
        }
        var validators = payload.validators
        if !validators.isEmpty {
            validators.parser = parserKey
            result.cache[key] = CachedFetch(validators: validators, value: value)
        }
        return value
    }

    /// `duration` in seconds.
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    /// The entries of `cache` whose keys start with `prefix`, keyed by the rest.
    static func entries(of cache: [String: CachedFetch], under prefix: String) -> [String: CachedFetch] {
        var entries: [String: CachedFetch] = [:]
        for (key, entry) in cache where key.hasPrefix(prefix) { entries[String(key.dropFirst(prefix.count))] = entry }
        return entries
    }

    /// Whether a source with the test `when` is to be fetched: always without one; otherwise when the
    /// template, rendered without secrets, passes (``WidgetValue/passesTest``).
    ///
    /// - Throws: ``PipelineError`` for the fetch's test stage (`STAGE.when`) when the template fails.
    static func passes(_ when: Template?, stage: PipelineStage, context: StageContext) throws(PipelineError) -> Bool {
        guard let when else { return true }
        do {
            return try when.render(context.templateScope()).passesTest
        } catch {
            throw PipelineError(stage: stage.test, kind: .fetcher, underlying: error)
        }
    }

    /// The parser's type and options as one string, stored with a cached value: a value is reused only
    /// by the parser that produced it.
    static func key(of parser: StageSpec) -> String {
        parser.typeName + " " + JSONWriter.string(.object(parser.options))
    }

    /// Lays `value` out as entries with the timeline stage, then applies `relevance`, `url` and `limit`.
    public func layOut(_ value: WidgetValue, context: StageContext) throws(PipelineError) -> [TimelineEntry] {
        var entries: [TimelineEntry]
        do {
            entries = try timeline.entries(for: value, context: context)
        } catch {
            throw PipelineError(stage: .timeline, kind: .timeline, underlying: error)
        }
        let spec = definition.timeline
        if let limit = spec.limit, entries.count > limit { entries = Array(entries.prefix(limit)) }
        guard spec.relevance != nil || spec.url != nil else { return entries }
        var scope = context.templateScope()
        for index in entries.indices {
            scope.item = entries[index].content
            do {
                if let relevance = spec.relevance {
                    switch try relevance.render(scope) {
                    case .number(let number): entries[index].relevance = number
                    case .string(let text): entries[index].relevance = WidgetNumber(text.trimmingCharacters(in: .whitespaces))
                    default: entries[index].relevance = nil
                    }
                }
                if let url = spec.url {
                    let text = try url.renderString(scope)
                    entries[index].url = text.isEmpty ? nil : text
                }
            } catch {
                throw PipelineError(stage: .timeline, kind: .timeline, underlying: error)
            }
        }
        return entries
    }

    private func attempt<T>(
        _ stage: PipelineStage,
        _ kind: StageKind,
        _ body: () async throws -> T
    ) async throws(PipelineError) -> T {
        do {
            return try await body()
        } catch {
            throw PipelineError(stage: stage, kind: kind, underlying: error)
        }
    }
}

/// What a refresh produced besides its entries.
public struct PipelineResult: Sendable {
    /// The timeline.
    public var entries: [TimelineEntry]
    /// Validators and parsed values of the fetches that gave validators, by stage (`source`,
    /// `inputs.NAME`, and `transforms[1] (fetch) KEY` for a transform's own fetches, see ``FetchCache``),
    /// for conditional requests next time.
    public var cache: [String: CachedFetch]
    /// The stages whose fetch answered "not modified" and reused the cached value.
    public var notModified: [String] = []
    /// The earliest moment a source allows the next fetch (`Cache-Control: max-age`), when one said so.
    public var earliestNextFetch: Date?
    /// The time spent in fetch stages (and in transforms that fetched, such as `fetch`), in seconds.
    public var fetchSeconds: Double = 0
    /// The bytes the fetch stages (and transforms that fetched) returned.
    public var fetchBytes = 0

    /// Creates a result with these entries and cache, no "not modified" stages and no fetch time or bytes.
    public init(entries: [TimelineEntry], cache: [String: CachedFetch]) {
        self.entries = entries
        self.cache = cache
    }
}

/// A fetch's validators (with the request they belong to and the parser that read the payload) and the
/// value it parsed to.
public struct CachedFetch: Sendable, Hashable {
    /// The validators to send with the next request, with the request and parser they belong to.
    public var validators: FetchValidators
    /// The value the payload parsed to, reused when the source answers "not modified".
    public var value: WidgetValue

    /// Creates a cache entry from its validators and parsed value.
    public init(validators: FetchValidators, value: WidgetValue) {
        self.validators = validators
        self.value = value
    }
}

/// A refresh that failed, naming the stage: `source: 127.0.0.1:8123 answered 503 Service Unavailable`.
public struct PipelineError: Error, Sendable, CustomStringConvertible {
    /// The stage, which its description names as a definition would: `source`, `inputs.daily`, `parser`,
    /// `transforms[1] (map)`.
    public var stage: PipelineStage
    /// The kind of stage that failed; a `when` test counts as the fetcher's.
    public var kind: StageKind
    /// The stage's own message.
    public var message: String
    /// How long the source asked us to wait, when it did.
    public var retryAfter: Double?
    /// Whether the refresh was cancelled rather than failed.
    public var isCancellation: Bool

    /// Creates an error for `stage` from the error it threw.
    ///
    /// The message is a ``StageError``'s message (its `retryAfter` is kept), an ``ExpressionError``'s
    /// description, "the refresh was cancelled" for a `CancellationError`, or else the error as text.
    public init(stage: PipelineStage, kind: StageKind, underlying: any Error) {
        self.stage = stage
        self.kind = kind
        isCancellation = underlying is CancellationError
        switch underlying {
        case let error as StageError:
            message = error.message
            retryAfter = error.retryAfter
        case let error as ExpressionError:
            message = error.description
        case is CancellationError:
            message = "the refresh was cancelled"
        default:
            message = String(describing: underlying)
        }
    }

    public var description: String { "\(stage): \(message)" }
}

/// Stages of a definition that could not be built.
public struct PipelineBuildError: Error, Sendable, CustomStringConvertible {
    /// A problem with one stage: its place in the definition and what is wrong with it.
    public struct Problem: Sendable {
        /// The stage's path in the definition.
        public var base: ValuePath
        /// What is wrong, with a path relative to ``base``.
        public var error: OptionsError
    }

    /// The id of the widget whose stages could not be built.
    public var id: String
    /// Every problem found, in the order the stages are built: inputs, source, parser, transforms, timeline.
    public var problems: [Problem]

    public var description: String {
        "The widget \(id) cannot be built: "
            + problems.map { "\($0.base.appending($0.error.path)): \($0.error.message)" }.joined(separator: "; ")
    }
}

// MARK: - Templates

extension StageContext {
    /// The variables templates see: `inputs`, `now`, `widget`, `params`, and `env` and `secret` when
    /// `secrets` is true;
    /// `item`'s members are root names too.
    public func templateScope(item: WidgetValue? = nil, secrets: Bool = false) -> TemplateScope {
        let globals: WidgetObject = [
            "inputs": .object(inputs),
            "now": .string(now.formatted(.iso8601)),
            "widget": widgetValue,
            "params": .object(params),
        ]
        var scope = TemplateScope(globals: globals, item: item, now: now, timeZone: timeZone)
        scope.budget = renderBudget
        if secrets { self.secrets.install(in: &scope, masked: false) }
        return scope
    }
}
