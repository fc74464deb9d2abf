public import WidgetJSON

/// Templates compiled once per text, for one reading of a definition: the text of a template is then
/// parsed once, whether the definition's own keys, a stage's options or the secret and limit checks ask
/// for it.
///
/// Put one in a decoder's `userInfo` under ``userInfoKey``, or let the decoder hand it out as a
/// ``TemplateCacheProviding``: ``Template`` and ``TemplateTree`` decode through it.
///
/// ```swift
/// let cache = TemplateCache(filters: .standard)
/// let decoder = JSONDecoder()
/// decoder.userInfo[TemplateCache.userInfoKey] = cache
/// ```
public final class TemplateCache: @unchecked Sendable {
    // Not locked: a cache belongs to one synchronous read on one thread.
    /// The filters every template of the cache is compiled with.
    public let filters: FilterRegistry
    private var compiled: [String: Result<Template, ExpressionError>] = [:]
    /// The templates of the other files of the same load, when there is one.
    private let library: TemplateLibrary?

    /// The `userInfo` key under which decoders find the cache.
    public static let userInfoKey = CodingUserInfoKey(rawValue: "widgetd.template.cache")!

    /// Creates an empty cache that compiles templates with `filters`.
    public convenience init(filters: FilterRegistry) {
        self.init(filters: filters, library: nil)
    }

    /// Creates an empty cache that takes the templates it has not compiled yet from `library`, or compiles
    /// them with `filters` without one; `library` must compile with the same filters.
    package init(filters: FilterRegistry, library: TemplateLibrary?) {
        self.filters = filters
        self.library = library
        // A definition has a few dozen templates at most: never grow while reading one (a cache with a
        // library keeps none of its own).
        if library == nil { compiled.reserveCapacity(32) }
    }

    /// The cache of `decoder`: the one it provides when it is a ``TemplateCacheProviding``, else the one
    /// in its `userInfo`.
    static func of(_ decoder: any Decoder) -> TemplateCache? {
        if let decoder = decoder as? any TemplateCacheProviding { return decoder.templateCache }
        return decoder.userInfo[userInfoKey] as? TemplateCache
    }

    /// The template of `text`, compiled the first time it is asked for.
    ///
    /// - Throws: `ExpressionError` when `text` is not a valid template.
    public func template(_ text: String) throws(ExpressionError) -> Template {
        // With a library, the library alone: one lookup, rather than a miss here, a lookup there and a copy.
        if let library { return try library.compile(text).get() }
        if let known = compiled[text] { return try known.get() }
        let result = Result { () throws(ExpressionError) in try Template(text, filters: filters) }
        compiled[text] = result
        return try result.get()
    }

    /// The JSONPath of `text`: from the library when the cache has one, which parses each text once for
    /// all the files of a load.
    ///
    /// - Throws: `ExpressionError` when `text` is not a valid JSONPath.
    package func jsonPath(_ text: String) throws(ExpressionError) -> JSONPath {
        guard let library else { return try JSONPath(text) }
        return try library.jsonPath(text).get()
    }
}

/// A decoder that hands out the ``TemplateCache`` of the read it belongs to, found once per read rather
/// than looked up in its `userInfo` for every template.
///
/// ``Template`` and ``TemplateTree`` ask a decoder that conforms for its cache, and a decoder that does not
/// for the one under ``TemplateCache/userInfoKey``.
public protocol TemplateCacheProviding {
    /// The cache templates are compiled through, or `nil` to compile each with the decoder's filters.
    var templateCache: TemplateCache? { get }
}
