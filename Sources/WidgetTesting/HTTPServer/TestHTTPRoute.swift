/// One route of a ``TestHTTPServer``: the requests it answers (a method and a path pattern) and the
/// handler that answers them.
///
/// The pattern is matched against the whole percent-decoded path, as a shell pattern: `*` matches any
/// run of characters (`/` included), `?` any one character, and everything else itself. The first
/// route that matches a request answers it; a request no route matches is answered 404.
///
/// ```swift
/// let server = try TestHTTPServer(routes: [
///     TestHTTPRoute("POST", "/transmission/rpc") { request in
///         request.headers["X-Transmission-Session-Id"] == "abc"
///             ? .json(["result": "success", "arguments": [:]])
///             : .json(["error": "session"], status: 409, headers: ["X-Transmission-Session-Id": "abc"])
///     },
///     TestHTTPRoute("GET", "/daily/????-??-??") { _ in .json(["joke": "…"]) },
/// ])
/// ```
///
/// A handler runs on the connection's own thread and may take its time; it must be safe to run for
/// several connections at once. When it throws, the server answers 500 with the error.
public struct TestHTTPRoute: Sendable {
    /// The method answered (`GET`, `POST`), or `nil` for every method.
    public var method: String?
    /// The path pattern.
    public var pattern: String
    /// Whether the server records the requests this route answers (see ``TestHTTPServer/requests``);
    /// routes that report on the server itself, such as `/count`, do not.
    public var isRecorded: Bool
    let handler: @Sendable (TestHTTPRequest, TestHTTPServer.Core) throws -> TestHTTPResponse

    /// A route that answers `method` requests (every method when `nil`) whose path matches `pattern`.
    public init(
        _ method: String? = nil, _ pattern: String, recorded: Bool = true,
        handler: @escaping @Sendable (TestHTTPRequest) throws -> TestHTTPResponse
    ) {
        self.init(method, pattern, recorded: recorded) { request, _ in try handler(request) }
    }

    init(
        _ method: String?, _ pattern: String, recorded: Bool = true,
        handler: @escaping @Sendable (TestHTTPRequest, TestHTTPServer.Core) throws -> TestHTTPResponse
    ) {
        self.method = method?.uppercased()
        self.pattern = pattern
        self.isRecorded = recorded
        self.handler = handler
    }

    /// Whether this route answers `request`.
    public func matches(_ request: TestHTTPRequest) -> Bool {
        if let method, method != request.method { return false }
        return Self.matches(Array(request.decodedPath.unicodeScalars), pattern: Array(pattern.unicodeScalars))
    }

    /// Whether `text` matches the shell pattern `pattern` (`*` and `?`; no sets, no escapes).
    static func matches(_ text: [Unicode.Scalar], pattern: [Unicode.Scalar]) -> Bool {
        // The classic linear matcher: remember the last `*` and how much of the text it has taken.
        var textIndex = 0
        var patternIndex = 0
        var star: (pattern: Int, text: Int)?
        while textIndex < text.count {
            if patternIndex < pattern.count, pattern[patternIndex] == "?" || pattern[patternIndex] == text[textIndex] {
                textIndex += 1
                patternIndex += 1
            } else if patternIndex < pattern.count, pattern[patternIndex] == "*" {
                star = (patternIndex, textIndex)
                patternIndex += 1
            } else if let last = star {
                patternIndex = last.pattern + 1
                textIndex = last.text + 1
                star = (last.pattern, last.text + 1)
            } else {
                return false
            }
        }
        while patternIndex < pattern.count, pattern[patternIndex] == "*" { patternIndex += 1 }
        return patternIndex == pattern.count
    }
}
