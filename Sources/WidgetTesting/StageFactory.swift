import Foundation
import WidgetCore
import WidgetJSON
import WidgetLiquid

/// Builds stages the way the runtime builds them: through a registry, with the strict options decoder
/// and the template filters definitions use. Shared by ``StageHarness`` and ``StageConformance``.
enum StageFactory {
    /// Registers `type` in `builder` under its kind; the kind, or `nil` for a stage of none of the four.
    static func register<S: Stage>(_ type: S.Type, into builder: inout StageRegistry.Builder) -> StageKind? {
        switch type {
        case let fetcher as any Fetcher.Type:
            builder.registerAny(fetcher)
            return .fetcher
        case let parser as any Parser.Type:
            builder.registerAny(parser)
            return .parser
        case let transformer as any Transformer.Type:
            builder.registerAny(transformer)
            return .transformer
        case let timeline as any TimelineBuilder.Type:
            builder.registerAny(timeline)
            return .timeline
        default:
            return nil
        }
    }

    /// The decoder the pipeline decodes options with.
    static func decoder(filters: FilterRegistry) -> OptionsDecoder {
        OptionsDecoder(userInfo: [FilterRegistry.userInfoKey: filters])
    }

    /// A `type` built from `options`, as a definition's stage object; a `"type"` member naming the
    /// stage itself is allowed, as a definition writes it.
    ///
    /// - Throws: ``OptionsError`` for options the stage refuses (the registry's words, with the path);
    ///   ``StageHarnessError`` for a `"type"` naming another stage or a stage of no kind.
    static func make<S: Stage>(_ type: S.Type, options: WidgetValue, filters: FilterRegistry) throws -> S {
        var options = options
        if case .object(var members) = options, let named = members["type"] {
            guard named == .string(S.typeName) else {
                throw StageHarnessError(message: "the options name the stage \(JSONWriter.string(named)), not \"\(S.typeName)\"")
            }
            members["type"] = nil
            options = .object(members)
        }
        var builder = StageRegistry.Builder()
        guard let kind = register(type, into: &builder) else {
            throw StageHarnessError(message: "\(S.self) conforms to Stage but to none of Fetcher, Parser, Transformer, TimelineBuilder")
        }
        let stage = try builder.build().makeStage(kind, typeName: S.typeName, options: options, decoder: decoder(filters: filters))
        guard let built = stage as? S else {
            throw StageHarnessError(message: "the registry built a \(Swift.type(of: stage)), not a \(S.self)")
        }
        return built
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
