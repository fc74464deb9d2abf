public import Foundation
public import WidgetJSON
public import WidgetLiquid

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

    /// The definition and the stages, in one block shared by every copy of the pipeline: a daemon keeps a
    /// pipeline per widget in its tables, whose slots then hold a reference rather than the whole
    /// definition (~800 bytes) each.
    private final class Parts: Sendable {
        let definition: WidgetDefinition
        let inputs: [Input]
        let fetcher: any Fetcher
        let parser: any Parser
        let transformers: [any Transformer]
        let timeline: any TimelineBuilder
        /// The cautions of the stages' options (``CautionedStage``), added to every refresh's warnings.
        let cautions: [PipelineWarning]

        init(
            definition: WidgetDefinition, inputs: [Input], fetcher: any Fetcher, parser: any Parser,
            transformers: [any Transformer], timeline: any TimelineBuilder
        ) {
            self.definition = definition
            self.inputs = inputs
            self.fetcher = fetcher
            self.parser = parser
            self.transformers = transformers
            self.timeline = timeline
            var cautions: [PipelineWarning] = []
            func collect(_ stage: any Stage, _ place: PipelineStage) {
                guard let cautioned = stage as? any CautionedStage else { return }
                for caution in cautioned.cautions {
                    cautions.append(PipelineWarning(stage: place, message: caution.message, widget: definition.id, isCaution: true))
                }
            }
            for input in inputs { collect(input.fetcher, .input(input.name)) }
            collect(fetcher, .source)
            for (index, transformer) in transformers.enumerated() {
                collect(transformer, .transform(index: index, type: Swift.type(of: transformer).typeName))
            }
            self.cautions = cautions
        }
    }

    private let parts: Parts

    /// The definition the stages were built from.
    public var definition: WidgetDefinition { parts.definition }
    /// The named inputs' stages, in the order they run, before the main source.
    public var inputs: [Input] { parts.inputs }
    /// The main source's fetcher.
    public var fetcher: any Fetcher { parts.fetcher }
    /// The parser for the main source's payload.
    public var parser: any Parser { parts.parser }
    /// The transforms, applied in order to the main source's parsed value.
    public var transformers: [any Transformer] { parts.transformers }
    /// The timeline stage that lays the final value out as entries.
    public var timeline: any TimelineBuilder { parts.timeline }

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

    init(
        definition: WidgetDefinition,
        inputs: [Input],
        fetcher: any Fetcher,
        parser: any Parser,
        transformers: [any Transformer],
        timeline: any TimelineBuilder
    ) {
        parts = Parts(
            definition: definition, inputs: inputs, fetcher: fetcher, parser: parser, transformers: transformers, timeline: timeline)
    }

    /// Builds every stage, reporting each failure with the path of the stage it belongs to; `templates`
    /// compiles the options' templates when the caller has compiled some of them already, and `stages`
    /// gives the stages equal references built for other definitions of the same load.
    static func build(
        _ definition: WidgetDefinition,
        registry: StageRegistry,
        filters: FilterRegistry,
        templates: TemplateCache? = nil,
        stages: StageLibrary? = nil,
        report: (OptionsError, ValuePath) -> Void
    ) -> WidgetPipeline? {
        var userInfo: [CodingUserInfoKey: any Sendable] = [FilterRegistry.userInfoKey: filters, StageRegistry.userInfoKey: registry]
        if let templates { userInfo[TemplateCache.userInfoKey] = templates }
        let decoder = OptionsDecoder(userInfo: userInfo)

        func make<S>(_ kind: StageKind, _ spec: StageSpec, as typed: (StageRegistry.BuiltStage) -> S?) -> S? {
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
                let build = { () throws(OptionsError) in
                    try registry.makeBuiltStage(kind, typeName: spec.typeName, options: .object(spec.options), decoder: decoder)
                }
                let built: StageRegistry.BuiltStage
                if let stages { built = try stages.stage(kind, spec, build: build) } else { built = try build() }
                guard let stage = typed(built) else {
                    // The registry files stages by kind, so this is a stage type registered under a kind it
                    // does not conform to: said, not dropped.
                    report(
                        OptionsError(
                            path: .root,
                            message:
                                "the stage type \"\(spec.typeName)\" (\(String(describing: Swift.type(of: built.stage)))) is registered as a \(kind.rawValue) but is not one; register it with the kind of its protocol"
                        ), spec.typePath)
                    return nil
                }
                return stage
            } catch {
                report(error, spec.path)
                return nil
            }
        }

        var inputs: [Input] = []
        for input in definition.inputs {
            let fetcher = make(.fetcher, input.source, as: \.fetcher)
            let parser = make(.parser, input.parser, as: \.parser)
            if let fetcher, let parser { inputs.append(Input(name: input.name, fetcher: fetcher, parser: parser)) }
        }
        let fetcher = make(.fetcher, definition.source, as: \.fetcher)
        let parser = make(.parser, definition.parser, as: \.parser)
        let transformers = definition.transforms.map { make(.transformer, $0, as: \.transformer) }
        let timeline = make(.timeline, definition.timeline.stage, as: \.timeline)
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
    /// A transform that empties the value, or a timeline that gives no entries, adds a
    /// ``PipelineWarning`` to the result. With a `trace`, each stage adds its ``PipelineTrace/Step`` as it
    /// ends, the failed one too.
    ///
    /// - Returns: the entries and the cache to keep for the next refresh (validators are stored only after
    ///   a successful parse).
    /// - Throws: ``PipelineError`` naming the stage that failed and why.
    public func run(
        context: StageContext, cache: [FetchCacheKey: CachedFetch], trace: PipelineTrace? = nil
    ) async throws(PipelineError) -> PipelineResult {
        var result = PipelineResult(entries: [], cache: [:])
        let value = try await runToValue(context: context, cache: cache, result: &result, trace: trace)
        let started = trace?.clock.now()
        let type = Swift.type(of: timeline).typeName
        do throws(PipelineError) {
            result.entries = try layOut(value.value, context: value.context)
        } catch {
            trace?.append(
                .init(stage: .timeline, kind: .timeline, type: type, seconds: trace?.seconds(since: started) ?? 0, outcome: .failed))
            throw error
        }
        var warning: PipelineWarning?
        if result.entries.isEmpty, result.warnings.isEmpty {
            let noEntries = PipelineWarning.noEntries(from: value.value, emptiedBy: value.emptiedBy, widget: id)
            result.warnings.append(noEntries)
            warning = noEntries
        }
        trace?.append(
            .init(
                stage: .timeline, kind: .timeline, type: type, seconds: trace?.seconds(since: started) ?? 0, entries: result.entries,
                warning: warning))
        result.warnings += parts.cautions
        return result
    }

    /// Runs the fetch, parse and transform stages, returning the final value and the context used.
    public func runToValue(context: StageContext) async throws(PipelineError) -> (value: WidgetValue, context: StageContext) {
        var ignored = PipelineResult(entries: [], cache: [:])
        let value = try await runToValue(context: context, cache: [:], result: &ignored, trace: nil)
        return (value.value, value.context)
    }

    /// The final value, the context that produced it, and when the value is empty, the stage that made
    /// it so (the parser, or the transform that emptied it; nil for a source skipped by its `when`).
    private struct FinalValue {
        var value: WidgetValue
        var context: StageContext
        var emptiedBy: PipelineStage?
    }

    private func runToValue(
        context: StageContext,
        cache: [FetchCacheKey: CachedFetch],
        result: inout PipelineResult,
        trace: PipelineTrace?
    ) async throws(PipelineError) -> FinalValue {
        var context = context
        context.params = definition.params
        for (index, input) in inputs.enumerated() {
            let stage = PipelineStage.input(input.name)
            guard try Self.passes(definition.inputs[index].when, stage: stage, context: context, fetcher: input.fetcher, trace: trace)
            else {
                context.inputs[input.name] = .null
                continue
            }
            let value = try await fetchAndParse(
                stage, input.fetcher, input.parser, parserKey: Self.key(of: definition.inputs[index].parser),
                context: context, cache: cache, result: &result, trace: trace)
            context.inputs[input.name] = value
        }
        var value = WidgetValue.null
        var emptiedBy: PipelineStage?
        if try Self.passes(definition.sourceWhen, stage: .source, context: context, fetcher: fetcher, trace: trace) {
            value = try await fetchAndParse(
                .source, fetcher, parser, parserKey: Self.key(of: definition.parser), context: context, cache: cache, result: &result,
                trace: trace)
            if value.isEmptyResult { emptiedBy = .parser }
        }
        for (index, transformer) in transformers.enumerated() {
            let input = value
            let type = Swift.type(of: transformer).typeName
            let stage = PipelineStage.transform(index: index, type: type)
            // A transform that fetches (one request per item) keeps its validators under its own place.
            var transformContext = context
            transformContext.fetchCache = FetchCache(previous: Self.requests(of: stage, in: cache))
            let stageContext = transformContext
            let started = ContinuousClock.now
            let step = try await attempt(stage, .transformer, type: type, trace: trace) {
                try await transformer.transform(input, context: stageContext)
            }
            let fetches = stageContext.fetchCache
            for (key, entry) in fetches.kept { result.cache[FetchCacheKey(stage, request: key)] = entry }
            result.notModified += fetches.notModifiedKeys.map { FetchCacheKey(stage, request: $0) }
            let fetched = fetches.fetched
            if fetched.requests > 0 {
                // A transform that fetched spent its time fetching, as far as the metrics tell.
                result.fetchSeconds += Self.seconds(ContinuousClock.now - started)
                result.fetchBytes += fetched.bytes
            }
            value = step.value
            try Self.checkDepth(of: value, stage: stage, kind: .transformer, made: "the value it made")
            let warning = PipelineWarning.emptied(input, into: value, by: stage, widget: id)
            if let warning { result.warnings.append(warning) }
            if !value.isEmptyResult {
                emptiedBy = nil
            } else if warning != nil {
                emptiedBy = stage
            }
            trace?.append(.init(stage: stage, kind: .transformer, type: type, seconds: step.seconds, value: value, warning: warning))
        }
        return FinalValue(value: value, context: context, emptiedBy: emptiedBy)
    }

    private func fetchAndParse(
        _ stage: PipelineStage,
        _ fetcher: any Fetcher,
        _ parser: any Parser,
        parserKey: String,
        context: StageContext,
        cache: [FetchCacheKey: CachedFetch],
        result: inout PipelineResult,
        trace: PipelineTrace?
    ) async throws(PipelineError) -> WidgetValue {
        var context = context
        // A value parsed by another parser (the definition changed) is not what this one would give.
        let key = FetchCacheKey(stage)
        let cached = cache[key].flatMap { $0.validators.parser == parserKey ? $0 : nil }
        context.validators = cached?.validators ?? FetchValidators()
        let fetchContext = context
        let fetcherType = Swift.type(of: fetcher).typeName
        let parserType = Swift.type(of: parser).typeName
        let started = ContinuousClock.now
        let fetched = try await attempt(stage, .fetcher, type: fetcherType, trace: trace) { try await fetcher.fetch(context: fetchContext) }
        let payload = fetched.value
        guard !payload.notModified || cached != nil else {
            trace?.append(
                .init(stage: stage, kind: .fetcher, type: fetcherType, seconds: fetched.seconds, outcome: .failed, fetch: .init(payload)))
            throw PipelineError(
                stage: stage, kind: .fetcher,
                underlying: StageError("\(payload.origin) answered 304 Not Modified to a request that had no validators")
            )
        }
        trace?.append(.init(stage: stage, kind: .fetcher, type: fetcherType, seconds: fetched.seconds, fetch: .init(payload)))
        for warning in payload.warnings { result.warnings.append(PipelineWarning(stage: stage, message: warning, widget: id)) }
        result.fetchSeconds += Self.seconds(ContinuousClock.now - started)
        result.fetchBytes += payload.data.count
        if let maxAge = payload.maxAge, maxAge > 0 {
            result.sourcesFreshFor = max(result.sourcesFreshFor ?? maxAge, maxAge)
        }
        if payload.notModified, let cached {
            result.cache[key] = cached
            result.notModified.append(key)
            trace?.append(.init(stage: stage.parsing, kind: .parser, type: parserType, seconds: 0, outcome: .reused, value: cached.value))
            return cached.value
        }
        let parsed = try await attempt(stage.parsing, .parser, type: parserType, trace: trace) {
            try parser.parse(payload, context: fetchContext)
        }
        let value = parsed.value
        try Self.checkDepth(of: value, stage: stage.parsing, kind: .parser, made: "the value parsed from \(payload.origin)")
        trace?.append(.init(stage: stage.parsing, kind: .parser, type: parserType, seconds: parsed.seconds, value: value))
        var validators = payload.validators
        if !validators.isEmpty {
            validators.parser = parserKey
            result.cache[key] = CachedFetch(validators: validators, value: value)
        }
        return value
    }

    /// Fails `stage` when `value` nests deeper than `ValueLimits.maximumDepth`: such a value could be
    /// written to the state but not read back. The built-in parsers stop at the limit themselves; this
    /// catches the parsers of plugins and the transforms, which may add levels (`map`).
    static func checkDepth(of value: WidgetValue, stage: PipelineStage, kind: StageKind, made: String) throws(PipelineError) {
        guard ValueLimits.depth(of: value) > ValueLimits.maximumDepth else { return }
        throw PipelineError(stage: stage, kind: kind, underlying: StageError(ValueLimits.tooDeepMessage(made)))
    }

    /// `duration` in seconds.
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    /// The entries of `cache` for the requests of the transform `stage`, by the transform's keys.
    static func requests(of stage: PipelineStage, in cache: [FetchCacheKey: CachedFetch]) -> [String: CachedFetch] {
        var entries: [String: CachedFetch] = [:]
        for (key, entry) in cache where key.stage == stage {
            if let request = key.request { entries[request] = entry }
        }
        return entries
    }

    /// Whether a source with the test `when` is to be fetched: always without one; otherwise when the
    /// template, rendered without secrets, passes (`WidgetValue.passesTest`).
    ///
    /// - Throws: ``PipelineError`` for the fetch's test stage (`STAGE.when`) when the template fails.
    static func passes(_ when: Template?, stage: PipelineStage, context: StageContext) throws(PipelineError) -> Bool {
        guard let when else { return true }
        do {
            return try when.test(context.templateScope())
        } catch {
            throw PipelineError(stage: stage.test, kind: .fetcher, underlying: error)
        }
    }

    /// ``passes(_:stage:context:)``, with a trace step for a test that fails or skips the fetch.
    private static func passes(
        _ when: Template?, stage: PipelineStage, context: StageContext, fetcher: any Fetcher, trace: PipelineTrace?
    ) throws(PipelineError) -> Bool {
        let type = Swift.type(of: fetcher).typeName
        do throws(PipelineError) {
            guard try passes(when, stage: stage, context: context) else {
                trace?.append(.init(stage: stage, kind: .fetcher, type: type, seconds: 0, outcome: .skipped, value: .null))
                return false
            }
            return true
        } catch {
            trace?.append(.init(stage: error.stage, kind: .fetcher, type: type, seconds: 0, outcome: .failed))
            throw error
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
        /// A failed template of the timeline, with its place for the error.
        func failure(_ option: String, _ index: Int, _ error: ExpressionError) -> PipelineError {
            var stageError = StageError("\"\(option)\" failed on entry \(index): \(error)")
            stageError.template = StageError.TemplatePlace(path: ValuePath.root.appending(option), column: error.column)
            return PipelineError(stage: .timeline, kind: .timeline, underlying: stageError)
        }
        for index in entries.indices {
            scope.item = entries[index].content
            if let relevance = spec.relevance {
                do {
                    switch try relevance.render(scope) {
                    case .number(let number): entries[index].relevance = number
                    case .string(let text): entries[index].relevance = WidgetNumber(text.trimmingCharacters(in: .whitespaces))
                    default: entries[index].relevance = nil
                    }
                } catch {
                    throw failure("relevance", index, error)
                }
            }
            if let url = spec.url {
                do {
                    let text = try url.renderString(scope)
                    entries[index].url = text.isEmpty ? nil : text
                } catch {
                    throw failure("url", index, error)
                }
            }
        }
        return entries
    }

    /// Runs one stage's `body`, turning its error into a ``PipelineError`` for `stage`; with a trace, times
    /// it and records a failure (the caller records a success, with what the stage gave).
    private func attempt<T>(
        _ stage: PipelineStage,
        _ kind: StageKind,
        type: String,
        trace: PipelineTrace?,
        _ body: () async throws -> T
    ) async throws(PipelineError) -> (value: T, seconds: Double) {
        let started = trace?.clock.now()
        do {
            let value = try await body()
            return (value, trace?.seconds(since: started) ?? 0)
        } catch {
            trace?.append(.init(stage: stage, kind: kind, type: type, seconds: trace?.seconds(since: started) ?? 0, outcome: .failed))
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
    public var cache: [FetchCacheKey: CachedFetch]
    /// The fetches that were answered "not modified" and reused the cached value.
    public var notModified: [FetchCacheKey] = []
    /// How many seconds the sources' answers stay fresh (the longest `Cache-Control: max-age`), when one
    /// said so: `RefreshPolicy` does not schedule the next refresh before then.
    public var sourcesFreshFor: TimeInterval?
    /// The time spent in fetch stages (and in transforms that fetched, such as `fetch`), in seconds.
    public var fetchSeconds: Double = 0
    /// The bytes the fetch stages (and transforms that fetched) returned.
    public var fetchBytes = 0
    /// What the refresh has to say though it succeeded: stages that emptied the value, a timeline with
    /// no entries.
    public var warnings: [PipelineWarning] = []

    /// Creates a result with these entries and cache, no "not modified" stages, no fetch time or bytes and
    /// no warnings.
    public init(entries: [TimelineEntry], cache: [FetchCacheKey: CachedFetch]) {
        self.entries = entries
        self.cache = cache
    }
}

/// A stage of the pipeline that failed, named as a definition would:
/// `source: 127.0.0.1:8123 answered 503 Service Unavailable`.
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
    /// When a template failed: where it is in the definition (the stage's path, then the option's) and the
    /// column inside it.
    public var template: StageError.TemplatePlace?
    /// The place in the definition file, `file:line:column`, when whoever reports the error found it
    /// (see ``DefinitionReader/locate(_:column:in:)``); the description then names it.
    public var location: String?

    /// Creates an error for `stage` from the error it threw.
    ///
    /// The message is a ``StageError``'s message (its `retryAfter` is kept), an `ExpressionError`'s
    /// description, "the refresh was cancelled" for a `CancellationError`, or else the error as text.
    public init(stage: PipelineStage, kind: StageKind, underlying: any Error) {
        self.stage = stage
        self.kind = kind
        isCancellation = underlying is CancellationError
        switch underlying {
        case let error as StageError:
            message = error.message
            retryAfter = error.retryAfter
            if let place = error.template {
                template = StageError.TemplatePlace(path: stage.definitionPath.appending(place.path), column: place.column)
            }
        case let error as ExpressionError:
            message = error.description
            if let path = stage.templatePath { template = StageError.TemplatePlace(path: path, column: error.column) }
        case is CancellationError:
            message = "the refresh was cancelled"
        default:
            message = String(describing: underlying)
        }
    }

    public var description: String {
        guard let location else { return "\(stage): \(message)" }
        return "\(stage) (\(location)): \(message)"
    }
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
    /// The root names every template of a stage sees, whatever its item: `inputs`, `now`, `widget`,
    /// `params`, `history`, and `env` and `secret` where secrets are allowed (see ``templateScope(item:secrets:)``).
    public static let templateGlobals =
        ["inputs", "now", "widget", "params", "history"] + SecretStore.Namespace.allCases.map(\.rawValue)

    /// The variables templates see: `inputs`, `now`, `widget`, `params`, `history`, and `env` and `secret` when
    /// `secrets` is true; `item`'s members are root names too. Variables are strict (a missing one is an
    /// error unless guarded) and `{% render %}` reads partials from `partials/` in ``baseDirectory``.
    public func templateScope(item: WidgetValue? = nil, secrets: Bool = false) -> TemplateScope {
        let globals: WidgetObject = [
            "inputs": .object(inputs),
            "now": .string(nowText),
            "widget": widgetValue,
            "params": .object(params),
            "history": .object(history),
        ]
        var scope = TemplateScope(globals: globals, item: item, now: now, timeZone: timeZone)
        scope.budget = renderBudget
        scope.steps = templateSteps
        scope.strictVariables = true
        if let partials { scope.partials = partials }
        if secrets { self.secrets.install(in: &scope, masked: false) }
        return scope
    }
}
