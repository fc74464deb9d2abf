public import Foundation
public import WidgetCore

/// The HTTP client a stage reaches through `context.http`: everything the runtime offers for HTTP,
/// taken from the context's resources, so that a stage of your own gets it without wiring anything.
///
/// - The runtime's shared ``HTTPClient``, with its per-host limit on requests in flight (a client shared
///   by the process when the runtime offers none, as in a unit test).
/// - The refresh wave's ``FetchCoalescer``, when the runtime put one in: identical requests (method,
///   URL, headers, body) sent by several widgets during one wave are sent once.
/// - The ``OriginRewrites`` of `widgetd run --rewrite-origin`: a request whose URL starts with a
///   rewritten origin is sent to its replacement, so that a definition using your stage runs unchanged
///   against a local server with recorded payloads.
///
/// ```swift
/// func fetch(context: StageContext) async throws -> Payload {
///     let response = try await context.http.send(HTTPRequest(url: url, method: "POST", body: body))
///     guard response.isSuccess else {
///         // finalURL is where the request went: after origin rewrites and redirects.
///         throw StageError("\(HTTPRequest(url: response.finalURL).hostDescription) answered \(response.status)")
///     }
///     …
/// }
/// ```
public struct StageHTTPClient: Sendable {
    /// The client used when the runtime offers none among the stage resources: one per process.
    static let sharedClient = HTTPClient()

    /// The client requests go through.
    public let client: HTTPClient
    /// The wave's coalescer, when there is one.
    public let coalescer: FetchCoalescer?
    /// The origin rewrites, when there are any.
    public let originRewrites: OriginRewrites?

    /// The client, coalescer and origin rewrites among `resources`.
    public init(resources: StageResources) {
        client = resources[HTTPClient.self] ?? Self.sharedClient
        coalescer = resources[FetchCoalescer.self]
        originRewrites = resources[OriginRewrites.self]
    }

    /// Where a request for `url` is sent: `url` with the first matching origin rewrite applied.
    public func destination(of url: URL) -> URL {
        guard let originRewrites else { return url }
        return URL(string: originRewrites.apply(to: url.absoluteString)) ?? url
    }

    /// Sends `request` to its ``destination(of:)``, through the wave's coalescer when there is one, and
    /// returns the response, whatever its status. The response's `finalURL` names where it went.
    ///
    /// - Throws: The ``HTTPClientError`` of the exchange (see ``HTTPClient/send(_:)``); its message names
    ///   the host the request was sent to.
    public func send(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
        var request = request
        request.url = destination(of: request.url)
        return try await sendAsIs(request)
    }

    /// Sends `request` to its URL as it is, origin rewrites already applied.
    func sendAsIs(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
        if let coalescer { return try await coalescer.response(to: request, client: client) }
        return try await client.send(request)
    }
}

extension StageContext {
    /// The runtime's HTTP client, with the wave's coalescing and the origin rewrites: see
    /// ``StageHTTPClient``.
    public var http: StageHTTPClient {
        StageHTTPClient(resources: resources)
    }
}
