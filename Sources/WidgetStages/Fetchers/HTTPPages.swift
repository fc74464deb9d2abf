public import WidgetCore
public import WidgetJSON

/// How an `http` source reads a list that its API splits into pages: `"pages"` in the source's options.
///
/// Exactly one of `next`, `page` and `offset` says how the next page is found:
///
/// ```json
/// {"next": "link"}                                            // Link: <…>; rel="next" (RFC 8288)
/// {"next": "$.links.next", "items": "$.results"}              // the next page's URL in the body
/// {"next": "$.next_cursor", "param": "cursor", "items": "$.data"}  // a cursor in the body, sent as ?cursor=
/// {"page": "page", "start": 1, "items": "$"}                  // ?page=1, 2, 3 … until an empty page
/// {"offset": "offset", "items": "$.items"}                    // ?offset=0, 20, 40 … (the items read so far)
/// ```
///
/// Each page is read as JSON, and the items found at `items` in each (every match; a single array's
/// elements) are concatenated into one JSON array: the source's payload is what a one-page API would
/// have given, so the parser (`json`) and the transforms see one list. The walk stops at the last page
/// (no next link or cursor, an empty page), at `maxPages` (with a warning that more pages existed), or
/// at a page that repeats an earlier one — the same next URL or cursor, or the same body — with a warning
/// naming the page.
public struct HTTPPages: Decodable, Sendable, Hashable, DescribedOptions {
    /// `"link"` for the `Link` header's `rel="next"`, or the JSONPath of the next page's URL (or, with
    /// ``param``, of its cursor) in each page's body.
    public var next: String?
    /// The query parameter that carries the cursor found at ``next``; without it, ``next`` finds a URL.
    public var param: String?
    /// The query parameter that numbers pages: `page` for `?page=1`, `?page=2`, ….
    public var page: String?
    /// The query parameter that counts the items read so far: `offset` for `?offset=0`, `?offset=20`, ….
    public var offset: String?
    /// The first page's number (default 1) or offset (default 0).
    public var start: Int?
    /// The JSONPath of the items in each page; `$` (the page itself) by default.
    public var items: JSONPath
    /// The most pages read in one refresh.
    public var maxPages: Int
    /// How long to wait between two pages.
    public var delay: WidgetDuration

    /// The default of ``maxPages``.
    public static let defaultMaxPages = 10
    /// The largest ``maxPages`` allowed.
    public static let maximumMaxPages = 100
    /// The longest ``delay`` allowed, in seconds.
    public static let maximumDelay = 60

    /// The keys of `pages`.
    public enum CodingKeys: String, DescribedKey {
        case next, param, page, offset, start, items, maxPages, delay

        public var keyDescription: KeyDescription {
            switch self {
            case .next:
                KeyDescription(
                    "Where the next page is: \"link\" for the Link header's rel=\"next\", or the JSONPath of the next page's URL (or, with param, its cursor) in the body.",
                    .string(pattern: "^(link|\\$.*)$", examples: ["link", "$.next", "$.links.next"]))
            case .param:
                KeyDescription("The query parameter that carries the cursor found at next, e.g. \"cursor\".", .string())
            case .page:
                KeyDescription("The query parameter that numbers the pages, e.g. \"page\"; the walk ends at an empty page.", .string())
            case .offset:
                KeyDescription(
                    "The query parameter that counts the items read so far, e.g. \"offset\"; the walk ends at an empty page.", .string())
            case .start:
                KeyDescription("The first page's number (default 1) or offset (default 0).", .integer(minimum: 0))
            case .items:
                KeyDescription(
                    "The JSONPath of the items in each page; their concatenation is the source's value.", .jsonPath, default: "$")
            case .maxPages:
                KeyDescription(
                    "The most pages read in one refresh; a warning says when more existed.",
                    .integer(minimum: 1, maximum: HTTPPages.maximumMaxPages), default: .number(WidgetNumber(HTTPPages.defaultMaxPages)))
            case .delay:
                KeyDescription("How long to wait between two pages, at most 1m.", .duration, default: "0s")
            }
        }
    }

    /// Exactly one way to find the next page.
    public static var exactlyOneOf: [CodingKeys] { [.next, .page, .offset] }

    /// How the next page is found, checked.
    enum Walk: Sendable, Hashable {
        /// The `Link` header's `rel="next"`.
        case link
        /// A URL at a JSONPath in the body.
        case nextURL(JSONPath)
        /// A cursor at a JSONPath in the body, sent in a query parameter.
        case cursor(JSONPath, param: String)
        /// Numbered pages from `start`.
        case page(param: String, start: Int)
        /// Offsets from `start`, counted in items.
        case offset(param: String, start: Int)
    }

    /// The walk these options describe.
    ///
    /// - Throws: A `StageError` at `pages` naming the fix: none or several of `next`, `page`, `offset`; a
    ///   `next` that is neither `link` nor a JSONPath; a `param` without a body `next`; a `delay` over 1m.
    func walk() throws -> Walk {
        let key = HTTPFetcher.Options.CodingKeys.pages
        let written = [next.map { _ in "next" }, page.map { _ in "page" }, offset.map { _ in "offset" }].compactMap { $0 }
        guard written.count == 1 else {
            throw StageError(
                "\"pages\" needs exactly one of \"next\", \"page\" or \"offset\"\(written.isEmpty ? "" : ", not " + written.map { "\"\($0)\"" }.joined(separator: " and ")); write e.g. {\"next\": \"link\"}",
                option: key)
        }
        guard delay.seconds <= Self.maximumDelay else {
            throw StageError("\"pages.delay\" is \(delay); write at most \"1m\"", option: key)
        }
        if param != nil, next == nil || next == "link" {
            throw StageError(
                "\"pages.param\" sends a cursor found in the body: write \"next\" as its JSONPath, e.g. {\"next\": \"$.next_cursor\", \"param\": \"cursor\"}",
                option: key)
        }
        if let next {
            if next == "link" { return .link }
            let path: JSONPath
            do {
                path = try JSONPath(next)
            } catch {
                throw StageError("\"pages.next\" is neither \"link\" nor a JSONPath: \(error)", option: key)
            }
            if let param { return .cursor(path, param: param) }
            return .nextURL(path)
        }
        if let page { return .page(param: page, start: start ?? 1) }
        return .offset(param: offset ?? "offset", start: start ?? 0)
    }
}
