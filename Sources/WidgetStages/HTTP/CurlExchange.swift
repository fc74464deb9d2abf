#if os(Linux)
import Foundation
import Synchronization

/// One request sent through libcurl (see ``CurlLibrary``), holding a thread while it runs, with the limits of
/// ``HTTPRequest`` enforced where the bytes arrive:
/// - the body callback refuses the first byte past ``HTTPRequest/maxBytes`` (and the head callback a
///   `Content-Length` over it), so libcurl closes the connection and nothing more is read or kept;
/// - the head callback refuses the first line past ``HTTPRequest/maximumHeaderBytes`` of header and
///   trailer fields in one response (libcurl bounds the header, but not the trailers of a chunked body);
/// - the deadline is kept by the transfer's thread, which waits for the socket no longer than the time
///   left and then finishes the exchange (a timer for each request, armed and cancelled through
///   Dispatch's manager thread, was a twentieth of `run --once`'s time); the caller's cancellation
///   finishes it at once and wakes that thread, which drops the connection before it reads again;
/// - redirects are followed here, one transfer per hop, so they are counted and credentials are not
///   handed to another host.
///
/// It finishes exactly once, like ``HTTPExchange``; whatever the transfer's thread learns after that is
/// dropped.
final class CurlExchange: Sendable {
    typealias Outcome = HTTPExchange.Outcome

    private struct State {
        var continuation: CheckedContinuation<Outcome, Never>?
        var early: Outcome?
        var finished = false
        /// The multi handle of the transfer under way (its address), to wake it when the exchange ends.
        var multi: UInt?
    }

    let request: HTTPRequest
    let host: String
    private let userAgent: String
    private let curl: CurlLibrary
    private let handles: CurlHandles
    private let state = Mutex(State())
    private let ended = Atomic<Bool>(false)

    init(request: HTTPRequest, userAgent: String, handles: CurlHandles) {
        self.request = request
        self.host = request.hostDescription
        self.userAgent = userAgent
        self.curl = handles.curl
        self.handles = handles
    }

    /// Whether the exchange has finished: the transfer stops at its next step.
    var isEnded: Bool { ended.load(ordering: .acquiring) }

    // MARK: - Life cycle

    /// Starts the transfer on a thread of its own, which keeps the deadline; `continuation` is resumed
    /// once, with the outcome.
    func start(continuation: CheckedContinuation<Outcome, Never>) {
        let early: Outcome? = state.withLock { state in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early {
            continuation.resume(returning: early)
            return
        }
        // In nanoseconds of uptime; a timeout too long to count that way never ends.
        let nanoseconds = max(0, request.timeout) * 1e9
        let now = DispatchTime.now().uptimeNanoseconds
        let deadline = nanoseconds < Double(UInt64.max - now) ? now + UInt64(nanoseconds) : .max
        // A serial queue of its own: see `transfersQueue`.
        DispatchQueue(label: CurlExchange.transfersQueue).async { [self] in
            let outcome = run(until: deadline)
            finish(outcome)
        }
    }

    /// The label of the queue each transfer runs on. A transfer blocks its thread until it ends, so each
    /// has a serial queue of its own, which Dispatch runs on its "overcommit" pool: a transfer gets a
    /// thread even when every core is busy (up to 255 at once in the process), and Dispatch keeps the
    /// threads of finished ones for the next (a thread made for every request, and given back after it,
    /// was a tenth of `run --once`'s time). One concurrent queue for all transfers would not do: Dispatch
    /// runs a concurrent queue on the pool sized for the cores, which ran at most 39 blocking blocks at
    /// once here, so a few dozen slow servers held every other transfer, and the file writes, in line.
    private static let transfersQueue = "widgetd.http"

    /// Ends the exchange with `outcome` unless it already ended, and tells the transfer to stop.
    func finish(_ outcome: Outcome) {
        let taken: CheckedContinuation<Outcome, Never>?? = state.withLock { state in
            guard !state.finished else { return nil }
            state.finished = true
            ended.store(true, ordering: .releasing)
            if let multi = state.multi {
                // Under the lock: the transfer's thread clears `multi` under it before freeing the handle.
                _ = curl.multiWakeup(OpaquePointer(bitPattern: multi))
            }
            let continuation = state.continuation
            state.continuation = nil
            if continuation == nil { state.early = outcome }
            return .some(continuation)
        }
        guard let continuation = taken else { return }
        continuation?.resume(returning: outcome)
    }

    // MARK: - The transfer's thread

    /// Runs the transfer and its redirects until `deadline` (`DispatchTime`'s uptime, in nanoseconds).
    private func run(until deadline: UInt64) -> Outcome {
        var target = Target(url: request.url, method: request.method, headers: request.headers, body: request.body)
        var redirects = 0
        while true {
            let attempt = CurlAttempt(
                exchange: self, maxBytes: request.maxBytes, isHead: target.method.uppercased() == "HEAD",
                progress: TransferProgress(request))
            let code = perform(target, attempt: attempt, until: deadline)
            if code == CurlExchange.timedOut { return .failure(.timedOut(host, seconds: request.timeout)) }
            if code == CurlExchange.tooSlow {
                return .failure(
                    .tooSlow(
                        host, received: attempt.progress.receivedInWindow, seconds: attempt.progress.windowSeconds,
                        minimum: attempt.progress.minimum))
            }
            if isEnded { return .failure(.cancelled(host)) }
            switch attempt.stop {
            case .headersTooLarge:
                return .failure(.headersTooLarge(host, limit: HTTPRequest.maximumHeaderBytes))
            case .tooLarge(let announced?):
                return .failure(.tooLarge(host, announced: announced, limit: request.maxBytes))
            case .tooLarge(nil):
                return .failure(.tooLarge(host, limit: request.maxBytes))
            case .redirect(let location):
                redirects += 1
                if redirects > request.maxRedirects {
                    return .failure(.tooManyRedirects(host, limit: request.maxRedirects))
                }
                guard let next = URL(string: location, relativeTo: target.url)?.absoluteURL,
                    let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https",
                    next.host?.isEmpty == false
                else {
                    return .failure(.invalidRedirect(host))
                }
                if let failure = target.follow(to: next, status: attempt.status, request: request) {
                    return .failure(failure)
                }
                continue
            case nil:
                break
            }
            guard code == 0 else { return .failure(failure(code, attempt: attempt)) }
            guard attempt.status > 0 else { return .failure(.invalidResponse(host)) }
            return .success(
                HTTPResponse(status: attempt.status, headers: attempt.headers, body: attempt.body, finalURL: target.url))
        }
    }

    /// What ``perform(_:attempt:until:)`` returns when the deadline passed (not one of libcurl's codes).
    private static let timedOut: Int32 = -1
    /// What ``perform(_:attempt:until:)`` returns when the response brought less than
    /// ``HTTPRequest/minimumRate`` in a window (not one of libcurl's codes).
    private static let tooSlow: Int32 = -2

    /// Runs one transfer to its end, until the exchange ends or until `deadline`, and returns libcurl's
    /// result code, or ``timedOut``.
    private func perform(_ target: Target, attempt: CurlAttempt, until deadline: UInt64) -> Int32 {
        guard let pair = handles.take() else { return CurlLibrary.Code.outOfMemory }
        let (multi, easy) = (pair.multi, pair.easy)
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: 256)
        errorBuffer.initialize(repeating: 0, count: 256)
        let headerList = configure(easy, for: target, attempt: attempt, errorBuffer: errorBuffer)
        let attemptPointer = Unmanaged.passRetained(attempt)
        curl.set(easy, .writeData, pointer: attemptPointer.toOpaque())
        curl.set(easy, .headerData, pointer: attemptPointer.toOpaque())

        var code: Int32 = CurlLibrary.Code.abortedByCallback
        _ = curl.multiAddHandle(multi, easy)
        let registered = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.multi = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(multi)))
            return true
        }
        if registered {
            while !isEnded {
                var running: Int32 = 0
                let status = curl.multiPerform(multi, &running)
                if status != 0 && status != -1 {
                    code = CurlLibrary.Code.outOfMemory
                    break
                }
                if running == 0 {
                    var left: Int32 = 0
                    while let message = curl.multiInfoRead(multi, &left) {
                        // CURLMsg: msg (CURLMSG_DONE is 1) at 0, the easy handle at 8, the result at 16.
                        if message.load(as: Int32.self) == 1 {
                            code = message.load(fromByteOffset: 16, as: Int32.self)
                        }
                    }
                    break
                }
                let now = DispatchTime.now().uptimeNanoseconds
                guard now < deadline else {
                    code = CurlExchange.timedOut
                    break
                }
                // A trickle gives its place back (the loop comes here at least once a second).
                guard attempt.progress.isFastEnough(received: attempt.received, at: now) else {
                    code = CurlExchange.tooSlow
                    break
                }
                // Wake at the deadline at the latest (rounded up to a whole millisecond), and at least
                // every second.
                let left = min(1000, (deadline - now + 999_999) / 1_000_000)
                _ = curl.multiPoll(multi, nil, 0, Int32(left), nil)
            }
            state.withLock { $0.multi = nil }
        }
        _ = curl.multiRemoveHandle(multi, easy)
        attempt.said = String(cString: errorBuffer)
        // Reset before what its options point to is freed.
        handles.giveBack(pair)
        curl.slistFreeAll(headerList)
        attemptPointer.release()
        errorBuffer.deallocate()
        return code
    }

    /// Sets the options of one transfer; returns the header list to free after it.
    private func configure(
        _ easy: CurlLibrary.Handle, for target: Target, attempt: CurlAttempt, errorBuffer: UnsafeMutablePointer<CChar>
    ) -> OpaquePointer? {
        let silence = Int(HTTPExchange.silenceLimit(request.connectTimeout))
        curl.set(easy, .url, target.url.absoluteString)
        curl.set(easy, .errorBuffer, pointer: errorBuffer)
        curl.set(easy, .noSignal, 1)
        curl.set(easy, .followLocation, 0)
        curl.set(easy, .protocols, 1 | 2)  // CURLPROTO_HTTP | CURLPROTO_HTTPS
        curl.set(easy, .acceptEncoding, "")  // every encoding libcurl can decode; bodies arrive decoded
        curl.set(easy, .userAgent, userAgent)
        curl.set(easy, .connectTimeoutMilliseconds, silence * 1000)
        // Silence: fewer than 1 byte a second for `silence` seconds.
        curl.set(easy, .lowSpeedLimit, 1)
        curl.set(easy, .lowSpeedTime, silence)
        // A backstop only: the exchange's own deadline ends it first.
        curl.set(easy, .timeoutMilliseconds, Int(min(max(1, request.timeout), HTTPExchange.longestTimer) * 1000) + 2000)
        if let tls = request.tls { configureTLS(easy, tls) }
        let onBody: CurlLibrary.WriteCallback = curlReceiveBody
        let onHead: CurlLibrary.WriteCallback = curlReceiveHeader
        curl.set(easy, .writeFunction, pointer: unsafeBitCast(onBody, to: UnsafeRawPointer.self))
        curl.set(easy, .headerFunction, pointer: unsafeBitCast(onHead, to: UnsafeRawPointer.self))

        let method = target.method.uppercased()
        switch method {
        case "GET": curl.set(easy, .httpGet, 1)
        case "HEAD": curl.set(easy, .noBody, 1)
        default:
            curl.set(easy, .customRequest, target.method)
            if target.body != nil || ["POST", "PUT", "PATCH"].contains(method) {
                let body = target.body ?? Data()
                curl.set(easy, .postFieldSize, body.count)
                body.withUnsafeBytes { bytes in
                    // Copied by libcurl; an empty body still needs a valid pointer.
                    var empty: UInt8 = 0
                    if let base = bytes.baseAddress {
                        curl.set(easy, .copyPostFields, pointer: base)
                    } else {
                        _ = withUnsafePointer(to: &empty) { curl.set(easy, .copyPostFields, pointer: $0) }
                    }
                }
            }
        }

        var list: OpaquePointer?
        func append(_ line: String) {
            list = line.withCString { curl.slistAppend(list, $0) } ?? list
        }
        for field in target.headers {
            // "Name:" would remove libcurl's own header of that name; "Name;" sends it empty.
            append(field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        if !target.headers.contains(name: "Expect") {
            append("Expect:")  // no 100-continue round trip before a body
        }
        curl.set(easy, .httpHeader, pointer: list.map { UnsafeRawPointer($0) })
        return list
    }

    /// Sets the TLS options of `tls`. Each is cleared by the reset that gives the handle back (see
    /// ``CurlHandles/giveBack(_:)``), so the next request starts from libcurl's defaults; libcurl reuses a
    /// kept connection only for a request with the same CA, client certificate and verification.
    private func configureTLS(_ easy: CurlLibrary.Handle, _ tls: HTTPRequest.TLS) {
        if let caFile = tls.caFile {
            curl.set(easy, .caInfo, caFile)
            curl.set(easy, .caPath, pointer: nil)  // the file alone, as curl's --cacert
        }
        if let certFile = tls.certFile { curl.set(easy, .sslCertificate, certFile) }
        if let keyFile = tls.keyFile { curl.set(easy, .sslKey, keyFile) }
        if !tls.verify {
            curl.set(easy, .sslVerifyPeer, 0)
            curl.set(easy, .sslVerifyHost, 0)
        }
    }

    // MARK: - Translation

    private func failure(_ code: Int32, attempt: CurlAttempt) -> HTTPClientError {
        let said = sanitized(attempt.said.isEmpty ? curl.describe(code) : attempt.said)
        typealias Code = CurlLibrary.Code
        switch code {
        case Code.operationTimedOut:
            return .timedOut(host, seconds: HTTPExchange.silenceLimit(request.connectTimeout))
        case Code.couldNotResolveHost:
            return .unknownHost(host)
        case Code.couldNotConnect:
            return .refused(host)
        case Code.peerFailedVerification:
            return .certificateRejected(host, said: said ?? "", tls: request.tls)
        case Code.sslCACertificateBadFile:
            return .badCAFile(host)
        case Code.sslCertificateProblem:
            return .badClientCertificate(host)
        case _ where Code.secureConnection.contains(code):
            if let refused = HTTPClientError.clientCertificateRefused(host, said: said, tls: request.tls) { return refused }
            return .secureConnectionFailed(host)
        case Code.weirdServerReply:
            return .notHTTP(host)
        case Code.unsupportedProtocol where said?.contains("HTTP/0.9") == true:
            // libcurl's words for a peer whose first bytes are not an HTTP status line.
            return .notHTTP(host)
        case Code.partialFile:
            return .truncated(host, received: attempt.body.count, announced: attempt.announcedLength)
        case Code.gotNothing:
            return .closedBeforeAnswer(host)
        case Code.sendError, Code.receiveError:
            // TLS 1.3 sends a refused client certificate's alert after the handshake, with the first read.
            if let refused = HTTPClientError.clientCertificateRefused(host, said: said, tls: request.tls) { return refused }
            if said?.hasPrefix("Too large") == true { return .transportFailed(host, said: said ?? "") }
            guard attempt.status > 0 else {
                // A server that wants a client certificate may just hang up on a request without one.
                if request.url.scheme?.lowercased() == "https", request.tls?.certFile == nil {
                    return .closedBeforeAnswerWithoutCertificate(host)
                }
                return .closedBeforeAnswer(host)
            }
            return .truncated(host, received: attempt.body.count, announced: attempt.announcedLength)
        case Code.badContentEncoding:
            return .invalidResponse(host)
        case Code.filesizeExceeded:
            return .tooLarge(host, limit: request.maxBytes)
        default:
            if let said { return .transportFailed(host, said: said) }
            return .connectionFailed(host, code: Int(code))
        }
    }

    /// libcurl's message, unless it repeats the URL or its query (which may hold a secret).
    private func sanitized(_ said: String) -> String? {
        let said = said.trimmingCharacters(in: .whitespacesAndNewlines)
        if said.isEmpty || said.contains(request.url.absoluteString) { return nil }
        // A key file's path is a secret.
        if let keyFile = request.tls?.keyFile, said.contains(keyFile) || said.contains((keyFile as NSString).lastPathComponent) {
            return nil
        }
        if let query = request.url.query, !query.isEmpty, said.contains(query) { return nil }
        return said
    }

    /// What one hop sends.
    private struct Target {
        var url: URL
        var method: String
        var headers: HTTPHeaders
        var body: Data?

        /// Moves to the next hop of a redirect, the way browsers and URLSession do: 303 (and 301 or 302
        /// after a POST) continue with a GET without a body. Secrets and credentials stay with the origin
        /// they were written for (see ``HTTPRequest/headers(_:redirectedFrom:to:)``); a redirect that
        /// would carry a body holding a secret to another origin returns the failure instead.
        mutating func follow(to next: URL, status: Int, request: HTTPRequest) -> HTTPClientError? {
            let method = method.uppercased()
            if status == 303 && method != "HEAD" || (status == 301 || status == 302) && method == "POST" {
                self.method = "GET"
                body = nil
                headers.remove(name: "Content-Type")
                headers.remove(name: "Content-Length")
            }
            if let failure = request.secretBodyRedirectFailure(from: url, to: next, keepsBody: body != nil) { return failure }
            headers = HTTPRequest.headers(headers, redirectedFrom: url, to: next)
            url = next
            return nil
        }
    }
}

/// What one transfer has received, filled in by libcurl's callbacks on the transfer's thread.
final class CurlAttempt {
    enum Stop {
        case tooLarge(announced: Int64?)
        case headersTooLarge
        case redirect(String)
    }

    let exchange: CurlExchange
    let maxBytes: Int
    let isHead: Bool
    var status = 0
    var headers = HTTPHeaders()
    var body = Data()
    /// The bytes of header and trailer lines received so far, line endings included.
    var headerBytes = 0
    var stop: Stop?
    /// libcurl's own message for a failure (its error buffer).
    var said = ""
    /// The bytes of the head and body received so far, as they arrived (before any decoding).
    var received = 0
    /// The check of ``HTTPRequest/minimumRate``.
    var progress: TransferProgress

    init(exchange: CurlExchange, maxBytes: Int, isHead: Bool, progress: TransferProgress) {
        self.exchange = exchange
        self.maxBytes = maxBytes
        self.isHead = isHead
        self.progress = progress
    }

    var announcedLength: Int64? {
        headers["Content-Length"].flatMap(HTTPHeaders.contentLength)
    }

    /// Counts a header or trailer line of `length` bytes; `false` (and the transfer stops) once the
    /// response's lines pass ``HTTPRequest/maximumHeaderBytes``.
    func countHeader(_ length: Int) -> Bool {
        headerBytes += length
        guard headerBytes > HTTPRequest.maximumHeaderBytes else { return true }
        stop = .headersTooLarge
        return false
    }

    /// One line of the head; `false` stops the transfer.
    func receiveHeader(_ line: String) -> Bool {
        if exchange.isEnded { return false }
        if line.hasPrefix("HTTP/") {
            // A new response: after a 1xx, the final one starts over.
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
            headers = HTTPHeaders()
            return true
        }
        if line.isEmpty {
            return endOfHead()
        }
        if let first = line.first, first == " " || first == "\t", let last = headers.fields.last {
            // An obsolete folded line continues the previous field.
            headers.replaceOrAdd(name: last.name, value: last.value + " " + CurlAttempt.trimmed(line[...]))
            return true
        }
        guard let colon = line.firstIndex(of: ":") else { return true }
        let name = CurlAttempt.trimmed(line[..<colon])
        let value = CurlAttempt.trimmed(line[line.index(after: colon)...])
        if !name.isEmpty { headers.add(name: name, value: value) }
        return true
    }

    /// `text` without the spaces and tabs around it (HTTP's optional white space, RFC 9110 §5.6.3).
    static func trimmed(_ text: Substring) -> String {
        let utf8 = text.utf8
        var start = utf8.startIndex
        var end = utf8.endIndex
        while start < end, utf8[start] == 0x20 || utf8[start] == 0x09 { start = utf8.index(after: start) }
        while start < end {
            let before = utf8.index(before: end)
            guard utf8[before] == 0x20 || utf8[before] == 0x09 else { break }
            end = before
        }
        return String(text[start..<end])
    }

    private func endOfHead() -> Bool {
        guard status >= 200 else { return true }  // 1xx: the real response follows
        if [301, 302, 303, 307, 308].contains(status), let location = headers["Location"], !location.isEmpty {
            stop = .redirect(location)
            return false
        }
        if !isHead, status != 204, status != 304, let announced = announcedLength, announced > Int64(maxBytes) {
            stop = .tooLarge(announced: announced)
            return false
        }
        // A 204 or 304 may announce any length (it sends no body): room for at most the cap.
        if let announced = announcedLength, announced > 0, !isHead {
            body.reserveCapacity(Int(min(announced, Int64(maxBytes))))
        }
        return true
    }

    /// A piece of the body; `false` stops the transfer.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if exchange.isEnded { return false }
        if body.count + bytes.count > maxBytes {
            stop = .tooLarge(announced: nil)
            return false
        }
        body.append(bytes.assumingMemoryBound(to: UInt8.self))
        return true
    }
}

/// libcurl's body callback: returning less than it was given aborts the transfer.
private func curlReceiveBody(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let attempt = Unmanaged<CurlAttempt>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard length > 0, let data else { return length }
    attempt.received += length
    return attempt.receiveBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

/// libcurl's head callback: one whole line at a time, with its line ending.
private func curlReceiveHeader(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let attempt = Unmanaged<CurlAttempt>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard let data else { return length }
    guard attempt.countHeader(length) else { return 0 }
    attempt.received += length
    var end = length
    while end > 0, data[end - 1] == 0x0A || data[end - 1] == 0x0D { end -= 1 }
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: end), as: UTF8.self)
    return attempt.receiveHeader(line) ? length : 0
}
#endif
