/// Where a fetch's validators and parsed value are kept between refreshes: a source's or an input's
/// fetch by its stage (`source`, `inputs.NAME`), or one of the requests a transform makes by the
/// transform's stage and the key it chose for the request (`transforms[1] (fetch) KEY`, see
/// ``FetchCache``).
///
/// Its ``description`` is how the widget's state writes it; ``init(_:)`` reads that back.
public struct FetchCacheKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The stage that fetched.
    public var stage: PipelineStage
    /// For a transform's fetch: the key the transform chose for the request; nil for a source or input.
    public var request: String?

    /// The key of `stage`'s fetch, or of the request `request` of a transform's.
    public init(_ stage: PipelineStage, request: String? = nil) {
        self.stage = stage
        self.request = request
    }

    /// Reads a key as ``description`` writes it: `source`, `inputs.NAME`, `transforms[1] (fetch) KEY`;
    /// nil for any other text.
    public init?(_ text: String) {
        if text == "source" {
            self.init(.source)
        } else if text.hasPrefix("inputs."), !text.dropFirst(7).isEmpty {
            self.init(.input(String(text.dropFirst(7))))
        } else if text.hasPrefix("transforms["), let close = text.firstIndex(of: "]"),
            let index = Int(text[text.index(text.startIndex, offsetBy: 11)..<close]),
            text[close...].hasPrefix("] ("), let typeEnd = text[close...].firstIndex(of: ")")
        {
            let type = String(text[text.index(close, offsetBy: 3)..<typeEnd])
            let rest = text[text.index(after: typeEnd)...]
            guard rest.hasPrefix(" ") else { return nil }
            self.init(.transform(index: index, type: type), request: String(rest.dropFirst()))
        } else {
            return nil
        }
    }

    /// `source`, `inputs.NAME`, or the transform's stage and the request's key: `transforms[1] (fetch) KEY`.
    public var description: String {
        request.map { "\(stage) \($0)" } ?? stage.description
    }

    /// Keys sort by their text.
    public static func < (lhs: FetchCacheKey, rhs: FetchCacheKey) -> Bool {
        lhs.description < rhs.description
    }
}
