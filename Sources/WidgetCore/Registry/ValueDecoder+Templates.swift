import WidgetLiquid

/// The options decoder hands templates the cache of its read, found once per decode.
extension ValueDecoder: TemplateCacheProviding {
    var templateCache: TemplateCache? { tracker.templates }
}
