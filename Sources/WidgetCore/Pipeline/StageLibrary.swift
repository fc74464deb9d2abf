import Synchronization
import WidgetJSON

/// Stages built once for a whole load of a folder of definitions, shared by the reads of all its files:
/// files written from one pattern repeat most of their stages (the same parser, transforms and
/// timeline, often the same inputs), and each is then decoded and checked once for the folder instead
/// of once per file. Safe to use from several threads.
///
/// A stage is looked up by its kind, type name, options and the keys its owner reads (which only the
/// hints of its problems name): built from equal ones, with the same registry, filters and templates
/// (those of the load), it is the same stage, or fails with the same problem. As in ``PipelinePool``,
/// only stages that are values are kept; a stage that is an object, which could keep something of its
/// own, is built again for every file. Problems are kept whatever the stage, and reported again, in the
/// same words, for every file that repeats them.
///
/// A library lives as long as the load that made it (see `DefinitionReader.sharingTemplates()`).
package final class StageLibrary: Sendable {
    private struct Reference: Hashable, Sendable {
        let kind: StageKind
        let typeName: String
        let options: WidgetObject
        let ownerKeys: [String]
    }

    private let built = Mutex<[HashedKey<Reference>: Result<StageRegistry.BuiltStage, OptionsError>]>([:])

    /// An empty library.
    package init() {}

    /// The stage `spec` names as `kind`, or the problem that kept it from being built: built by `build`
    /// the first time any file asks for an equal one.
    func stage(
        _ kind: StageKind, _ spec: StageSpec, build: () throws(OptionsError) -> StageRegistry.BuiltStage
    ) throws(OptionsError) -> StageRegistry.BuiltStage {
        let key = HashedKey(Reference(kind: kind, typeName: spec.typeName, options: spec.options, ownerKeys: spec.ownerKeys))
        if let known = built.withLock({ $0[key] }) { return try known.get() }
        // Built outside the lock: two files asking at once build equal stages.
        let result = Result { () throws(OptionsError) in try build() }
        if case .success(let stage) = result, Swift.type(of: stage.stage as Any) is AnyClass { return stage }
        built.withLock { $0[key] = result }
        return try result.get()
    }
}
