import Foundation
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTesting

/// Transmission's RPC protocol, faked for the tests, as a route of a `TestHTTPServer` or a handler of a
/// `RecordedAPI`: `POST …/transmission/rpc` with
/// - basic authentication: a wrong or missing `Authorization` answers 401 with Transmission's page
///   (and, when ``challenges``, its `WWW-Authenticate` header), checked first, as Transmission does;
/// - the session handshake: a missing or stale `X-Transmission-Session-Id` answers 409 with
///   Transmission's page and the id in that header;
/// - then the call's answer, `{"arguments": …, "result": "success", "tag": …}` written compactly as
///   Transmission writes it; for `torrent-get`, each torrent holds only the requested `fields`, in the
///   order requested. A method without an answer gets `{"arguments": {}, "result": "method name not recognized"}`.
struct FakeTransmission: Sendable {
    var user: String
    var password: String
    var sessionID: String
    /// Whether a 401 carries `WWW-Authenticate: Basic realm="Transmission"`, as a real server's does.
    var challenges = true
    /// The recorded answer to each method: `{"arguments": …, "result": "success"}`.
    var answers: @Sendable (_ method: String) throws -> WidgetValue?

    /// The route of a server that is only this fake.
    var route: TestHTTPRoute {
        TestHTTPRoute("POST", "/transmission/rpc") { request in try respond(to: request) }
    }

    /// The handler of a `RecordedAPI` route `{"transmission": {"user", "password", "sessionId", "methods": {METHOD: FILE}}}`.
    static let recordedHandler: RecordedAPI.Handler = { spec, request, api in
        let methods = spec["methods"]?.object ?? [:]
        let fake = FakeTransmission(
            user: spec["user"]?.string ?? "", password: spec["password"]?.string ?? "", sessionID: spec["sessionId"]?.string ?? ""
        ) { method in
            try methods[method]?.string.map { try JSONReader.read(api.file($0)) }
        }
        return try fake.respond(to: request)
    }

    /// The status this fake answers `request` with: 401, 409 or 200.
    func status(of request: TestHTTPRequest) -> Int {
        if request.headers["Authorization"] != "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() { return 401 }
        if request.headers["X-Transmission-Session-Id"] != sessionID { return 409 }
        return 200
    }

    /// The RPC method a request calls, from its body.
    static func method(of request: TestHTTPRequest) -> String? {
        (try? JSONReader.read(request.body))?["method"]?.string
    }

    func respond(to request: TestHTTPRequest) throws -> TestHTTPResponse {
        switch status(of: request) {
        case 401:
            return .text(
                "<h1>401: Unauthorized</h1>Unauthorized User", status: 401, contentType: "text/html; charset=ISO-8859-1",
                headers: challenges ? ["WWW-Authenticate": #"Basic realm="Transmission""#] : [:]
            )
        case 409:
            return .text(
                "<h1>409: Conflict</h1><p>Your request had an invalid session-id header.</p><p>To fix this, follow these "
                    + "steps:<ol><li> When reading a response, get its X-Transmission-Session-Id header and remember it<li> "
                    + "Add the updated header to your outgoing requests<li> When you get this 409 error message, resend your "
                    + "request with the updated header</ol></p><p>This requirement has been added to help prevent "
                    + "<a href=\"https://en.wikipedia.org/wiki/Cross-site_request_forgery\">CSRF</a> attacks.</p>"
                    + "<p><code>X-Transmission-Session-Id: \(sessionID)</code></p>",
                status: 409, contentType: "text/html; charset=ISO-8859-1", headers: ["X-Transmission-Session-Id": sessionID]
            )
        default:
            break
        }
        let call = (try? JSONReader.read(request.body)) ?? [:]
        guard let method = call["method"]?.string, case .object(var answer)? = try answers(method) else {
            return .data(
                Data(#"{"arguments":{},"result":"method name not recognized"}"#.utf8), contentType: "application/json; charset=UTF-8")
        }
        if method == "torrent-get", case .object(var arguments)? = answer["arguments"] {
            let fields = call["arguments"]?["fields"]?.array?.compactMap(\.string) ?? []
            let torrents = arguments["torrents"]?.array ?? []
            arguments["torrents"] = .array(
                torrents.map { torrent in
                    .object(WidgetObject(fields.compactMap { field in torrent[field].map { (field, $0) } }))
                })
            answer["arguments"] = .object(arguments)
        }
        if let tag = call["tag"] { answer["tag"] = tag }
        return .data(JSONWriter.data(.object(answer)), contentType: "application/json; charset=UTF-8")
    }
}
