import Foundation
import WidgetCore
import WidgetJSON

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Pages

extension HTTPFetcher {
    /// Reads the pages that follow `response`, the first page's answer to `first`, as `walk` finds them,
    /// and gives one JSON array of the items of all pages.
    ///
    /// Every page is read as JSON. The walk keeps to the request's deadline (`timeout`, for all pages
    /// and the delays between them) and body cap (`maxBytes`, for all pages together: each page may
    /// bring up to the cap, and the walk fails once their sum passes it), stays on the first
    /// page's origin (a next URL elsewhere fails the fetch: its headers may carry secrets), and sends each
    /// page's request through ``send(_:context:)``, so a host's `Retry-After` and rate apply to each page.
    ///
    /// - Throws: A `StageError` naming the page: not JSON, a status of 400 or more, another origin, the
    ///   deadline or the cap passed.
    func readPages(
        _ walk: HTTPPages.Walk, first: HTTPRequest, response firstResponse: HTTPResponse, context: StageContext, item: WidgetValue?,
        authorization: OAuth2Authorization? = nil
    ) async throws -> Payload {
        guard let pages else { preconditionFailure("a walk without pages") }
        let started = ContinuousClock.now
        let clock = context.resources[HostLimits.self]?.clock ?? SystemClock()
        var waited = 0.0
        var request = first
        var response = firstResponse
        var items: [WidgetValue] = []
        var lines: [String] = []
        var warnings: [String] = []
        var bytes = 0
        var seenNext: [String: Int] = [:]
        var seenBodies: [UInt64: Int] = [:]
        var page = 1
        while true {
            if page > 1 {
                guard response.isSuccess else {
                    throw failure(response, to: request, context: context, page: page, authorization: authorization)
                }
            }
            bytes += response.body.count
            guard bytes <= maxBytes else {
                throw StageError(
                    "the pages of \(first.hostDescription) came to more than \"maxBytes\" (\(maxBytes) bytes) by page \(page); raise it or lower \"maxPages\""
                )
            }
            let shown = requestLine(request, context: context, authorization)
            let value: WidgetValue
            do {
                value = try JSONReader.read(response.body, limits: ValueLimits(bodyCap: maxBytes))
            } catch {
                throw StageError("page \(page) (\(shown)) is not JSON, so its items cannot be read: \(error)")
            }
            let hash = StableHash.fnv1a(response.body)
            if let earlier = seenBodies[hash] {
                warnings.append("page \(page) (\(shown)) repeats page \(earlier), so the pages stopped there; check \"pages\"")
                lines.append("page \(page): \(shown), the same body as page \(earlier): stopped")
                break
            }
            seenBodies[hash] = page
            let found = Self.items(in: value, at: pages.items)
            lines.append("page \(page): \(shown), \(response.status), \(response.body.count) bytes, \(found.count) items")
            if found.isEmpty { break }
            items += found
            guard
                let next = try nextPage(
                    walk, after: request, first: first, response: response, value: value, count: items.count, page: page)
            else {
                break
            }
            let nextURL = next.url
            if let earlier = seenNext[next.key] {
                warnings.append(
                    "page \(page + 1) would repeat page \(earlier + 1) (the same \(next.what)), so the pages stopped at page \(page); check \"pages\""
                )
                break
            }
            seenNext[next.key] = page
            guard HTTPRequest.isSameOrigin(first.url, nextURL) else {
                throw StageError(
                    "page \(page + 1) is on another origin, \(HTTPRequest.hostDescription(of: nextURL)), than the first (\(first.hostDescription)); pages are read from one origin only, so that its headers go nowhere else"
                )
            }
            guard page < pages.maxPages else {
                warnings.append(
                    "more pages existed after page \(page): \"maxPages\" is \(pages.maxPages); raise it (at most \(HTTPPages.maximumMaxPages)) to read them"
                )
                break
            }
            if pages.delay.seconds > 0 {
                try await clock.sleep(until: clock.now().addingTimeInterval(pages.delay.timeInterval))
                waited += pages.delay.timeInterval
            }
            let elapsed = Self.seconds(ContinuousClock.now - started) + waited
            guard elapsed < timeout else {
                throw StageError(
                    "the pages of \(first.hostDescription) took longer than \"timeout\" (\(Int(timeout))s) by page \(page + 1); raise it or lower \"maxPages\""
                )
            }
            request = first
            request.url = nextURL
            request.timeout = timeout - elapsed
            response = try await send(request, context: context)
            page += 1
        }
        for warning in warnings { context.log(masked(warning, context: context)) }
        var payload = Payload(
            data: JSONWriter.data(.array(items)),
            contentType: "application/json",
            charset: "utf-8",
            origin: origin(of: first, context: context, item: item),
            status: firstResponse.status,
            maxAge: HTTPFetcher.freshness(firstResponse).map(Double.init),
            request: requestLine(first, context: context, authorization),
            maxBytes: maxBytes
        )
        payload.pages = lines.map { masked($0, context: context) }
        payload.warnings = warnings.map { masked($0, context: context) }
        return payload
    }

    /// The items of one page: the elements of the one array at `path`, or every match.
    static func items(in value: WidgetValue, at path: JSONPath) -> [WidgetValue] {
        let matches = path.select(value)
        if matches.count == 1, case .array(let elements) = matches[0] { return elements }
        return matches.filter { $0 != .null }
    }

    /// The page after the one `response` answered to `request`: its URL, what tells it from the others
    /// (`key`), and what that is called in a warning; `nil` when there is none.
    private func nextPage(
        _ walk: HTTPPages.Walk, after request: HTTPRequest, first: HTTPRequest, response: HTTPResponse, value: WidgetValue, count: Int,
        page: Int
    ) throws -> (url: URL, key: String, what: String)? {
        switch walk {
        case .link:
            guard let link = response.headers.values(for: "Link").lazy.compactMap({ Self.nextLink(in: $0) }).first,
                let url = URL(string: link, relativeTo: response.finalURL)?.absoluteURL
            else { return nil }
            return (url, url.absoluteString, "next link")
        case .nextURL(let path):
            guard case .string(let text)? = path.select(value).first, !text.isEmpty else { return nil }
            guard let url = URL(string: text, relativeTo: response.finalURL)?.absoluteURL,
                ["http", "https"].contains(url.scheme?.lowercased())
            else {
                throw StageError("page \(page)'s next page, at \(path.text), is not a URL; check \"pages.next\"")
            }
            return (url, url.absoluteString, "next URL")
        case .cursor(let path, let param):
            let cursor: String
            switch path.select(value).first {
            case .string(let text)? where !text.isEmpty: cursor = text
            case .number(let number)?: cursor = number.text
            default: return nil
            }
            return (Self.url(first.url, setting: param, to: cursor), cursor, "cursor")
        case .page(let param, let start):
            let number = String(start + page)
            return (Self.url(first.url, setting: param, to: number), number, "page number")
        case .offset(let param, let start):
            let offset = String(start + count)
            return (Self.url(first.url, setting: param, to: offset), offset, "offset")
        }
    }

    /// `url` with the query parameter `name` set to `value` (added when absent).
    static func url(_ url: URL, setting name: String, to value: String) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+;#")
        let encoded = value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
        var items = components.percentEncodedQueryItems ?? []
        if let index = items.firstIndex(where: { $0.name == name }) {
            items[index].value = encoded
        } else {
            items.append(URLQueryItem(name: name, value: encoded))
        }
        components.percentEncodedQueryItems = items
        return components.url ?? url
    }

    /// The target of the `rel="next"` link in a `Link` header value (RFC 8288), when there is one:
    /// `<https://api.github.com/…&page=2>; rel="next", <…>; rel="last"` gives the first URL.
    package static func nextLink(in header: String) -> String? {
        var rest = Substring(header)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { return nil }
            let target = rest[rest.index(after: open)..<close]
            // The parameters run to the next link: a comma outside quotes.
            var end = rest.index(after: close)
            var quoted = false
            while end < rest.endIndex {
                let character = rest[end]
                if character == "\"" { quoted.toggle() }
                if character == ",", !quoted { break }
                end = rest.index(after: end)
            }
            for parameter in rest[rest.index(after: close)..<end].split(separator: ";") {
                let parts = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, parts[0].lowercased() == "rel" else { continue }
                let relations = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased().split(separator: " ")
                if relations.contains("next") { return String(target) }
            }
            rest = end < rest.endIndex ? rest[rest.index(after: end)...] : ""
        }
        return nil
    }

    /// `duration` in seconds.
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
