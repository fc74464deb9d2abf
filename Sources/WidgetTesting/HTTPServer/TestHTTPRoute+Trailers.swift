import Foundation

extension TestHTTPRoute {
    /// A server that never ends its trailers: `/trailers?lines=N` answers 200 with a chunked JSON body
    /// (`{}`), then trailer fields of 1 KB each, `N` of them (forever by default), as fast as the client
    /// reads them, and never the empty line that would end the response.
    ///
    /// ```swift
    /// let server = try TestHTTPServer(routes: TestHTTPRoute.builtIn() + [.endlessTrailers])
    /// ```
    public static var endlessTrailers: TestHTTPRoute {
        TestHTTPRoute(nil, "/trailers") { request in
            let lines = try request.integer("lines", default: .max)
            return .raw { connection in
                try connection.write(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nTrailer: X-Trailer\r\n\r\n"
                        + "2\r\n{}\r\n0\r\n")
                let line = Array("X-Trailer: \(String(repeating: "t", count: 1000))\r\n".utf8)
                let block = Array([[UInt8]](repeating: line, count: 64).joined())
                var sent = 0
                while sent < lines {
                    try connection.write(block)
                    sent += 64
                }
            }
        }
    }
}
