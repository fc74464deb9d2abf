public import Foundation
import WidgetStages

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One client's connection to a ``TestHTTPServer``, as a ``TestHTTPResponse/stream(status:headers:_:)``
/// or ``TestHTTPResponse/raw(_:)`` response writes to it.
///
/// Each connection has a thread of its own, so a response that writes without end, trickles or
/// stalls holds up no other. Writes never block for good: each waits for the socket with the server's
/// stop in view, and throws ``Closed`` once the client has hung up or the server stops.
///
/// ```swift
/// .stream(status: 200, headers: ["Content-Length": "20"]) { connection in
///     for _ in 0..<20 {
///         try connection.pause(0.5)
///         try connection.write("x")
///     }
/// }
/// ```
public final class TestHTTPConnection {
    /// The client hung up, or the server is stopping: the response ends here.
    public struct Closed: Error, Sendable, CustomStringConvertible {
        /// Why, in a few words.
        public var reason: String
        public var description: String { reason }
    }

    /// The request could not be read; the server answers `status` and closes the connection.
    struct BadRequest: Error {
        var status: Int
        var message: String
    }

    /// The largest request head (request line and header fields) read: 64 KiB.
    static let maximumHeadBytes = 64 * 1024
    /// The largest request body read: 64 MiB.
    static let maximumBodyBytes = 64 * 1024 * 1024

    private let descriptor: Int32
    private let wake: Int32
    /// What was received and not read yet: `input[inputStart...]`.
    private var input: [UInt8] = []
    private var inputStart = 0

    init(descriptor: Int32, wake: Int32) {
        self.descriptor = descriptor
        self.wake = wake
    }

    // MARK: - Writing

    /// Sends `bytes`, waiting as long as the client does not read them.
    ///
    /// - Throws: ``Closed`` when the client hung up or the server is stopping.
    public func write(_ bytes: [UInt8]) throws(Closed) {
        try bytes.withUnsafeBytes { buffer in Result { () throws(Closed) in try sendBytes(buffer) } }.get()
    }

    /// Sends `data`.
    ///
    /// - Throws: ``Closed`` when the client hung up or the server is stopping.
    public func write(_ data: Data) throws(Closed) {
        try data.withUnsafeBytes { buffer in Result { () throws(Closed) in try sendBytes(buffer) } }.get()
    }

    /// Sends `text` as UTF-8.
    ///
    /// - Throws: ``Closed`` when the client hung up or the server is stopping.
    public func write(_ text: String) throws(Closed) {
        try write(Array(text.utf8))
    }

    /// Waits `seconds` before the next write.
    ///
    /// - Throws: ``Closed`` as soon as the client hangs up or the server stops.
    public func pause(_ seconds: Double) throws(Closed) {
        let deadline = Socket.now() + seconds
        var watching = true
        while true {
            let remaining = deadline - Socket.now()
            if remaining <= 0 { return }
            switch Socket.wait(watching ? descriptor : -1, for: Int16(POLLIN), wake: wake, timeout: remaining) {
            case .timedOut: return
            case .stopping: throw Closed(reason: "the server is stopping")
            case .ready:
                if peerHungUp() { throw Closed(reason: "the client hung up") }
                // The client sent more (its next request, say): pause without watching the socket.
                watching = false
            }
        }
    }

    /// Waits until the client hangs up, at most `seconds`; whether it did. Returns at once when the
    /// server stops.
    public func waitForHangUp(seconds: Double) -> Bool {
        let deadline = Socket.now() + seconds
        while true {
            let remaining = deadline - Socket.now()
            if remaining <= 0 { return false }
            switch Socket.wait(descriptor, for: Int16(POLLIN), wake: wake, timeout: remaining) {
            case .timedOut, .stopping: return false
            case .ready:
                if peerHungUp() { return true }
                // Bytes the client sent after its request: read and drop them, keep waiting.
                var scratch = [UInt8](repeating: 0, count: 4096)
                _ = recv(descriptor, &scratch, scratch.count, 0)
            }
        }
    }

    /// Whether the client closed its end (or the connection broke), judged without consuming input.
    private func peerHungUp() -> Bool {
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, Int32(MSG_PEEK))
        if count == 0 { return true }
        if count < 0 { return !(errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) }
        return false
    }

    private func sendBytes(_ buffer: UnsafeRawBufferPointer) throws(Closed) {
        guard var pointer = buffer.baseAddress else { return }
        var remaining = buffer.count
        while remaining > 0 {
            let count = send(descriptor, pointer, remaining, Socket.sendFlags)
            if count > 0 {
                pointer += count
                remaining -= count
                continue
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                switch Socket.wait(descriptor, for: Int16(POLLOUT), wake: wake) {
                case .ready, .timedOut: continue
                case .stopping: throw Closed(reason: "the server is stopping")
                }
            }
            throw Closed(reason: "the client hung up")
        }
    }

    // MARK: - Reading

    /// The next request, or `nil` when the client closed the connection before sending one.
    ///
    /// - Throws: ``BadRequest`` for a request that is not HTTP/1.x or too large, ``Closed`` when the
    ///   client hung up in the middle or the server is stopping.
    func readRequest() throws -> TestHTTPRequest? {
        var headEnd: Int?
        var searched = inputStart
        while true {
            headEnd = Self.find([13, 10, 13, 10], in: input, from: max(inputStart, searched - 3))
            if headEnd != nil { break }
            searched = input.count
            if input.count - inputStart > Self.maximumHeadBytes {
                throw BadRequest(status: 431, message: "the request head is larger than \(Self.maximumHeadBytes) bytes")
            }
            guard try receive() else {
                if input.count == inputStart { return nil }
                throw Closed(reason: "the client hung up in the middle of a request")
            }
        }
        guard let headEnd else { return nil }
        let head = String(decoding: input[inputStart..<headEnd], as: UTF8.self)
        consume(upTo: headEnd + 4)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: true)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else {
            throw BadRequest(status: 400, message: "the request line is not HTTP/1.x")
        }
        var headers = HTTPHeaders()
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else {
                throw BadRequest(status: 400, message: "a header line has no colon")
            }
            headers.add(
                name: String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                value: String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            )
        }
        if headers["Expect"]?.lowercased() == "100-continue" {
            try write("HTTP/1.1 100 Continue\r\n\r\n")
        }
        let body: [UInt8]
        if headers["Transfer-Encoding"]?.lowercased().contains("chunked") == true {
            body = try readChunkedBody()
        } else if let length = headers["Content-Length"] {
            guard let count = Int(length.trimmingCharacters(in: .whitespaces)), count >= 0 else {
                throw BadRequest(status: 400, message: "Content-Length is not a number")
            }
            guard count <= Self.maximumBodyBytes else {
                throw BadRequest(status: 413, message: "the body is larger than \(Self.maximumBodyBytes) bytes")
            }
            body = try read(count)
        } else {
            body = []
        }
        return TestHTTPRequest(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: Data(body))
    }

    private func readChunkedBody() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let line = try readLine()
            let size = line.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard let count = Int(size, radix: 16), count >= 0 else {
                throw BadRequest(status: 400, message: "a chunk size is not a hexadecimal number")
            }
            if count == 0 {
                while try !readLine().isEmpty {}  // trailer fields
                return body
            }
            guard body.count + count <= Self.maximumBodyBytes else {
                throw BadRequest(status: 413, message: "the body is larger than \(Self.maximumBodyBytes) bytes")
            }
            body += try read(count)
            _ = try readLine()
        }
    }

    private func readLine() throws -> String {
        while true {
            if let end = Self.find([13, 10], in: input, from: inputStart) {
                let line = String(decoding: input[inputStart..<end], as: UTF8.self)
                consume(upTo: end + 2)
                return line
            }
            if input.count - inputStart > Self.maximumHeadBytes {
                throw BadRequest(status: 400, message: "a line of the request is too long")
            }
            guard try receive() else { throw Closed(reason: "the client hung up in the middle of a request") }
        }
    }

    private func read(_ count: Int) throws -> [UInt8] {
        while input.count - inputStart < count {
            guard try receive() else { throw Closed(reason: "the client hung up in the middle of a request") }
        }
        let bytes = Array(input[inputStart..<(inputStart + count)])
        consume(upTo: inputStart + count)
        return bytes
    }

    private func consume(upTo end: Int) {
        inputStart = end
        if inputStart == input.count {
            input.removeAll(keepingCapacity: true)
            inputStart = 0
        }
    }

    /// Reads what has arrived, waiting for it; `false` at the end of the stream.
    private func receive() throws(Closed) -> Bool {
        var scratch = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &scratch, scratch.count, 0)
            if count > 0 {
                input += scratch[0..<count]
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                switch Socket.wait(descriptor, for: Int16(POLLIN), wake: wake) {
                case .ready, .timedOut: continue
                case .stopping: throw Closed(reason: "the server is stopping")
                }
            }
            return false
        }
    }

    private static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= pattern.count, start <= bytes.count - pattern.count else { return nil }
        var index = start
        while index <= bytes.count - pattern.count {
            if bytes[index] == pattern[0] {
                var matched = true
                for offset in 1..<pattern.count where bytes[index + offset] != pattern[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }

    // MARK: - Responses

    /// Sends `response` to the request `request`; whether the connection may carry another request.
    func respond(_ response: TestHTTPResponse, to request: TestHTTPRequest) throws -> Bool {
        switch response.body {
        case .raw(let write):
            try write(self)
            return false
        case .stream(let write):
            try self.write(Self.head(status: response.status, headers: response.headers))
            try write(self)
            return false
        case .complete(let body):
            var headers = response.headers
            let hasBody = !((100..<200).contains(response.status) || response.status == 204 || response.status == 304)
            if hasBody, !headers.contains(name: "Content-Length") {
                headers.add(name: "Content-Length", value: String(body.count))
            }
            let closes = response.closesConnection || request.headers["Connection"]?.lowercased() == "close"
            if closes, !headers.contains(name: "Connection") { headers.add(name: "Connection", value: "close") }
            var bytes = Self.head(status: response.status, headers: headers)
            if hasBody, request.method != "HEAD" { bytes += body }
            try write(bytes)
            return !closes
        }
    }

    /// The status line and header fields of a response, up to the empty line.
    static func head(status: Int, headers: HTTPHeaders) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(TestHTTPResponse.reason(status))\r\n"
        for field in headers { text += "\(field.name): \(field.value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }
}
