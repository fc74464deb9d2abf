public import Foundation
import Synchronization
import WidgetCore
import WidgetJSON
import WidgetStages

extension TestHTTPRoute {
    /// The routes `TestHTTPServer()` serves: well-behaved ones, ones that report on the server, and
    /// servers that misbehave on purpose. Query parameters are optional unless marked; every method is
    /// answered; JSON is written with the spacing of Python's `json.dumps` (`{"count": 3, …}`).
    ///
    /// | route | answers |
    /// |---|---|
    /// | `/json?size=N` | 200 `{"count": N, "items": [{"id": 1, "title": "Item 1", "score": 1.5, "tags": ["a", "b"]}, …]}`, N items (default 3) |
    /// | `/status/<code>` | that status with `{"status": <code>}` (no body for 204 and 304); `?retry-after=V` adds `Retry-After: V`; `?challenge=C` adds `WWW-Authenticate: C` (default `Basic realm="widgetd"`) |
    /// | `/slow?delay=S` | waits S seconds (default 1) before anything, then `/json` |
    /// | `/trickle?bytes=N&interval=S` | announces N bytes (default 20) and sends one every S seconds (default 0.5) |
    /// | `/huge?bytes=N` | N bytes (default 1 MiB) of `x` with `Content-Length`; `&chunked=1` chunked instead; `&unannounced=1` with neither, until the connection closes; `&rate=R` at most R bytes a second |
    /// | `/goto?to=URL&status=S` | S (default 302) to URL |
    /// | `/redirect/<n>` | 302 to `/redirect/<n-1>` (query kept); `/redirect/0` answers `/json` |
    /// | `/loop` | 302 to `/loop` (query kept), forever |
    /// | `/etag?etag=X&modified=DATE` | 200 with `ETag: "X"` (default `"v1"`), `Last-Modified` (default `Sun, 06 Nov 1994 08:49:37 GMT`) and `Cache-Control: max-age=60`; a matching `If-None-Match`, or an `If-Modified-Since` not earlier, answers 304 |
    /// | `/conditional?etag=E&modified=DATE` | `ETag: "E"` and/or `Last-Modified` for the parameters given; a matching `If-None-Match` (or, without one, `If-Modified-Since` not earlier) answers 304; otherwise 200 `{"served": n}`, n counting the 200s this route gave |
    /// | `/cache-control?value=V&age=A` | `/json` with `Cache-Control: V` (default `max-age=60`) and, when given, `Age: A` |
    /// | `/truncated` | announces 100 bytes, sends 10 and closes the connection |
    /// | `/html-error` | 200 `text/html`: a proxy's error page |
    /// | `/content?type=T&body=B&status=S` | S (default 200) with `Content-Type: T` (default `text/plain`) and body B in UTF-8; `&latin1=1` in ISO-8859-1 |
    /// | `/echo` | `{"method", "path", "query", "headers": {lowercased name: value}, "body"}` of the request |
    /// | `/handshake?token=T` | 409 with `X-Transmission-Session-Id: T` (default `abc`) unless the request carries it, then 200 `{"session": T}` |
    /// | `/file/<name>` | the file `<name>` of `root` (404 when missing or outside it) |
    /// | `/stall?seconds=S` | 200 announcing 100 bytes, then nothing until the client hangs up or S seconds pass (default 30) |
    /// | `/not-http` | an SSH server's greeting instead of HTTP, then the hang-up |
    /// | `/slow-headers?count=N&interval=S` | a status line, then N header fields (default 1000), one every S seconds (default 0.5), then a 2-byte body: slowloris |
    /// | `/header-flood?count=N` | 200 with N header fields of 64 bytes (default 100000) before a 2-byte body |
    /// | `/gzip?bytes=N` | 200 `Content-Encoding: gzip` of `{"padding": "xxx…"}` with N `x` (default 1000): a body far smaller than what it inflates to |
    /// | `/secret/<s>/<route>` | `/<route>` (query kept) when the request's `Authorization`, if any, is `Bearer <s>` and its body, if any, contains `<s>`; else 403 |
    /// | `/count` | `{"paths": {path: n}, "targets": {"path?query": n}}` of the recorded requests (not recorded itself) |
    /// | `/stats?reset=1` | `{"current", "maxConcurrent", "total"}`: requests being served (until their response starts), the most at once, the total; `reset=1` starts again (not recorded) |
    /// | `/wait?target=T&count=N&timeout=S` | waits until N (default 1) requests for the target T (`path?query`, as `/count` lists it) arrived, at most S seconds (default 10); 200 `{"received": n}`, or 504 when the time ran out (not recorded): a test waits here instead of sleeping |
    ///
    /// Anything else is 404 with `{"error": …}`.
    ///
    /// - Parameter root: The folder `/file/<name>` serves; without one, `/file/` answers 404.
    public static func builtIn(root: URL? = nil) -> [TestHTTPRoute] {
        let gzipCache = GzipCache()
        let root = root.map { $0.standardizedFileURL.resolvingSymlinksInPath() }
        return [
            TestHTTPRoute(nil, "/json") { request in
                .spacedJSON(jsonDocument(try request.integer("size", default: 3)))
            },
            TestHTTPRoute(nil, "/status/*") { request in
                guard request.pathParts.count == 2, let code = Int(request.pathParts[1]), (100...999).contains(code) else {
                    return notFound(request)
                }
                var headers = HTTPHeaders()
                if let retryAfter = request.query("retry-after") { headers.add(name: "Retry-After", value: retryAfter) }
                if let challenge = request.query("challenge") {
                    headers.add(name: "WWW-Authenticate", value: challenge.isEmpty ? #"Basic realm="widgetd""# : challenge)
                }
                return .spacedJSON(["status": .number(WidgetNumber(code))], status: code, headers: headers)
            },
            TestHTTPRoute(nil, "/slow") { request in
                .spacedJSON(jsonDocument(3)).delayed(by: try request.number("delay", default: 1))
            },
            TestHTTPRoute(nil, "/trickle") { request in
                let count = try request.integer("bytes", default: 20)
                let interval = try request.number("interval", default: 0.5)
                let headers: HTTPHeaders = ["Content-Type": "text/plain", "Content-Length": String(count)]
                return .stream(status: 200, headers: headers) { connection in
                    for _ in 0..<count {
                        try connection.pause(interval)
                        try connection.write("x")
                    }
                }
            },
            TestHTTPRoute(nil, "/huge") { request in
                try huge(
                    count: request.integer("bytes", default: 1_048_576), chunked: request.query("chunked") == "1",
                    rate: request.number("rate", default: 0), unannounced: request.query("unannounced") == "1"
                )
            },
            TestHTTPRoute(nil, "/redirect/*") { request in
                guard request.pathParts.count == 2, let remaining = Int(request.pathParts[1]) else { return notFound(request) }
                if remaining <= 0 { return .spacedJSON(jsonDocument(3)) }
                let query = request.queryString.isEmpty ? "" : "?" + request.queryString
                return redirect(302, to: "/redirect/\(remaining - 1)\(query)")
            },
            TestHTTPRoute(nil, "/etag") { request in
                etag(request)
            },
            TestHTTPRoute(nil, "/truncated") { _ in
                .stream(status: 200, headers: ["Content-Type": "application/json", "Content-Length": "100"]) { connection in
                    try connection.write(#"{"items": "#)
                }
            },
            TestHTTPRoute(nil, "/html-error") { _ in
                .text(
                    "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>"
                        + "<body><h1>Bad Gateway</h1><p>The proxy could not reach the server.</p></body></html>\n",
                    contentType: "text/html; charset=utf-8"
                )
            },
            TestHTTPRoute(nil, "/content") { request in
                let text = request.query("body") ?? ""
                let body =
                    request.query("latin1") == "1"
                    ? Data(text.unicodeScalars.map { $0.value < 256 ? UInt8($0.value) : UInt8(ascii: "?") }) : Data(text.utf8)
                var response = TestHTTPResponse.data(body, contentType: request.query("type") ?? "text/plain")
                response.status = try request.integer("status", default: 200)
                return response
            },
            TestHTTPRoute(nil, "/echo") { request in
                var headers = WidgetObject()
                for field in request.headers {
                    let name = field.name.lowercased()
                    headers[name] = .string(headers[name]?.string.map { $0 + ", " + field.value } ?? field.value)
                }
                return .spacedJSON([
                    "method": .string(request.method), "path": .string(request.path), "query": .string(request.queryString),
                    "headers": .object(headers), "body": .string(request.text),
                ])
            },
            TestHTTPRoute(nil, "/handshake") { request in
                let token = request.query("token") ?? "abc"
                if request.headers["X-Transmission-Session-Id"] == token { return .spacedJSON(["session": .string(token)]) }
                return .spacedJSON(["error": "missing session id"], status: 409, headers: ["X-Transmission-Session-Id": token])
            },
            TestHTTPRoute(nil, "/count", recorded: false) { _, core in
                let (paths, targets) = core.recording.withLock { ($0.paths, $0.targets) }
                func counts(_ table: [String: Int]) -> WidgetValue {
                    .object(WidgetObject(table.sorted { $0.key < $1.key }.map { ($0.key, .number(WidgetNumber($0.value))) }))
                }
                return .spacedJSON(["paths": counts(paths), "targets": counts(targets)])
            },
            TestHTTPRoute(nil, "/stats", recorded: false) { request, core in
                let stats = core.recording.withLock { recording in
                    if request.query("reset") == "1" { recording.reset() }
                    return [recording.current, recording.maxConcurrent, recording.total].map { WidgetValue.number(WidgetNumber($0)) }
                }
                return .spacedJSON(["current": stats[0], "maxConcurrent": stats[1], "total": stats[2]])
            },
            TestHTTPRoute(nil, "/file/*") { request in
                file(request, root: root)
            },
            TestHTTPRoute(nil, "/stall") { request in
                let seconds = try request.number("seconds", default: 30)
                return .stream(status: 200, headers: ["Content-Type": "application/json", "Content-Length": "100"]) { connection in
                    _ = connection.waitForHangUp(seconds: seconds)
                }
            },
            TestHTTPRoute(nil, "/wait", recorded: false) { request, core in
                let target = request.query("target") ?? ""
                let count = try request.integer("count", default: 1)
                let deadline = Date().addingTimeInterval(try request.number("timeout", default: 10))
                var received = core.recording.withLock { $0.targets[target] ?? 0 }
                while received < count, Date() < deadline, core.pause(0.01) {
                    received = core.recording.withLock { $0.targets[target] ?? 0 }
                }
                return .spacedJSON(["received": .number(WidgetNumber(received))], status: received >= count ? 200 : 504)
            },
            TestHTTPRoute(nil, "/not-http") { _ in
                .raw { connection in try connection.write("SSH-2.0-OpenSSH_9.6\r\n") }
            },
            // Slowloris from the server's side: a status line, then one header line every `interval`
            // seconds, `count` of them, before the body.
            TestHTTPRoute(nil, "/slow-headers") { request in
                let count = try request.integer("count", default: 1000)
                let interval = try request.number("interval", default: 0.5)
                return .raw { connection in
                    try connection.write("HTTP/1.1 200 OK\r\n")
                    for index in 0..<count {
                        try connection.pause(interval)
                        try connection.write("X-Slow-\(index): y\r\n")
                    }
                    try connection.write("Content-Length: 2\r\n\r\n{}")
                }
            },
            TestHTTPRoute(nil, "/header-flood") { request in
                let count = try request.integer("count", default: 100_000)
                return .raw { connection in
                    try connection.write("HTTP/1.1 200 OK\r\n")
                    let value = String(repeating: "y", count: 64)
                    var batch = ""
                    for index in 0..<count {
                        batch += "X-Flood-\(index): \(value)\r\n"
                        if index % 1000 == 999 {
                            try connection.write(batch)
                            batch = ""
                        }
                    }
                    try connection.write(batch + "Content-Length: 2\r\n\r\n{}")
                }
            },
            TestHTTPRoute(nil, "/goto") { request in
                redirect(try request.integer("status", default: 302), to: request.query("to") ?? "/")
            },
            TestHTTPRoute(nil, "/loop") { request in
                redirect(302, to: "/loop" + (request.queryString.isEmpty ? "" : "?" + request.queryString))
            },
            TestHTTPRoute(nil, "/gzip") { request in
                let body = gzipCache.padding(try request.integer("bytes", default: 1000))
                return .data(body, contentType: "application/json", headers: ["Content-Encoding": "gzip"])
            },
            TestHTTPRoute(nil, "/conditional") { request, core in
                conditional(request, core: core)
            },
            TestHTTPRoute(nil, "/cache-control") { request in
                var headers: HTTPHeaders = ["Cache-Control": request.query("value") ?? "max-age=60"]
                if let age = request.query("age") { headers.add(name: "Age", value: age) }
                return .spacedJSON(jsonDocument(2), headers: headers)
            },
            TestHTTPRoute(nil, "/secret/*") { request, core in
                try secret(request, core: core)
            },
        ]
    }

    // MARK: - Routes

    /// `{"count": N, "items": [{"id": 1, "title": "Item 1", "score": 1.5, "tags": ["a", "b"]}, …]}`.
    static func jsonDocument(_ count: Int) -> WidgetValue {
        let items = (0..<max(0, count)).map { index -> WidgetValue in
            let id = index + 1
            return [
                "id": .number(WidgetNumber(id)), "title": .string("Item \(id)"),
                "score": .number(WidgetNumber(Double(id) + 0.5)!), "tags": ["a", "b"],
            ]
        }
        return ["count": .number(WidgetNumber(count)), "items": .array(items)]
    }

    static func notFound(_ request: TestHTTPRequest) -> TestHTTPResponse {
        .spacedJSON(["error": .string("no route for \(request.path)")], status: 404)
    }

    private static func redirect(_ status: Int, to location: String) -> TestHTTPResponse {
        .data(Data(), status: status, contentType: "text/plain", headers: ["Location": location])
    }

    private static func huge(count: Int, chunked: Bool, rate: Double, unannounced: Bool) -> TestHTTPResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/octet-stream"]
        if chunked {
            headers.add(name: "Transfer-Encoding", value: "chunked")
        } else if unannounced {
            headers.add(name: "Connection", value: "close")
        } else {
            headers.add(name: "Content-Length", value: String(count))
        }
        return .stream(status: 200, headers: headers) { connection in
            let block = [UInt8](repeating: UInt8(ascii: "x"), count: 65536)
            // One write per piece, chunk framing included.
            func piece(_ count: Int) -> [UInt8] {
                let bytes = count == block.count ? block : Array(block[0..<count])
                return chunked ? Array((String(count, radix: 16) + "\r\n").utf8) + bytes + [13, 10] : bytes
            }
            let whole = piece(block.count)
            var remaining = count
            while remaining > 0 {
                let size = min(remaining, block.count)
                try connection.write(size == block.count ? whole : piece(size))
                remaining -= size
                if rate > 0 { try connection.pause(Double(size) / rate) }
            }
            if chunked { try connection.write("0\r\n\r\n") }
        }
    }

    /// The default `Last-Modified` of `/etag`.
    static let defaultModified = "Sun, 06 Nov 1994 08:49:37 GMT"

    private static func etag(_ request: TestHTTPRequest) -> TestHTTPResponse {
        let tag = "\"\(request.query("etag") ?? "v1")\""
        let modified = request.query("modified") ?? defaultModified
        let headers: HTTPHeaders = ["ETag": tag, "Last-Modified": modified, "Cache-Control": "max-age=60"]
        var notModified = false
        if let match = request.headers["If-None-Match"] {
            notModified =
                match.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.contains(tag)
                || match.trimmingCharacters(in: .whitespaces) == "*"
        } else if let since = request.headers["If-Modified-Since"] {
            notModified = notEarlier(since, than: modified)
        }
        if notModified { return TestHTTPResponse(status: 304, headers: headers) }
        return .spacedJSON(
            ["etag": .string(tag), "modified": .string(modified), "items": jsonDocument(2)["items"] ?? []], headers: headers
        )
    }

    private static func conditional(_ request: TestHTTPRequest, core: TestHTTPServer.Core) -> TestHTTPResponse {
        let tag = request.query("etag").map { "\"\($0)\"" }
        let modified = request.query("modified")
        var headers = HTTPHeaders()
        if let tag { headers.add(name: "ETag", value: tag) }
        if let modified { headers.add(name: "Last-Modified", value: modified) }
        var notModified = false
        let match = request.headers["If-None-Match"]
        if let tag, let match {
            notModified = match.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.contains(tag)
        } else if let modified, let since = request.headers["If-Modified-Since"], match == nil {
            notModified = notEarlier(since, than: modified)
        }
        if notModified { return TestHTTPResponse(status: 304, headers: headers) }
        let served = core.counters.withLock { counters in
            counters["/conditional", default: 0] += 1
            return counters["/conditional"]!
        }
        return .spacedJSON(["served": .number(WidgetNumber(served))], headers: headers)
    }

    /// Whether the HTTP date `since` is not earlier than the HTTP date `modified` (false when either is
    /// not a date).
    private static func notEarlier(_ since: String, than modified: String) -> Bool {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let sinceDate = formatter.date(from: since.trimmingCharacters(in: .whitespaces)),
            let modifiedDate = formatter.date(from: modified.trimmingCharacters(in: .whitespaces))
        else { return false }
        return sinceDate >= modifiedDate
    }

    private static func file(_ request: TestHTTPRequest, root: URL?) -> TestHTTPResponse {
        guard let root else { return .spacedJSON(["error": "the server was started without a root folder"], status: 404) }
        let name = request.decodedPath.split(separator: "/").dropFirst().joined(separator: "/")
        let file = root.appendingPathComponent(name).standardizedFileURL.resolvingSymlinksInPath()
        var isFolder: ObjCBool = false
        guard file.path.hasPrefix(root.path + "/"), FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder),
            !isFolder.boolValue, let data = FileManager.default.contents(atPath: file.path)
        else {
            return .spacedJSON(["error": .string("no file \(name)")], status: 404)
        }
        return .data(data, contentType: mediaType(of: file.pathExtension))
    }

    /// The media type of a file name extension, as Python's `mimetypes` gives the common ones.
    static func mediaType(of fileExtension: String) -> String {
        switch fileExtension.lowercased() {
        case "json": "application/json"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "svg": "image/svg+xml"
        case "txt": "text/plain"
        case "html", "htm": "text/html"
        case "css": "text/css"
        case "js": "text/javascript"
        case "xml": "application/xml"
        case "rss": "application/rss+xml"
        case "atom": "application/atom+xml"
        case "pdf": "application/pdf"
        default: "application/octet-stream"
        }
    }

    private static func secret(_ request: TestHTTPRequest, core: TestHTTPServer.Core) throws -> TestHTTPResponse {
        let parts = request.pathParts
        guard parts.count >= 3 else { return notFound(request) }
        let secret = parts[1]
        if let authorization = request.headers["Authorization"], authorization != "Bearer \(secret)" {
            return .spacedJSON(["error": "secret mismatch"], status: 403)
        }
        if !request.body.isEmpty, request.body.range(of: Data(secret.utf8)) == nil {
            return .spacedJSON(["error": "secret mismatch"], status: 403)
        }
        var inner = request
        inner.target = "/" + parts[2...].joined(separator: "/") + (request.queryString.isEmpty ? "" : "?" + request.queryString)
        guard let route = core.routes.first(where: { $0.matches(inner) }) else { return notFound(inner) }
        return try route.handler(inner, core)
    }
}

// MARK: - Helpers

extension TestHTTPRequest {
    /// The non-empty segments of the path, as sent: `/status/503` gives `["status", "503"]`.
    var pathParts: [String] {
        path.split(separator: "/").map(String.init)
    }

    /// The query parameter `name` as a whole number, `fallback` when absent.
    func integer(_ name: String, default fallback: Int) throws -> Int {
        guard let text = query(name) else { return fallback }
        guard let value = Int(text) else { throw BadParameter(name: name, value: text) }
        return value
    }

    /// The query parameter `name` as a number, `fallback` when absent.
    func number(_ name: String, default fallback: Double) throws -> Double {
        guard let text = query(name) else { return fallback }
        guard let value = Double(text), value.isFinite else { throw BadParameter(name: name, value: text) }
        return value
    }

    struct BadParameter: Error, CustomStringConvertible {
        var name: String
        var value: String
        var description: String { "the query parameter \(name)=\(value) is not a number" }
    }
}

extension TestHTTPResponse {
    /// `value` as `application/json`, spaced as Python's `json.dumps` writes it: `{"a": [1, 2]}`, every
    /// character outside ASCII escaped.
    static func spacedJSON(_ value: WidgetValue, status: Int = 200, headers: HTTPHeaders = [:]) -> TestHTTPResponse {
        var text = ""
        func write(_ value: WidgetValue) {
            switch value {
            case .null: text += "null"
            case .bool(let flag): text += flag ? "true" : "false"
            case .number(let number): text += number.description
            case .string(let string): writeString(string)
            case .array(let elements):
                text += "["
                for (index, element) in elements.enumerated() {
                    if index > 0 { text += ", " }
                    write(element)
                }
                text += "]"
            case .object(let members):
                text += "{"
                for (index, member) in members.enumerated() {
                    if index > 0 { text += ", " }
                    writeString(member.key)
                    text += ": "
                    write(member.value)
                }
                text += "}"
            }
        }
        func writeString(_ string: String) {
            text += "\""
            for unit in string.utf16 {
                switch unit {
                case 0x22: text += "\\\""
                case 0x5C: text += "\\\\"
                case 0x0A: text += "\\n"
                case 0x0D: text += "\\r"
                case 0x09: text += "\\t"
                case 0x08: text += "\\b"
                case 0x0C: text += "\\f"
                case 0x20..<0x7F: text.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
                default:
                    let digits = String(unit, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
                }
            }
            text += "\""
        }
        write(value)
        return .data(Data(text.utf8), status: status, contentType: "application/json", headers: headers)
    }
}

/// The gzip bodies `/gzip` made, by size: a 50 MB bomb is made once, however often it is asked for.
private final class GzipCache: Sendable {
    private let bodies = Mutex<[Int: Data]>([:])

    func padding(_ count: Int) -> Data {
        if let body = bodies.withLock({ $0[count] }) { return body }
        var gzip = Gzip()
        gzip.append(Array(#"{"padding": ""#.utf8))
        gzip.appendRun(of: UInt8(ascii: "x"), count: max(0, count))
        gzip.append(Array(#""}"#.utf8))
        let body = Data(gzip.finish())
        bodies.withLock { $0[count] = body }
        return body
    }
}
