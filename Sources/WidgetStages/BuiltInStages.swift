public import WidgetCore

extension StageRegistry.Builder {
    /// A builder holding every built-in stage; add your own, then call `build()`.
    ///
    /// ```swift
    /// var builder = StageRegistry.Builder.builtIn()
    /// builder.register(MyFetcher.self)
    /// let registry = try builder.build()
    /// ```
    public static func builtIn() -> StageRegistry.Builder {
        var builder = StageRegistry.Builder()
        builder.registerBuiltInStages()
        return builder
    }

    /// Registers every built-in stage.
    public mutating func registerBuiltInStages() {
        register(HTTPFetcher.self)
        register(FileFetcher.self)
        register(JSONParser.self)
        register(TextParser.self)
        register(SingleTimeline.self)
        register(MapTransform.self)
        register(LimitTransform.self)
        register(SelectTransform.self)
        register(FilterTransform.self)
        register(ChooseTransform.self)
        register(SortTransform.self)
        register(CommandTransform.self)
        register(EachTimeline.self)
        register(FeedParser.self)
        register(XMLValueParser.self)
        register(FirestoreParser.self)
        register(AssetsTransform.self)
        register(ComputeTransform.self)
        register(FetchTransform.self)
    }
}

extension StageRegistry {
    /// The frozen registry of the built-in stages.
    public static let builtIn: StageRegistry = {
        do {
            return try StageRegistry.Builder.builtIn().build()
        } catch {
            preconditionFailure("The built-in stages have clashing names: \(error)")
        }
    }()
}
