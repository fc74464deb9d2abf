public import Foundation
public import WidgetCore
import WidgetJSON
public import WidgetLiquid

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches over HTTP: `"source": {"url": "https://…/{{ inputs.daily.joke_id }}"}`.
///
/// `url`, `headers` and `body` are templates that may read `inputs`, `params`, `now`, `widget` and — here
/// only — `env` (the process environment) and `secret` (files in the secrets folder), for secrets.
/// Secrets never appear in errors, which name the host alone. A `body` that is an object or array is sent as JSON. A status of 400 or more fails the
/// fetch with the status and the start of a text body in the message (``HTTPResponse/bodyExcerpt(masking:)``, secrets
/// masked before it is cut); 429 and 503 pass the server's `Retry-After` to the scheduler, and, with the
/// runtime's ``HostLimits``, hold back every widget on that origin until then.
///
/// With `pages` (``HTTPPages``), a list split into pages is read page after page and the items of all
/// pages are given as one JSON array: `"pages": {"next": "link"}` follows GitHub's `Link` header.
///
/// With `handshake`, a response with the given status (Transmission's 409) is answered by copying the
/// named response header into the request and sending it once more.
///
/// ```json
/// {"url": "http://{{ params.host }}:9091/transmission/rpc", "method": "POST",
///  "body": {"method": "session-stats"},
///  "headers": {"Authorization": "Basic {{ env.TRANSMISSION_AUTH }}"},
///  "handshake": {"status": 409, "header": "X-Transmission-Session-Id"},
///  "timeout": "10s", "maxBytes": 1048576}
/// ```
///
/// With `oauth2` (``OAuth2Options``), the request carries an access token from a token endpoint, kept
/// and renewed by ``OAuth2Tokens``; a 401 renews it and sends the request once more, and a second 401
/// fails the fetch. No token or client secret reaches a message, a trace or a snapshot: the trace's
/// request line says `Authorization: Bearer ••••`.
///
/// A response that brings less than `minimumRate` in a window once it has begun (default 1 KiB in any
/// 5 s, or `connectTimeout` when that is over 10 s) fails with what it sent, so a server that trickles
/// frees its place for other widgets long before the `timeout`.
public struct HTTPFetcher: Fetcher {
    /// The request's options (``RequestOptions``), and those of a source alone.
    public struct Options: Decodable, Sendable, DescribedOptions {
        /// The request: `url`, `method`, `headers`, `body`, `timeout`, `connectTimeout`, `maxBytes`.
        public var request: RequestOptions
        /// How many redirects to follow.
        public var maxRedirects: Int
        /// A status that asks for a response header to be echoed and the request sent once more; none by default.
        public var handshake: Handshake?
        /// The least the response must bring in a window once it has begun; default 1 KiB in any 5 s.
        public var minimumRate: MinimumRate?
        /// How to read a list split into pages (``HTTPPages``); one request by default.
        public var pages: HTTPPages?

        /// The keys of a source alone, read beside ``RequestOptions/CodingKeys``.
        public enum CodingKeys: String, DescribedKey {
            case maxRedirects, handshake, minimumRate, pages

            public var keyDescription: KeyDescription {
                switch self {
                case .maxRedirects:
                    KeyDescription(
                        "How many redirects to follow.",
                        .integer(minimum: 0, maximum: HTTPRequest.defaultMaxRedirects),
                        default: .number(WidgetNumber(HTTPRequest.defaultMaxRedirects))
                    )
                case .handshake:
                    KeyDescription(
                        "A status that asks for a response header to be echoed in the request, sent once more (Transmission's 409 and X-Transmission-Session-Id).",
                        .object(Handshake.shape)
                    )
                case .minimumRate:
                    KeyDescription(
                        "The least the response must bring once it has begun: fewer bytes in a window fail the fetch and free its place for other widgets (a connectTimeout over 10s widens the window to it). Default {\"bytes\": 1024, \"within\": \"5s\"}; {\"bytes\": 0} turns it off.",
                        .object(MinimumRate.shape)
                    )
                case .pages:
                    KeyDescription(
                        "Reads a list split into pages, concatenating the items of each: {\"next\": \"link\"} (the Link header), {\"next\": \"$.next\"} (a URL in the body), {\"next\": \"$.cursor\", \"param\": \"cursor\"}, {\"page\": \"page\"} or {\"offset\": \"offset\"}; with items, maxPages (default 10) and delay.",
                        .object(HTTPPages.shape)
                    )
                }
            }
        }

        /// The request's keys, then a source's own.
        public static var describedKeys: [any DescribedKey] {
            RequestOptions.describedKeys + CodingKeys.allCases.map { $0 as any DescribedKey }
        }

        public init(from decoder: any Decoder) throws {
            request = try RequestOptions(from: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            maxRedirects = try container.decode(Int.self, forKey: .maxRedirects)
            handshake = try container.decodeIfPresent(Handshake.self, forKey: .handshake)
            minimumRate = try container.decodeIfPresent(MinimumRate.self, forKey: .minimumRate)
            pages = try container.decodeIfPresent(HTTPPages.self, forKey: .pages)
        }
    }

    /// A status that asks the client to echo a header back, such as Transmission's session id.
    public struct Handshake: Decodable, Sendable, Hashable, DescribedOptions {
        /// The response status that asks for the header, such as 409.
        public var status: Int
        /// The response header whose value is copied into the repeated request, such as `X-Transmission-Session-Id`.
        public var header: String

        public enum CodingKeys: String, DescribedKey {
            case status, header

            public var keyDescription: KeyDescription {
                switch self {
                case .status: KeyDescription("The status that asks for the header, e.g. 409.", .integer(), required: true)
                case .header: KeyDescription("The response header to copy into the request.", .string(), required: true)
                }
            }
        }
    }

    /// The least a response must bring in a window: `{"bytes": 1024, "within": "5s"}`.
    public struct MinimumRate: Decodable, Sendable, Hashable, DescribedOptions {
        /// The fewest bytes (head and body) in any window; 0 turns the check off.
        public var bytes: Int
        /// The window.
        public var within: WidgetDuration

        public enum CodingKeys: String, DescribedKey {
            case bytes, within

            public var keyDescription: KeyDescription {
                switch self {
                case .bytes: KeyDescription("The fewest bytes in any window; 0 turns the check off.", .integer(minimum: 0), required: true)
                case .within:
                    KeyDescription(
                        "The window.", .duration,
                        default: .string(WidgetDuration(seconds: Int(HTTPRequest.defaultMinimumRate.seconds)).description))
                }
            }
        }
    }

    /// The request methods `method` may name, in any case.
    public static let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]

    /// ``methods`` in any case, as a regular expression: `^([Gg][Ee][Tt]|…)$`.
    static let methodPattern =
        "^("
        + methods.map { name in
            name.map { "[\($0)\(Character($0.lowercased()))]" }.joined()
        }.joined(separator: "|") + ")$"

    public static let typeName = "http"
    public static let summary = "Fetches a URL over HTTP with deadlines, a size cap and templated URL, headers and body."

    /// The URL template, rendered and checked to be `http` or `https` on each fetch.
    public let url: Template
    /// The request method, uppercased; `GET`, or `POST` when there is a body, unless the definition names one.
    public let method: String
    /// The header templates, sorted by name.
    public let headers: [(name: String, value: Template)]
    /// The body template, or `nil` to send no body.
    public let body: TemplateTree?
    /// The deadline for the whole exchange, in seconds.
    public let timeout: TimeInterval
    /// The longest silence allowed from the server, in seconds.
    public let connectTimeout: TimeInterval
    /// The largest response body accepted, in bytes.
    public let maxBytes: Int
    /// How many redirects are followed, from 0 to 5.
    public let maxRedirects: Int
    /// The status and header to echo back once, or `nil`.
    public var handshake: Handshake? { rarelyUsed?.handshake }
    /// The least the response must bring in a window once it has begun.
    public let minimumRate: HTTPRequest.MinimumRate
    /// The TLS settings as the definition writes them (paths relative to its folder), or `nil`.
    public var tls: TLSOptions? { rarelyUsed?.tls }
    /// Where the request's access token comes from, or `nil` for none.
    public var oauth2: OAuth2Client? { rarelyUsed?.oauth2 }
    /// How pages are read, when the list is split into pages: see ``HTTPPages``.
    public var pages: HTTPPages? { rarelyUsed?.pages }
    /// The walk ``pages`` describes, checked.
    var walk: HTTPPages.Walk? { rarelyUsed?.walk }
    /// ``handshake``, ``tls``, ``oauth2``, ``pages`` and ``walk``, in a block of their own when any is set:
    /// a daemon keeps a fetcher for each widget, and inline these took ~500 of its ~700 bytes.
    private let rarelyUsed: RarelyUsed?
    /// The `env` and `secret` reads of the url, header and body templates: their values are masked in
    /// every error.
    let secretUses: [Template.SecretUse]
    /// Whether a template of the body reads `env` or `secret`: a redirect may then not carry the body to
    /// another origin (``HTTPRequest/bodyIsSecret``).
    let bodyReadsSecret: Bool

    /// Whether `template` reads `env` or `secret`, by any name.
    static func readsSecret(_ template: Template) -> Bool {
        !template.secretUses.uses.isEmpty || SecretStore.Namespace.allCases.contains { template.variables.contains($0.rawValue) }
    }

    public init(options: Options) throws {
        try self.init(
            request: options.request, maxRedirects: options.maxRedirects, handshake: options.handshake, minimumRate: options.minimumRate,
            pages: options.pages)
    }

    /// Checks `request` and the options of a source alone, as the decoder left them: within their bounds,
    /// defaults supplied. A `fetch` transform builds its request this way, with a source's defaults.
    ///
    /// - Throws: A `StageError` naming the option at fault: a method that is not one of ``methods``, a
    ///   `timeout`, `connectTimeout` or `minimumRate` window of 0s, a constant `url` that is not http(s).
    init(
        request options: RequestOptions, maxRedirects: Int = HTTPRequest.defaultMaxRedirects, handshake: Handshake? = nil,
        minimumRate rate: MinimumRate? = nil, pages: HTTPPages? = nil
    ) throws {
        typealias Key = RequestOptions.CodingKeys
        url = options.url
        method = (options.method ?? (options.body == nil ? "GET" : "POST")).uppercased()
        guard Self.methods.contains(method) else {
            throw StageError("\"method\" is \"\(method)\"; use one of \(Self.methods.joined(separator: ", "))", option: Key.method)
        }
        headers = (options.headers ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        body = options.body
        timeout = Double(options.timeout.seconds)
        connectTimeout = Double(options.connectTimeout.seconds)
        maxBytes = options.maxBytes
        self.maxRedirects = maxRedirects
        try options.tls?.check()
        let oauth2 = try options.oauth2.map(OAuth2Client.init(options:))
        if oauth2 != nil, let written = headers.first(where: { $0.name.lowercased() == "authorization" }) {
            throw StageError(
                "\"headers\" has \"\(written.name)\", which \"oauth2\" sets to its access token; remove one of them",
                option: Key.headers)
        }
        let walk = try pages?.walk()
        rarelyUsed =
            handshake == nil && options.tls == nil && oauth2 == nil && pages == nil
            ? nil : RarelyUsed(handshake: handshake, tls: options.tls, oauth2: oauth2, pages: pages, walk: walk)
        if let rate {
            guard rate.within.seconds > 0 else {
                throw StageError(
                    "\"minimumRate\" needs \"bytes\" of 0 or more and a \"within\" above 0s; write e.g. {\"bytes\": 1024, \"within\": \"5s\"}",
                    option: Options.CodingKeys.minimumRate)
            }
            minimumRate = HTTPRequest.MinimumRate(bytes: rate.bytes, seconds: Double(rate.within.seconds))
        } else {
            minimumRate = HTTPRequest.defaultMinimumRate
        }
        var templates = [options.url] + (options.headers ?? [:]).values
        func collect(_ tree: TemplateTree) {
            switch tree {
            case .literal: break
            case .template(let template): templates.append(template)
            case .array(let elements): elements.forEach(collect)
            case .object(let members): for member in members { collect(member.value) }
            }
        }
        let count = templates.count
        if let body = options.body { collect(body) }
        bodyReadsSecret = templates[count...].contains(where: Self.readsSecret)
        secretUses = Array(Set((templates + (oauth2?.secretTemplates ?? [])).flatMap(\.secretUses.uses)))
        guard timeout > 0, connectTimeout > 0 else {
            throw StageError("\"timeout\" and \"connectTimeout\" must be above 0s", option: Key.timeout)
        }
        if url.isConstant {
            guard let parsed = URL(string: url.source), let scheme = parsed.scheme?.lowercased(),
                scheme == "http" || scheme == "https", parsed.host != nil
            else {
                throw StageError("\"url\" is not an http or https URL; write e.g. \"https://example.com/feed.json\"", option: Key.url)
            }
        }
    }

    /// The parts of a fetcher that few definitions set (see ``rarelyUsed``).
    private final class RarelyUsed: Sendable {
        let handshake: Handshake?
        let tls: TLSOptions?
        let oauth2: OAuth2Client?
        let pages: HTTPPages?
        let walk: HTTPPages.Walk?

        init(handshake: Handshake?, tls: TLSOptions?, oauth2: OAuth2Client?, pages: HTTPPages?, walk: HTTPPages.Walk?) {
            self.handshake = handshake
            self.tls = tls
            self.oauth2 = oauth2
            self.pages = pages
            self.walk = walk
        }
    }

    public func fetch(context: StageContext) async throws -> Payload {
        try await fetch(context: context, item: nil)
    }

    /// Fetches with `item` in the templates' scope (its members are root names, `item` is the item), as
    /// the `fetch` transform does for each item; `nil` is a source's fetch. `fingerprint` is the request's
    /// ``requestFingerprint(context:item:)`` when the caller already has it.
    func fetch(context: StageContext, item: WidgetValue?, fingerprint: String? = nil) async throws -> Payload {
        do {
            return try await exchange(context: context, item: item, fingerprint: fingerprint)
        } catch var error as StageError {
            // Messages name the host, which a template may take from a secret too.
            error.message = masked(error.message, context: context)
            throw error
        }
    }

    /// `text` with the value of every secret the templates read replaced by `***`, whatever its length
    /// (see ``SecretStore/mask(_:uses:params:)``).
    func masked(_ text: String, context: StageContext) -> String {
        secretMask(context: context).apply(text)
    }

    /// The mask of ``masked(_:context:)``: to cut a text that may hold a secret, use its
    /// ``SecretMask/excerpt(_:limit:)``.
    func secretMask(context: StageContext) -> SecretMask {
        context.secrets.mask(uses: secretUses, params: context.params)
    }

    /// The mask of ``secretMask(context:)`` with the tokens of `authorization` too.
    func secretMask(context: StageContext, _ authorization: OAuth2Authorization?) -> SecretMask {
        guard let authorization else { return secretMask(context: context) }
        return secretMask(context: context).adding(values: authorization.secrets)
    }

    private func exchange(context: StageContext, item: WidgetValue?, fingerprint: String?) async throws -> Payload {
        var request = try makeRequest(context: context, item: item)
        let authorization = try await OAuth2Authorization(self, context: context, item: item)
        if let authorization { request.headers.add(name: "Authorization", value: authorization.token.authorization, isSecret: true) }
        // Validators belong to the request that earned them: a URL that changed since (its template reads
        // `inputs` or `now`, or the definition was edited) names another resource, whose answer to the old
        // validators would be meaningless.
        let fingerprint = fingerprint ?? requestFingerprint(context: context, item: item)
        var sentValidators = false
        // A paged list is read whole each time: a first page that did not change says nothing of the others.
        if walk == nil, context.validators.request == fingerprint {
            if let etag = context.validators.etag {
                request.headers.replaceOrAdd(name: "If-None-Match", value: etag)
                sentValidators = true
            }
            if let modified = context.validators.lastModified {
                request.headers.replaceOrAdd(name: "If-Modified-Since", value: modified)
                sentValidators = true
            }
        }
        var response = try await send(request, context: context)
        if let handshake, response.status == handshake.status, let token = response.headers[handshake.header] {
            var retry = request
            retry.headers.replaceOrAdd(name: handshake.header, value: token)
            request = retry
            response = try await send(retry, context: context)
        }
        // A refused token is renewed once and the request sent once more; a second 401 is the answer.
        if response.status == 401, var authorization {
            try await authorization.renew(context: context)
            request.headers.remove(name: "Authorization")
            request.headers.add(name: "Authorization", value: authorization.token.authorization, isSecret: true)
            response = try await send(request, context: context)
            if response.status == 401 {
                let said = response.bodyExcerpt(masking: secretMask(context: context, authorization)).map { ": \($0)" } ?? ""
                throw StageError(
                    "\(request.hostDescription) answered 401 Unauthorized\(said), again with a new access token from \(authorization.credentials.host); check that the token's \"scope\" (and \"audience\") give access to this URL"
                )
            }
        }
        if response.status == 304, sentValidators {
            var payload = Payload.notModified(origin: origin(of: request, context: context, item: item), status: 304)
            payload.request = requestLine(request, context: context, authorization)
            payload.maxBytes = request.maxBytes
            return payload
        }
        guard response.isSuccess else { throw failure(response, to: request, context: context, authorization: authorization) }
        if let walk {
            return try await readPages(walk, first: request, response: response, context: context, item: item, authorization: authorization)
        }
        var validators = FetchValidators(etag: response.headers["ETag"], lastModified: response.headers["Last-Modified"])
        if !validators.isEmpty { validators.request = fingerprint }
        return Payload(
            data: response.body,
            contentType: response.contentType,
            charset: response.charset,
            origin: origin(of: request, context: context, item: item),
            status: response.status,
            validators: validators,
            maxAge: HTTPFetcher.freshness(response).map(Double.init),
            request: requestLine(request, context: context, authorization),
            maxBytes: request.maxBytes
        )
    }

    /// The error of a response with a status of 400 or more to `request`: the status, what the server
    /// said (secrets masked) and, for 429 and 503, its `Retry-After`; `page` names a page after the first.
    func failure(
        _ response: HTTPResponse, to request: HTTPRequest, context: StageContext, page: Int? = nil,
        authorization: OAuth2Authorization? = nil
    ) -> StageError {
        let reason = HTTPURLResponse.localizedString(forStatusCode: response.status).capitalized
        let retryAfter = [429, 503].contains(response.status) ? response.retryAfter(now: context.now) : nil
        // What the server said about it, as curl shows it: an API's 400 explains itself.
        let said = response.bodyExcerpt(masking: secretMask(context: context, authorization)).map { ": \($0)" } ?? ""
        let which = page.map { " to the request for page \($0)" } ?? ""
        return StageError(
            "\(request.hostDescription) answered \(response.status) \(reason)\(which)\(said)\(Self.withheldNote(request, finalURL: response.finalURL))",
            retryAfter: retryAfter)
    }

    /// Why a failed response may be the redirect's doing: `; it came from another origin, …, which was not
    /// sent Authorization, X-Key (…)`, when `request` was redirected to another origin and headers were
    /// left out for it; empty otherwise.
    static func withheldNote(_ request: HTTPRequest, finalURL: URL) -> String {
        guard !HTTPRequest.isSameOrigin(request.url, finalURL) else { return "" }
        var names: [String] = []
        for field in request.headers where field.isSecret || HTTPRequest.credentialFields.contains(field.name.lowercased()) {
            if !names.contains(field.name) { names.append(field.name) }
        }
        guard !names.isEmpty else { return "" }
        let origin = "\(finalURL.scheme?.lowercased() ?? "http")://\(HTTPRequest.hostDescription(of: finalURL))"
        return "; it came from another origin, \(origin), after a redirect, and was not sent \(names.joined(separator: ", ")) "
            + "(secrets go only to the origin they were written for: write \(origin)'s address in the url if it is meant to have them)"
    }

    /// The method and the whole URL (query included) of `request`, with every secret the templates read
    /// and any password in the URL masked: what a trace shows.
    func requestLine(_ request: HTTPRequest, context: StageContext, _ authorization: OAuth2Authorization? = nil) -> String {
        var url = request.url.absoluteString
        if var components = URLComponents(url: request.url, resolvingAgainstBaseURL: true), components.password != nil {
            components.password = "***"
            url = components.string ?? request.redactedURL
        }
        let line = "\(request.method) \(url)" + (authorization.map { " (Authorization: \($0.token.maskedAuthorization))" } ?? "")
        return secretMask(context: context, authorization).apply(line)
    }

    /// `Cache-Control: max-age` minus `Age`, in whole seconds, when positive; `nil` for `no-store`/`no-cache`.
    ///
    /// Both are RFC 9111 delta-seconds, read by ``HTTPHeaders/deltaSeconds(_:)``: a value past 2³¹ is 2³¹, a
    /// malformed or negative `max-age` (`-9223372036854775808`) gives no freshness, a malformed `Age`
    /// counts as 0. Both lie within 0...2³¹, so the difference cannot overflow.
    package static func freshness(_ response: HTTPResponse) -> Int? {
        guard let control = response.headers["Cache-Control"]?.lowercased() else { return nil }
        var maxAge: Int?
        for directive in control.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = parts.first else { continue }
            switch name {
            case "no-store", "no-cache": return nil
            case "max-age" where parts.count == 2:
                maxAge = HTTPHeaders.deltaSeconds(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
            default: break
            }
        }
        guard let maxAge else { return nil }
        let age = response.headers["Age"].flatMap(HTTPHeaders.deltaSeconds) ?? 0
        let remaining = maxAge - age
        return remaining > 0 ? remaining : nil
    }

    /// The request's URL as a payload may show it: without query or credentials, and with every value
    /// of `env` or `secret` the URL template reads (a token in the path, say) replaced by `***`.
    func origin(of request: HTTPRequest, context: StageContext, item: WidgetValue?) -> String {
        guard SecretStore.Namespace.allCases.contains(where: { url.variables.contains($0.rawValue) }) else {
            return request.redactedURL
        }
        var scope = context.templateScope(item: item)
        context.secrets.install(in: &scope, masked: true)
        let masked = try? url.renderString(scope).trimmingCharacters(in: .whitespaces)
        guard let masked, let target = URL(string: masked) else { return request.hostDescription }
        return HTTPRequest(url: target).redactedURL
    }

    /// A fingerprint of the request's method, URL (query included) and body, with every `env` and `secret` value
    /// replaced by `***` before hashing: it tells whether stored validators belong to this request, and
    /// neither it nor the state that keeps it reveals a secret or the URL.
    func requestFingerprint(context: StageContext, item: WidgetValue? = nil) -> String {
        var scope = context.templateScope(item: item)
        context.secrets.install(in: &scope, masked: true)
        var text = method + " " + ((try? url.renderString(scope)) ?? url.source)
        if let body, let value = try? body.render(scope) { text += "\n" + JSONWriter.string(value) }
        let digits = String(StableHash.fnv1a(text.utf8), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Sends `request` within the runtime's ``HostLimits``: not at all while its origin is held back by a
    /// `Retry-After`, once its host's rate allows; a 429 or 503 with `Retry-After` holds the origin back.
    ///
    /// - Throws: A `StageError` when the origin is held back or the rate's next slot is past the
    ///   request's deadline, or what ``send(_:http:)`` throws.
    func send(_ request: HTTPRequest, context: StageContext) async throws -> HTTPResponse {
        let limits = context.resources[HostLimits.self]
        if let limits {
            if let until = limits.heldUntil(request.url) {
                throw request.heldBackError(until: until, now: limits.clock.now())
            }
            try await limits.admit(request.url, deadline: limits.clock.now().addingTimeInterval(request.timeout))
        }
        let response = try await send(request, http: context.http)
        if let limits, [429, 503].contains(response.status), let delay = response.retryAfter(now: limits.clock.now()) {
            limits.hold(request.url, seconds: delay)
        }
        return response
    }

    /// Sends `request`, whose URL ``makeRequest(context:item:)`` already rewrote, through the runtime's client
    /// and the wave's coalescer.
    private func send(_ request: HTTPRequest, http: StageHTTPClient) async throws -> HTTPResponse {
        do {
            return try await http.sendAsIs(request)
        } catch {
            if error.kind == .cancelled { throw CancellationError() }
            throw StageError(error.message)
        }
    }

    /// The request for one refresh (for one item of the `fetch` transform), templates rendered.
    func makeRequest(context: StageContext, item: WidgetValue? = nil) throws -> HTTPRequest {
        let scope = context.templateScope(item: item, secrets: true)
        func rendered(_ template: Template, _ what: String) throws -> String {
            do {
                return try template.renderString(scope)
            } catch {
                throw StageError("the \(what) template failed: \(error)")
            }
        }
        var text = try rendered(url, "url").trimmingWhitespace()
        // Rewritten here rather than by `context.http.send`, so that errors and the origin name where the
        // request went.
        if let rewrites = context.http.originRewrites { text = rewrites.apply(to: text) }
        guard let target = URL(string: text), let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https",
            target.host != nil
        else {
            throw StageError("the url template did not give an http or https URL; check the values it reads")
        }
        var request = HTTPRequest(
            url: target, method: method, timeout: timeout, connectTimeout: connectTimeout, maxBytes: maxBytes,
            maxRedirects: maxRedirects, minimumRate: minimumRate, tls: try tlsSettings(context: context)
        )
        for header in headers {
            // Known by construction, not by name: a field whose template reads `env` or `secret` never
            // follows a redirect to another origin.
            request.headers.add(
                name: header.name, value: try rendered(header.value, "\(header.name) header"), isSecret: Self.readsSecret(header.value))
        }
        request.bodyIsSecret = bodyReadsSecret
        if let body {
            let value: WidgetValue
            do {
                value = try body.render(scope)
            } catch {
                throw StageError("the body template failed: \(error)")
            }
            if case .string(let string) = value {
                request.body = Data(string.utf8)
            } else {
                request.body = JSONWriter.data(value)
                if !request.headers.contains(name: "Content-Type") {
                    request.headers.add(name: "Content-Type", value: "application/json")
                }
            }
        }
        return request
    }
}
