import Foundation
public import WidgetCore
public import WidgetJSON
import WidgetLiquid

/// Fetches one URL per item of a list and parses each answer: a fan-out, such as Hacker News' top
/// stories (a list of ids, then one request per id).
///
/// ```json
/// {"type": "fetch", "url": "https://hacker-news.firebaseio.com/v0/item/{{ item }}.json",
///  "parser": "json", "concurrency": 5, "onError": "drop"}
/// ```
///
/// - The value must be a list (at most `maxItems`, default 100, so that a missing `limit` cannot send
///   thousands of requests). For each item the `url`, `headers` and `body` templates are rendered with the
///   item in scope (`item` is the item, its members are root names) beside `inputs`, `params`, `now` and
///   `widget`; they must read the item, or every item would fetch the same thing.
/// - Each answer is read by `parser` (default `json`; any registered parser, by name or as
///   `{"type": NAME, …options}`), and replaces its item; with `into`, it is added to the item (an object)
///   under that name instead. The order of the items is kept.
/// - The requests are those of an HTTP source, made by ``HTTPFetcher`` through `context.http`: the
///   runtime's client and its per-host limit, the coalescing of identical requests in a wave,
///   `--rewrite-origin`, deadlines (`timeout`, `connectTimeout`), a size cap (`maxBytes`), secrets
///   (`env`, `secret`) allowed in `url`, `headers` and `body` and masked in every message. At most
///   `concurrency` (default 4) are in flight at once, and never more than the per-host limit to one host.
/// - Conditional requests per URL: each request sends the `ETag` and `Last-Modified` its URL earned at
///   the last refresh, and a `304 Not Modified` reuses the value parsed then (kept in `FetchCache`).
/// - The answers together hold at most as many values as one answer may (`ValueLimits`, scaled from
///   `maxBytes`): past that, the refresh fails.
/// - `onError` says what an item whose fetch or parse fails does: `fail` (the default) fails the refresh,
///   naming the item; `drop` leaves the item out, logs why, and keeps the others.
public struct FetchTransform: Transformer {
    /// The request's options (``RequestOptions``), and those of the fan-out.
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// Each item's request: `url`, `method`, `headers`, `body`, `timeout`, `connectTimeout`,
        /// `maxBytes` (for each item), as an HTTP source reads them; its templates read the item.
        public var request: RequestOptions
        /// The parser for each answer.
        public var parser: ParserChoice
        /// How many requests are in flight at once.
        public var concurrency: Int
        /// What an item whose fetch or parse fails does.
        public var onError: FailurePolicy
        /// Adds each answer to its item under this name instead of replacing the item.
        public var into: String?
        /// The most items one refresh may fetch.
        public var maxItems: Int

        /// The keys of the fan-out, read beside ``RequestOptions/CodingKeys``.
        public enum CodingKeys: String, DescribedKey {
            case parser, concurrency, onError, into, maxItems

            public var keyDescription: KeyDescription {
                switch self {
                case .parser:
                    KeyDescription(
                        "The parser for each answer: a name, or an object with \"type\" and its options.",
                        // Any parser; "json" first, as the example a conformance check decodes.
                        .either([.oneOf([JSONParser.typeName]), .reference("parser")]), default: "json")
                case .concurrency:
                    KeyDescription(
                        "How many requests are in flight at once (never more than the per-host limit to one host).",
                        .integer(minimum: 1, maximum: FetchTransform.maximumConcurrency),
                        default: .number(WidgetNumber(FetchTransform.defaultConcurrency)))
                case .onError:
                    KeyDescription(
                        "What an item whose fetch or parse fails does: fail the refresh, or drop the item (logged) and keep the others.",
                        .oneOf(FailurePolicy.allCases.map(\.rawValue)), default: .string(FailurePolicy.fail.rawValue),
                        fix: "use \"fail\" (fail the refresh) or \"drop\" (leave the item out)")
                case .into:
                    KeyDescription(
                        "Add each answer to its item (an object) under this name, instead of replacing the item.",
                        .string(examples: ["details"]))
                case .maxItems:
                    KeyDescription(
                        "The most items one refresh may fetch; a longer list fails the refresh (put a limit before).",
                        .integer(minimum: 1), default: .number(WidgetNumber(FetchTransform.defaultMaxItems)))
                }
            }
        }

        /// The request's keys, then the fan-out's.
        public static var describedKeys: [any DescribedKey] {
            RequestOptions.describedKeys + CodingKeys.allCases.map { $0 as any DescribedKey }
        }

        public init(from decoder: any Decoder) throws {
            request = try RequestOptions(from: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            parser = try container.decode(ParserChoice.self, forKey: .parser)
            concurrency = try container.decode(Int.self, forKey: .concurrency)
            onError = try container.decode(FailurePolicy.self, forKey: .onError)
            into = try container.decodeIfPresent(String.self, forKey: .into)
            maxItems = try container.decode(Int.self, forKey: .maxItems)
        }
    }

    /// What an item whose fetch or parse fails does.
    public enum FailurePolicy: String, Sendable, CaseIterable, Decodable {
        /// The refresh fails, naming the item.
        case fail
        /// The item is left out (and the reason logged); the others are kept.
        case drop
    }

    /// A parser a definition names inside another stage's options (the `fetch` transform's `parser`): a
    /// name, or `{"type": NAME, …options}`, built from the registry that builds the pipeline (the
    /// built-in stages when the decoder carries none, see `StageRegistry.userInfoKey`).
    public struct ParserChoice: Decodable, Sendable {
        /// The parser, built and checked.
        public let parser: any Parser
        /// The parser's type and options as one string: a value parsed by another parser is not reused.
        public let key: String

        public init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer().decode(WidgetValue.self)
            func failure(_ error: OptionsError) -> DecodingError {
                .dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message, underlyingError: error))
            }
            let typeName: String
            var options = WidgetObject()
            switch value {
            case .string(let name):
                typeName = name
            case .object(var object):
                guard case .string(let name)? = object["type"] else {
                    throw failure(
                        OptionsError(path: .root, message: "the parser has no \"type\"; write e.g. \"json\" or {\"type\": \"xml\"}"))
                }
                object["type"] = nil
                typeName = name
                options = object
            default:
                throw failure(
                    OptionsError(
                        path: .root, message: "the parser must be a name such as \"json\" or an object with \"type\", not \(value.typeName)"
                    ))
            }
            let registry = decoder.userInfo[StageRegistry.userInfoKey] as? StageRegistry ?? .builtIn
            var userInfo: [CodingUserInfoKey: any Sendable] = [StageRegistry.userInfoKey: registry]
            if let filters = decoder.userInfo[FilterRegistry.userInfoKey] as? FilterRegistry {
                userInfo[FilterRegistry.userInfoKey] = filters
            }
            do throws(OptionsError) {
                let stage = try registry.makeStage(
                    .parser, typeName: typeName, options: .object(options), decoder: OptionsDecoder(userInfo: userInfo))
                guard let parser = stage as? any Parser else {
                    throw OptionsError(path: .root, message: "the stage \"\(typeName)\" is registered as a parser but is not one")
                }
                self.parser = parser
            } catch var error {
                // A bare name has no "type" member to point at.
                if case .string = value { error.path = .root }
                throw failure(error)
            }
            key = typeName + " " + JSONWriter.string(.object(options))
        }
    }

    public static let typeName = "fetch"
    public static let summary = "Fetches one URL per item of a list (a fan-out) and parses each answer, politely and conditionally."

    /// The default ``concurrency``.
    public static let defaultConcurrency = 4
    /// The largest ``concurrency``.
    public static let maximumConcurrency = 32
    /// The default ``maxItems``.
    public static let defaultMaxItems = 100

    /// The root names every template sees whatever the item: what is left names the item.
    static let globalNames = Set(StageContext.templateGlobals)

    /// The request each item makes, built as an HTTP source is.
    public let fetcher: HTTPFetcher
    /// The parser of each answer.
    public let parser: any Parser
    /// The parser's type and options, kept with each cached value.
    let parserKey: String
    /// How many requests are in flight at once, from 1 to ``maximumConcurrency``.
    public let concurrency: Int
    /// What an item whose fetch or parse fails does.
    public let onError: FailurePolicy
    /// The member each answer is added under, or `nil` to replace the item.
    public let into: String?
    /// The most items one refresh may fetch.
    public let maxItems: Int

    /// Checks the options and builds the request and the parser.
    ///
    /// - Throws: A `StageError` naming the option at fault: a request option an HTTP source would refuse,
    ///   templates that do not read the item, a `concurrency` or `maxItems` out of range, an unknown
    ///   `onError`.
    public init(options: Options) throws {
        fetcher = try HTTPFetcher(request: options.request)
        parser = options.parser.parser
        parserKey = options.parser.key
        concurrency = options.concurrency
        maxItems = options.maxItems
        onError = options.onError
        if let into = options.into, into.isEmpty {
            throw StageError(
                "\"into\" is empty; name the field each answer is added under, e.g. \"details\"", option: Options.CodingKeys.into)
        }
        into = options.into
        // Names a template sets itself (a loop's variable) read nothing of the item.
        let request = options.request
        var names = request.url.freeVariables
        for header in (request.headers ?? [:]).values { names.formUnion(header.freeVariables) }
        if let body = request.body { names.formUnion(body.freeVariables) }
        guard !names.subtracting(Self.globalNames).isEmpty else {
            throw StageError(
                "\"url\" does not read the item, so every item would fetch the same URL; put the item in it, e.g. \"https://example.com/item/{{ item }}.json\" or \"…/{{ id }}.json\" for an item's field",
                option: RequestOptions.CodingKeys.url)
        }
    }

    public func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue {
        guard case .array(let items) = value else {
            throw StageError(
                "fetch needs a list of items, but the value is \(value.typeName); select a list first, e.g. {\"type\": \"select\", \"path\": \"$.items[*]\"}"
            )
        }
        guard items.count <= maxItems else {
            throw StageError(
                "the list has \(items.count) items, more than \"maxItems\" (\(maxItems)) requests for one refresh; put a limit before the fetch, e.g. {\"type\": \"limit\", \"count\": 10}, or raise \"maxItems\""
            )
        }
        if into != nil, let index = items.firstIndex(where: { $0.object == nil }) {
            throw StageError(
                "\"into\" adds the answer to each item, but item \(index) is \(items[index].typeName), not an object; leave \"into\" out to replace the items"
            )
        }
        var results = [WidgetValue?](repeating: nil, count: items.count)
        // The answers together are one parsed value: they hold at most as many values as one answer may.
        let limits = ValueLimits(bodyCap: fetcher.maxBytes)
        var values = 0
        try await withThrowingTaskGroup(of: (Int, WidgetValue?).self) { group in
            var next = 0
            func addNext() {
                guard next < items.count else { return }
                let index = next
                next += 1
                group.addTask { (index, try await self.fetch(items[index], index: index, context: context)) }
            }
            for _ in 0..<min(concurrency, items.count) { addNext() }
            while let (index, result) = try await group.next() {
                if let result {
                    values += ValueLimits.count(of: result, upTo: limits.maximumValues - values)
                    if values > limits.maximumValues {
                        group.cancelAll()
                        throw StageError(limits.tooManyValuesMessage("the value the answers of the fetch make together"))
                    }
                }
                results[index] = result
                addNext()
            }
        }
        var kept: [WidgetValue] = []
        kept.reserveCapacity(items.count)
        for (index, result) in results.enumerated() {
            guard let result else { continue }
            if let into, case .object(var object) = items[index] {
                object[into] = result
                kept.append(.object(object))
            } else {
                kept.append(result)
            }
        }
        return .array(kept)
    }

    /// The parsed answer for `item`, or `nil` when it failed and ``onError`` drops it.
    private func fetch(_ item: WidgetValue, index: Int, context: StageContext) async throws -> WidgetValue? {
        do {
            return try await fetchAndParse(item, context: context)
        } catch let error as StageError {
            switch onError {
            case .fail:
                var failure = error
                failure.message = "item \(index): \(error.message); set \"onError\": \"drop\" to leave failing items out"
                throw failure
            case .drop:
                context.log("fetch: item \(index) was left out: \(error.message)")
                return nil
            }
        }
    }

    /// Fetches `item`'s request with the validators its URL earned last time, and parses the answer, or
    /// reuses the value parsed then when the server answers "not modified".
    ///
    /// - Throws: A `StageError` that names the request's host (fetch) or origin (parse);
    ///   `CancellationError` when the refresh is stopped.
    private func fetchAndParse(_ item: WidgetValue, context: StageContext) async throws -> WidgetValue {
        let key = fetcher.requestFingerprint(context: context, item: item)
        let cached = context.fetchCache.entry(for: key).flatMap { $0.validators.parser == parserKey ? $0 : nil }
        var itemContext = context
        itemContext.validators = cached?.validators ?? FetchValidators()
        let payload = try await fetcher.fetch(context: itemContext, item: item, fingerprint: key)
        context.fetchCache.recordFetch(bytes: payload.data.count)
        if payload.notModified {
            guard let cached else { throw StageError("\(payload.origin) answered 304 Not Modified to a request that had no validators") }
            context.fetchCache.keep(cached, for: key, notModified: true)
            return cached.value
        }
        let value: WidgetValue
        do {
            value = try parser.parse(payload, context: itemContext)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            let reason = (error as? StageError)?.message ?? (error as? ExpressionError)?.description ?? "\(error)"
            throw StageError("the answer of \(payload.origin) could not be parsed: \(reason)")
        }
        var validators = payload.validators
        if !validators.isEmpty {
            validators.parser = parserKey
            context.fetchCache.keep(CachedFetch(validators: validators, value: value), for: key, notModified: false)
        }
        return value
    }
}
