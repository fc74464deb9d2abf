import Foundation
public import WidgetCore
public import WidgetJSON
import WidgetLiquid

/// Checks that a stage follows the rules every stage must follow, for plugin authors' own tests.
///
/// ```swift
/// @Test func roundTransformConforms() async {
///     let problems = await StageConformance.check(RoundTransform.self, options: ["places": 2], input: [1.234, 5.678])
///     #expect(problems.isEmpty, "\(problems)")
/// }
/// ```
///
/// The checks of ``check(_:options:alongside:)``: the type name is a word that definitions can write
/// (`json`, `runwayPerformance`); the summary is one sentence; the stage registers without clashing with
/// the stages of `registry`; the example options build the stage through the registry; an unknown option
/// is rejected by name; and, when its options describe their keys (`DescribedOptions`), the description
/// matches what decoding reads: an example of every described key decodes, and leaving a key out fails
/// exactly when it is described as required.
///
/// The forms that take an input (a context for a source) also run the stage: the stage is built once,
/// as the runtime builds it, and run `concurrentRuns` times at once from as many tasks, on the same input
/// and context, as the refreshes of several widgets share one stage. Every run must succeed and give the
/// same result: a stage that keeps state between runs, or shares it between runs without care, does not.
public enum StageConformance {
    /// How many runs the running checks start at once, by default.
    public static let defaultConcurrentRuns = 8

    /// Problems with stage `type`, given options that should build it; empty when it conforms. The stage
    /// is not run: the forms that take an input run it too.
    public static func check<S: Stage>(
        _ stageType: S.Type,
        options: WidgetValue = [:],
        alongside registry: StageRegistry.Builder = StageRegistry.Builder()
    ) -> [String] {
        var problems = describedOptionsProblems(S.Options.self)
        let name = S.typeName
        let allowed = name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "." || $0 == "_"
        }
        if name.isEmpty || !allowed || !(name.unicodeScalars.first.map { ("a"..."z").contains($0) } ?? false) {
            problems.append("typeName '\(name)' must start with a lowercase letter and use only letters, digits, '-', '.', '_'")
        }
        let summary = S.summary
        if summary.isEmpty {
            problems.append("summary is empty; give one sentence for 'widgetd list' and the schema")
        } else if !summary.hasSuffix(".") {
            problems.append("summary '\(summary)' should be one sentence ending with a period")
        }
        var builder = registry
        guard let kind = StageFactory.register(stageType, into: &builder) else {
            problems.append("\(S.self) conforms to Stage but to none of Fetcher, Parser, Transformer, TimelineBuilder")
            return problems
        }
        let built: StageRegistry
        do {
            built = try builder.build()
        } catch {
            problems.append("registering it fails: \(error)")
            return problems
        }
        let decoder = StageFactory.decoder(filters: .standard)
        do {
            let stage = try built.makeStage(kind, typeName: name, options: options, decoder: decoder)
            if !(stage is S) { problems.append("the registry built a \(Swift.type(of: stage)), not a \(S.self)") }
        } catch {
            problems.append("the example options do not build the stage: \(error)")
            return problems
        }
        if case .object(var object) = options {
            object["zzUnknownOption"] = true
            do {
                _ = try built.makeStage(kind, typeName: name, options: .object(object), decoder: decoder)
                problems.append(
                    "an unknown option 'zzUnknownOption' was accepted; decode Options with the synthesized Decodable or read only known keys"
                )
            } catch {
                if !error.message.contains("zzUnknownOption") {
                    problems.append("an unknown option was rejected without naming it: \(error.message)")
                }
            }
        }
        return problems
    }

    // MARK: - Running the stage

    /// The problems of ``check(_:options:alongside:)``, then those of running the transform `type`
    /// `concurrentRuns` times at once on `input`.
    public static func check<T: Transformer>(
        _ type: T.Type,
        options: WidgetValue = [:],
        input: WidgetValue,
        context: StageContext = StageHarness().currentContext(),
        alongside registry: StageRegistry.Builder = StageRegistry.Builder(),
        concurrentRuns: Int = defaultConcurrentRuns
    ) async -> [String] {
        await check(type, options: options, alongside: registry, concurrentRuns: concurrentRuns) { stage in
            try await stage.transform(input, context: context)
        }
    }

    /// The problems of ``check(_:options:alongside:)``, then those of running the source `type`
    /// `concurrentRuns` times at once with `context`.
    public static func check<F: Fetcher>(
        _ type: F.Type,
        options: WidgetValue = [:],
        context: StageContext,
        alongside registry: StageRegistry.Builder = StageRegistry.Builder(),
        concurrentRuns: Int = defaultConcurrentRuns
    ) async -> [String] {
        await check(type, options: options, alongside: registry, concurrentRuns: concurrentRuns) { stage in
            try await stage.fetch(context: context)
        }
    }

    /// The problems of ``check(_:options:alongside:)``, then those of running the parser `type`
    /// `concurrentRuns` times at once on `input`.
    public static func check<P: Parser>(
        _ type: P.Type,
        options: WidgetValue = [:],
        input: Payload,
        context: StageContext = StageHarness().currentContext(),
        alongside registry: StageRegistry.Builder = StageRegistry.Builder(),
        concurrentRuns: Int = defaultConcurrentRuns
    ) async -> [String] {
        await check(type, options: options, alongside: registry, concurrentRuns: concurrentRuns) { stage in
            try stage.parse(input, context: context)
        }
    }

    /// The problems of ``check(_:options:alongside:)``, then those of running the timeline `type`
    /// `concurrentRuns` times at once on `input`.
    public static func check<T: TimelineBuilder>(
        _ type: T.Type,
        options: WidgetValue = [:],
        input: WidgetValue,
        context: StageContext = StageHarness().currentContext(),
        alongside registry: StageRegistry.Builder = StageRegistry.Builder(),
        concurrentRuns: Int = defaultConcurrentRuns
    ) async -> [String] {
        await check(type, options: options, alongside: registry, concurrentRuns: concurrentRuns) { stage in
            try stage.entries(for: input, context: context)
        }
    }

    /// The static checks, then `run` on one stage built from `options`, `concurrentRuns` times at once.
    private static func check<S: Stage, Output: Hashable & Sendable>(
        _ type: S.Type,
        options: WidgetValue,
        alongside registry: StageRegistry.Builder,
        concurrentRuns: Int,
        run: @escaping @Sendable (S) async throws -> Output
    ) async -> [String] {
        var problems = check(type, options: options, alongside: registry)
        guard let stage = try? StageFactory.make(type, options: options, filters: .standard) else { return problems }
        let runs = max(2, concurrentRuns)
        let results = await withTaskGroup(of: Result<Output, any Error>.self) { group in
            for _ in 0..<runs {
                group.addTask {
                    do {
                        return .success(try await run(stage))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            var results: [Result<Output, any Error>] = []
            for await result in group { results.append(result) }
            return results
        }
        var outputs: [Output] = []
        var failures: [String] = []
        for result in results {
            switch result {
            case .success(let output): outputs.append(output)
            case .failure(let error): failures.append("\(error)")
            }
        }
        if let failure = failures.first {
            problems.append("\(failures.count) of \(runs) runs at once failed, the first with: \(failure)")
        }
        let distinct = Set(outputs)
        if distinct.count > 1 {
            problems.append(
                "\(runs) runs at once on the same input gave \(distinct.count) different results; a stage must keep no "
                    + "state between runs (hold it in an actor or a Mutex and make the result not depend on it)"
            )
        }
        return problems
    }
}

extension StageConformance {
    /// Where the description of `options` (when they describe their keys) differs from what decoding reads.
    static func describedOptionsProblems<Options: Decodable>(_ options: Options.Type) -> [String] {
        guard let described = options as? any DescribedOptions.Type else { return [] }
        let shape = described.shape
        var problems: [String] = []
        func decodes(_ object: WidgetObject) -> OptionsError? {
            do {
                _ = try OptionsDecoder().decode(Options.self, from: .object(object))
                return nil
            } catch {
                return error
            }
        }
        if let error = decodes(shape.example()) {
            problems.append("an example of every described option does not decode (\(error)); describe the keys and shapes Options reads")
        }
        for key in shape.keys {
            let error = decodes(shape.example(leaving: [key.name]))
            if key.description.isRequired, error == nil {
                problems.append("'\(key.name)' is described as required, but Options decode without it")
            } else if !key.description.isRequired, let error {
                problems.append("'\(key.name)' is described as optional, but Options need it: \(error)")
            }
        }
        return problems
    }
}
