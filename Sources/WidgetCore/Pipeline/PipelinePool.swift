import Synchronization
import WidgetJSON

/// What the pipelines of one load of the definitions have in common, kept once: equal stage references
/// (their options, paths and keys) share one copy, and stages built from equal references share one
/// instance.
///
/// A thousand widgets written alike (`instances`, or files made from one pattern) differ in a URL or a
/// title; the rest of each definition — the transforms' options, their compiled paths and templates —
/// would otherwise be held a thousand times. A stage built from the same type name and options, with the
/// same registry and filters, behaves the same wherever it runs: stages are values, and their instances
/// are shared only when they are not objects, which could keep something of their own.
///
/// Share each pipeline as soon as it is built: the copies it replaces are then freed among the
/// temporary blocks of its own reading, rather than scattered among the blocks kept for good. A pool is
/// safe to use from several threads.
///
/// ```swift
/// let pool = PipelinePool()
/// let widgets = loaded.map { pool.share($0) }
/// ```
public final class PipelinePool: Sendable {
    fileprivate struct StageKey: Hashable {
        var kind: StageKind
        var typeName: String
        var options: WidgetObject
    }

    fileprivate struct Parts {
        var objects: Set<WidgetObject> = []
        var paths: Set<ValuePath> = []
        var keyLists: Set<[String]> = []
        var specLists: Set<[StageSpec]> = []
        var stages: [StageKey: any Stage] = [:]
        /// The transforms built from each list of references, when every one of them is shared.
        var transformLists: [[StageSpec]: [any Transformer]] = [:]
    }

    private let parts = Mutex(Parts())

    /// An empty pool.
    public init() {}

    /// `pipeline` with the parts it has in common with the pipelines shared before it taken from them.
    public func share(_ pipeline: WidgetPipeline) -> WidgetPipeline {
        parts.withLock { $0.share(pipeline) }
    }
}

extension PipelinePool.Parts {
    mutating func share(_ pipeline: WidgetPipeline) -> WidgetPipeline {
        var definition = pipeline.definition
        definition.source = share(definition.source)
        definition.parser = share(definition.parser)
        definition.transforms = specLists.insert(definition.transforms.map { share($0) }).memberAfterInsert
        definition.timeline.stage = share(definition.timeline.stage)
        definition.inputs = definition.inputs.map { input in
            var input = input
            input.source = share(input.source)
            input.parser = share(input.parser)
            return input
        }
        let inputs = zip(definition.inputs, pipeline.inputs).map { spec, input in
            WidgetPipeline.Input(
                name: input.name, fetcher: share(input.fetcher, .fetcher, spec.source),
                parser: share(input.parser, .parser, spec.parser))
        }
        return WidgetPipeline(
            definition: definition, inputs: inputs, fetcher: share(pipeline.fetcher, .fetcher, definition.source),
            parser: share(pipeline.parser, .parser, definition.parser),
            transformers: share(pipeline.transformers, definition.transforms),
            timeline: share(pipeline.timeline, .timeline, definition.timeline.stage))
    }

    /// `spec` with its options, paths and keys taken from equal ones shared before.
    mutating func share(_ spec: StageSpec) -> StageSpec {
        var spec = spec
        spec.options = objects.insert(spec.options).memberAfterInsert
        spec.path = paths.insert(spec.path).memberAfterInsert
        spec.typePath = paths.insert(spec.typePath).memberAfterInsert
        spec.ownerKeys = keyLists.insert(spec.ownerKeys).memberAfterInsert
        return spec
    }

    /// The transforms built first from a list of references equal to `specs`, when each is a value;
    /// `transformers`, each shared, otherwise.
    mutating func share(_ transformers: [any Transformer], _ specs: [StageSpec]) -> [any Transformer] {
        if let known = transformLists[specs] { return known }
        let shared = zip(transformers, specs).map { share($0, .transformer, $1) }
        if shared.allSatisfy({ !(Swift.type(of: $0 as Any) is AnyClass) }) { transformLists[specs] = shared }
        return shared
    }

    /// The instance built first from a reference equal to `spec`, when `stage` is a value; `stage` itself
    /// otherwise.
    mutating func share<S>(_ stage: S, _ kind: StageKind, _ spec: StageSpec) -> S {
        guard !(Swift.type(of: stage as Any) is AnyClass) else { return stage }
        let key = PipelinePool.StageKey(kind: kind, typeName: spec.typeName, options: spec.options)
        if let known = stages[key] as? S { return known }
        if let value = stage as? any Stage { stages[key] = value }
        return stage
    }
}
