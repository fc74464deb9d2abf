import Foundation
public import WidgetCore

/// Checks that a stage follows the rules every stage must follow, for plugin authors' own tests.
///
/// ```swift
/// @Test func transmissionFetcherConforms() {
///     let problems = StageConformance.check(TransmissionFetcher.self, options: ["url": "http://127.0.0.1:9091"])
///     #expect(problems.isEmpty, "\(problems)")
/// }
/// ```
///
/// The checks: the type name is a word that definitions can write (`json`, `runwayPerformance`); the summary is one
/// sentence; the stage registers without clashing with the built-in stages of `registry`; the example
/// options build the stage through the registry; an unknown option is rejected by name; and the stage
/// is usable from several tasks at once (it is a `Sendable` value type or an immutable class).
public enum StageConformance {
    /// Problems with stage `type`, given options that should build it; empty when it conforms.
    public static func check<S: Stage>(
        _ stageType: S.Type,
        options: WidgetValue = [:],
        alongside registry: StageRegistry.Builder = StageRegistry.Builder()
    ) -> [String] {
        var problems: [String] = []
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
        let kind: StageKind
        switch stageType {
        case let fetcher as any Fetcher.Type:
            builder.registerAny(fetcher)
            kind = .fetcher
        case let parser as any Parser.Type:
            builder.registerAny(parser)
            kind = .parser
        case let transformer as any Transformer.Type:
            builder.registerAny(transformer)
            kind = .transformer
        case let timeline as any TimelineBuilder.Type:
            builder.registerAny(timeline)
            kind = .timeline
        default:
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
        do {
            let stage = try built.makeStage(kind, typeName: name, options: options)
            if !(stage is S) { problems.append("the registry built a \(Swift.type(of: stage)), not a \(S.self)") }
        } catch {
            problems.append("the example options do not build the stage: \(error)")
            return problems
        }
        if case .object(var object) = options {
            object["zzUnknownOption"] = true
            do {
                _ = try built.makeStage(kind, typeName: name, options: .object(object))
                problems.append("an unknown option 'zzUnknownOption' was accepted; decode Options with the synthesized Decodable or read only known keys")
            } catch {
                if !error.message.contains("zzUnknownOption") {
                    problems.append("an unknown option was rejected without naming it: \(error.message)")
                }
            }
        }
        return problems
    }
}

extension StageRegistry.Builder {
    fileprivate mutating func registerAny(_ type: any Fetcher.Type) { registerOpened(type) }
    fileprivate mutating func registerAny(_ type: any Parser.Type) { registerOpened(type) }
    fileprivate mutating func registerAny(_ type: any Transformer.Type) { registerOpened(type) }
    fileprivate mutating func registerAny(_ type: any TimelineBuilder.Type) { registerOpened(type) }

    private mutating func registerOpened<F: Fetcher>(_ type: F.Type) { register(type) }
    private mutating func registerOpened<P: Parser>(_ type: P.Type) { register(type) }
    private mutating func registerOpened<T: Transformer>(_ type: T.Type) { register(type) }
    private mutating func registerOpened<T: TimelineBuilder>(_ type: T.Type) { register(type) }
}
