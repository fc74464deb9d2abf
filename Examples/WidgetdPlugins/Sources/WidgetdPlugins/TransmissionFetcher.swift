public import Foundation
public import WidgetCore
import WidgetJSON
public import WidgetLiquid
import WidgetStages

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A source that asks a Transmission server for its session statistics and its torrents, over
/// Transmission's RPC protocol: `{"type": "transmission", "url": "http://{{ params.host }}:9091/transmission/rpc"}`.
///
/// Each refresh makes two RPC calls, `session-stats` and `torrent-get`, as JSON POSTs to ``url``, and
/// returns one JSON payload holding both answers' arguments:
///
/// ```json
/// {"session": {"activeTorrentCount": 2, "downloadSpeed": 524288, "uploadSpeed": 1024, …},
///  "torrents": [{"id": 1, "name": "debian.iso", "status": 4, "percentDone": 0.5, "rateDownload": 524288,
///                "rateUpload": 0, "eta": 1800, …}]}
/// ```
///
/// Transmission answers a request without a valid session id with `409 Conflict` and the id in the
/// `X-Transmission-Session-Id` header; the fetcher then sends the request again with it, and keeps it
/// for the next call of the same refresh (a server that restarts in between simply answers 409 again).
///
/// Basic authentication comes from ``username`` and ``password``, templates rendered with the widget's
/// secrets, so they may read `{{ env.NAME }}`; or from the user info of the URL
/// (`http://{{ env.TR_USER | url_encode }}:{{ env.TR_PASSWORD | url_encode }}@nas.local:9091/transmission/rpc`),
/// which `widgetd validate` accepts in definition files because secrets are allowed in a source's `url`.
/// The credentials are sent only as an `Authorization` header, and never appear in a payload's origin, a
/// log line or an error message: errors name the host alone.
///
/// The calls go through `context.http`, so they share the runtime's HTTP client (its per-host limit) and
/// the refresh wave's coalescing, and `widgetd run --rewrite-origin http://nas.local:9091=http://127.0.0.1:8080`
/// sends them elsewhere, with nothing wired here.
///
/// Options:
/// - `url` (template, required): the RPC endpoint, usually `http://HOST:9091/transmission/rpc`.
/// - `username`, `password` (templates): the credentials for basic authentication.
/// - `fields` (list of strings): the torrent fields to ask for; by default ``defaultFields``.
/// - `timeout` (duration): the deadline of each RPC call, 10 s by default.
/// - `maxBytes` (integer): the largest answer accepted, 4 MiB by default.
public struct TransmissionFetcher: Fetcher {
    public struct Options: Decodable, Sendable {
        public var url: Template
        public var username: Template?
        public var password: Template?
        public var fields: [String]?
        public var timeout: WidgetDuration?
        public var maxBytes: Int?

        /// The keys, by which errors name the option at fault.
        public enum CodingKeys: String, CodingKey {
            case url, username, password, fields, timeout, maxBytes
        }
    }

    public static let typeName = "transmission"
    public static let summary = "Fetches session statistics and torrents from a Transmission server over its RPC protocol."

    /// The header Transmission uses for its CSRF-protection handshake.
    public static let sessionHeader = "X-Transmission-Session-Id"

    /// The torrent fields asked for when the options name none: what a status widget shows.
    public static let defaultFields = [
        "id", "name", "status", "percentDone", "rateDownload", "rateUpload", "eta", "totalSize",
        "uploadRatio", "error", "errorString",
    ]

    public let url: Template
    public let username: Template?
    public let password: Template?
    public let fields: [String]
    public let timeout: TimeInterval
    public let maxBytes: Int

    /// Checks the options.
    ///
    /// - Throws: A ``StageError`` naming the option at fault: a password without a username, an empty
    ///   `fields` list, a timeout or size limit that is not positive, or a constant URL that is not http(s).
    public init(options: Options) throws {
        url = options.url
        username = options.username
        password = options.password
        fields = options.fields ?? Self.defaultFields
        timeout = options.timeout.map { TimeInterval($0.seconds) } ?? 10
        maxBytes = options.maxBytes ?? 4 * 1024 * 1024
        if password != nil, username == nil {
            throw StageError(
                "\"password\" is set without \"username\"; give both for basic authentication", option: Options.CodingKeys.password)
        }
        guard !fields.isEmpty else {
            throw StageError(
                "\"fields\" is empty; name the torrent fields to fetch, e.g. [\"name\", \"percentDone\"]", option: Options.CodingKeys.fields
            )
        }
        guard timeout > 0 else { throw StageError("\"timeout\" must be above 0s; write e.g. \"10s\"", option: Options.CodingKeys.timeout) }
        guard maxBytes > 0 else { throw StageError("\"maxBytes\" must be above 0", option: Options.CodingKeys.maxBytes) }
        if url.isConstant {
            guard let parsed = URL(string: url.source), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
                parsed.host != nil
            else {
                throw StageError(
                    "\"url\" is not an http or https URL; write e.g. \"http://nas.local:9091/transmission/rpc\"",
                    option: Options.CodingKeys.url
                )
            }
        }
    }

    public func fetch(context: StageContext) async throws -> Payload {
        let endpoint = try makeEndpoint(context: context)
        var session = RPCSession(endpoint: endpoint, http: context.http, now: context.now)
        let stats = try await session.call("session-stats", arguments: [:])
        let answer = try await session.call("torrent-get", arguments: ["fields": .array(fields.map { .string($0) })])
        guard case .array(let torrents)? = answer["torrents"] else {
            throw StageError("the Transmission server at \(session.host) answered torrent-get without a \"torrents\" list")
        }
        let value: WidgetValue = ["session": stats, "torrents": .array(torrents)]
        return Payload(
            data: JSONWriter.data(value),
            contentType: "application/json",
            charset: "utf-8",
            origin: session.safeURL,
            status: 200
        )
    }

    // MARK: - Requests

    /// Where to send the calls, and how to authenticate.
    struct Endpoint: Sendable {
        /// The URL without user info, as the definition gives it (`context.http` applies origin rewrites).
        var url: URL
        /// `Basic …`, when credentials were given.
        var authorization: String?
        var timeout: TimeInterval
        var maxBytes: Int
    }

    /// Renders the URL and credentials for one refresh.
    func makeEndpoint(context: StageContext) throws -> Endpoint {
        let scope = context.templateScope(secrets: true)
        func render(_ template: Template, _ option: String) throws -> String {
            do {
                return try template.renderString(scope)
            } catch {
                // The template's own text may hold a secret only through env, which it does not print.
                throw StageError("the \(option) template failed: \(context.secrets.redact(error.description))")
            }
        }
        let text = try render(url, "url").trimmingCharacters(in: .whitespaces)
        guard var components = URLComponents(string: text), ["http", "https"].contains(components.scheme?.lowercased() ?? ""),
            components.host?.isEmpty == false
        else {
            throw StageError("the url template did not give an http or https URL; check the params and env it reads")
        }
        var user = components.user
        var secret = components.password
        components.user = nil
        components.password = nil
        if let username { user = try render(username, "username") }
        if let password { secret = try render(password, "password") }
        // `--rewrite-origin` rules see the URL without its credentials, e.g. http://nas.local:9091=http://127.0.0.1:8080.
        guard let target = components.url else {
            throw StageError("the url template did not give an http or https URL; check the params and env it reads")
        }
        var authorization: String?
        if let user, !user.isEmpty || !(secret ?? "").isEmpty {
            authorization = "Basic " + Data("\(user):\(secret ?? "")".utf8).base64EncodedString()
        }
        return Endpoint(url: target, authorization: authorization, timeout: timeout, maxBytes: maxBytes)
    }

    /// The calls of one refresh, which share the session id the server hands out.
    struct RPCSession {
        let endpoint: Endpoint
        let http: StageHTTPClient
        /// The refresh's moment, to read a `Retry-After` date against.
        let now: Date
        private(set) var sessionID: String?
        private(set) var tag = 0
        /// Where the calls went (after origin rewrites): the endpoint until a call is answered, then the
        /// URL that answered it.
        private(set) var answeredURL: URL

        init(endpoint: Endpoint, http: StageHTTPClient, now: Date) {
            self.endpoint = endpoint
            self.http = http
            self.now = now
            answeredURL = http.destination(of: endpoint.url)
        }

        /// Host and port of the server that answered, safe to show: `nas.local:9091`.
        var host: String {
            HTTPRequest(url: answeredURL).hostDescription
        }

        /// The URL that answered, without user info, query or fragment, safe to show.
        var safeURL: String {
            HTTPRequest(url: answeredURL).redactedURL
        }

        /// Calls `method` and returns the `arguments` of a successful answer.
        mutating func call(_ method: String, arguments: WidgetObject) async throws -> WidgetValue {
            tag += 1
            let body: WidgetValue = ["method": .string(method), "arguments": .object(arguments), "tag": .number(WidgetNumber(tag))]
            var request = HTTPRequest(
                url: endpoint.url, method: "POST", headers: ["Content-Type": "application/json"], body: JSONWriter.data(body),
                timeout: endpoint.timeout, maxBytes: endpoint.maxBytes, maxRedirects: 0
            )
            if let authorization = endpoint.authorization { request.headers.add(name: "Authorization", value: authorization) }
            if let sessionID { request.headers.add(name: TransmissionFetcher.sessionHeader, value: sessionID) }
            var response = try await send(request)
            if response.status == 409, let token = response.headers[TransmissionFetcher.sessionHeader] {
                sessionID = token
                request.headers.replaceOrAdd(name: TransmissionFetcher.sessionHeader, value: token)
                response = try await send(request)
            }
            answeredURL = response.finalURL
            let host = self.host
            switch response.status {
            case 200..<300:
                break
            case 401:
                throw StageError(
                    "\(host) answered 401 Unauthorized to \(method); check the Transmission username and password"
                        + (endpoint.authorization == nil ? " (none were given)" : "")
                )
            case 409:
                throw StageError(
                    "\(host) answered 409 Conflict to \(method) without a usable \(TransmissionFetcher.sessionHeader) header; is this a Transmission RPC URL?"
                )
            default:
                let reason = HTTPURLResponse.localizedString(forStatusCode: response.status).capitalized
                throw StageError("\(host) answered \(response.status) \(reason) to \(method)", retryAfter: response.retryAfter(now: now))
            }
            let answer: WidgetValue
            do {
                answer = try JSONReader.read(response.body)
            } catch {
                throw StageError("the answer of \(host) to \(method) is not JSON: \(error)")
            }
            guard case .string(let result)? = answer["result"] else {
                throw StageError("the answer of \(host) to \(method) has no \"result\"; is this a Transmission RPC URL?")
            }
            guard result == "success" else {
                throw StageError("the Transmission server at \(host) answered \(method) with \"\(result)\"")
            }
            return answer["arguments"] ?? [:]
        }

        private func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            do {
                return try await http.send(request)
            } catch {
                if error.kind == .cancelled { throw CancellationError() }
                throw StageError(error.message)
            }
        }
    }
}
