public import Foundation
import WidgetCore
public import WidgetJSON
public import WidgetStages

/// What a ``TestHTTPRoute`` answers: a status, header fields and a body — or, for a server that
/// misbehaves on purpose, bytes written by hand.
///
/// A complete response gets a `Content-Length` from the server (except for 1xx, 204 and 304, which
/// have no body) and leaves the connection open for the next request. A ``stream(status:headers:_:)``
/// response has its status line and headers written as given, then its body written by a closure; a
/// ``raw(_:)`` response writes every byte itself. Both close the connection when their closure returns.
///
/// ```swift
/// .json(["ok": true])
/// .text("<h1>Bad Gateway</h1>", status: 502, contentType: "text/html")
/// .stream(status: 200, headers: ["Content-Length": "100"]) { connection in
///     try connection.write("{\"items\": ")       // and then nothing: a truncated body
/// }
/// ```
public struct TestHTTPResponse: Sendable {
    /// How the body is sent.
    public enum Body: Sendable {
        /// These bytes, announced with `Content-Length`.
        case complete(Data)
        /// The server writes the status line and the header fields as given (no `Content-Length` is
        /// added), then the closure writes the body; the connection closes after it.
        case stream(@Sendable (TestHTTPConnection) throws -> Void)
        /// The closure writes everything, status line included (or anything else); the connection
        /// closes after it.
        case raw(@Sendable (TestHTTPConnection) throws -> Void)
    }

    /// The status code.
    public var status: Int
    /// The header fields, in order.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Body
    /// How long the server waits, in seconds, before it sends anything (a slow server); 0 by default.
    /// The wait ends early when the server stops.
    public var delay: Double = 0
    /// Whether the connection is closed after this response; a `Connection: close` header field
    /// is added to a complete response then.
    public var closesConnection = false

    /// A complete response: `200` with no header fields and an empty body unless given.
    public init(status: Int = 200, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = .complete(body)
    }

    /// A response whose body is sent by `write`; the status line and `headers` are sent first, as given.
    public static func stream(
        status: Int = 200, headers: HTTPHeaders = [:], _ write: @escaping @Sendable (TestHTTPConnection) throws -> Void
    ) -> TestHTTPResponse {
        var response = TestHTTPResponse(status: status, headers: headers)
        response.body = .stream(write)
        return response
    }

    /// A response that `write` sends whole, status line and all: anything at all, HTTP or not.
    public static func raw(_ write: @escaping @Sendable (TestHTTPConnection) throws -> Void) -> TestHTTPResponse {
        var response = TestHTTPResponse()
        response.body = .raw(write)
        return response
    }

    /// `value` as `application/json`.
    public static func json(_ value: WidgetValue, status: Int = 200, headers: HTTPHeaders = [:]) -> TestHTTPResponse {
        data(JSONWriter.data(value), status: status, contentType: "application/json", headers: headers)
    }

    /// `text` as UTF-8, with the content type given (`text/plain` by default).
    public static func text(
        _ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8", headers: HTTPHeaders = [:]
    ) -> TestHTTPResponse {
        data(Data(text.utf8), status: status, contentType: contentType, headers: headers)
    }

    /// `body` with the content type given (none when `nil`).
    public static func data(
        _ body: Data, status: Int = 200, contentType: String?, headers: HTTPHeaders = [:]
    ) -> TestHTTPResponse {
        var fields = HTTPHeaders()
        if let contentType { fields.add(name: "Content-Type", value: contentType) }
        for field in headers { fields.add(name: field.name, value: field.value) }
        return TestHTTPResponse(status: status, headers: fields, body: body)
    }

    /// This response, sent after a wait of `seconds`.
    public func delayed(by seconds: Double) -> TestHTTPResponse {
        var response = self
        response.delay = seconds
        return response
    }

    /// The reason phrase of `status` for the status line (`Not Found`).
    static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(status)"
        }
    }
}
