import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The state of one request in flight: the body received so far, the redirects followed, the waiting
/// caller. It finishes exactly once — with a response, or with the first failure among the deadline, the
/// byte cap, the redirect limit, the caller's cancellation and the transport's own error — and ignores
/// every callback that arrives after that.
final class HTTPExchange: Sendable {
    typealias Outcome = Result<HTTPResponse, HTTPClientError>

    private struct State {
        var continuation: CheckedContinuation<Outcome, Never>?
        /// Set when the exchange finished before the caller started waiting.
        var early: Outcome?
        var finished = false
        var task: URLSessionTask?
        var response: HTTPURLResponse?
        var body = Data()
        var redirects = 0
        var deadline: (any DispatchSourceTimer)?
        /// Checks ``HTTPRequest/minimumRate`` once a second.
        var rateCheck: (any DispatchSourceTimer)?
        /// The bytes of the response received so far (the head counts as one once it arrived).
        var received = 0
        var progress: TransferProgress
    }

    let request: HTTPRequest
    let host: String
    private let state: Mutex<State>
    /// The session's serial delegate queue. Transfers are cancelled from it: on Linux, cancelling a task
    /// while its redirect callback is pending crashes, and running every cancel and every callback on
    /// this one queue rules that out (see ``redirect(to:from:)``).
    private let delegateQueue: OperationQueue

    init(request: HTTPRequest, delegateQueue: OperationQueue) {
        self.request = request
        self.host = request.hostDescription
        self.delegateQueue = delegateQueue
        state = Mutex(State(progress: TransferProgress(request)))
    }

    // MARK: - Life cycle

    /// The longest timer set, in seconds (about 31 years): a longer timeout, which a definition may give
    /// (`"100000d"`), is no deadline in effect, and counting it in milliseconds would overflow.
    static let longestTimer: Double = 1e9

    /// A timer that calls `fire` once, `seconds` from now (at most ``longestTimer``): a Dispatch timer,
    /// not a sleeping task, so it fires on time even when the cooperative thread pool is busy. URLSession
    /// exchanges are timed with it; libcurl's transfers keep their deadline on their own thread.
    static func deadline(after seconds: Double, _ fire: @escaping @Sendable () -> Void) -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + .milliseconds(Int(min(max(0, seconds), longestTimer) * 1000)))
        timer.setEventHandler(handler: fire)
        timer.resume()
        return timer
    }

    /// Starts `task` and the deadline; `continuation` is resumed once, with the outcome.
    func start(_ task: URLSessionTask, continuation: CheckedContinuation<Outcome, Never>) {
        let early: Outcome? = state.withLock { state in
            if let early = state.early { return early }
            state.task = task
            state.continuation = continuation
            let seconds = request.timeout
            let host = host
            state.deadline = HTTPExchange.deadline(after: seconds) { [weak self] in
                self?.finish(.failure(.timedOut(host, seconds: seconds)))
            }
            if request.minimumRate.bytes > 0 {
                let timer = DispatchSource.makeTimerSource(queue: .global())
                timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1))
                timer.setEventHandler { [weak self] in self?.checkRate() }
                timer.resume()
                state.rateCheck = timer
            }
            return nil
        }
        if let early {
            // Finished (cancelled) before it started: the task is never resumed, only discarded.
            delegateQueue.addOperation { task.cancel() }
            continuation.resume(returning: early)
        } else {
            task.resume()
        }
    }

    /// Ends the exchange with `outcome` unless it already ended; a failure cancels the transfer unless
    /// `cancelTransfer` is `false`. With `immediately` the cancel is sent at once rather than after the
    /// callbacks already on the delegate queue: for a body over its cap, whose server may have filled
    /// that queue faster than it drains.
    func finish(_ outcome: Outcome, cancelTransfer: Bool = true, immediately: Bool = false) {
        let ended: (CheckedContinuation<Outcome, Never>?, URLSessionTask?, (any DispatchSourceTimer)?)? =
            state.withLock { state in
                guard !state.finished else { return nil }
                state.finished = true
                state.body = Data()
                state.response = nil
                let continuation = state.continuation
                state.continuation = nil
                if continuation == nil { state.early = outcome }
                let task = state.task
                state.task = nil
                let deadline = state.deadline
                state.deadline = nil
                state.rateCheck?.cancel()
                state.rateCheck = nil
                return (continuation, task, deadline)
            }
        guard let (continuation, task, deadline) = ended else { return }
        deadline?.cancel()
        if case .failure = outcome, cancelTransfer, let task {
            if immediately {
                DispatchQueue.global().async { task.cancel() }
            } else {
                delegateQueue.addOperation { task.cancel() }
            }
        }
        continuation?.resume(returning: outcome)
    }

    /// Fails the exchange when the response brought less than ``HTTPRequest/minimumRate`` in its last
    /// window (see ``TransferProgress``).
    private func checkRate() {
        let slow: TransferProgress? = state.withLock { state in
            guard !state.finished else { return nil }
            let now = DispatchTime.now().uptimeNanoseconds
            return state.progress.isFastEnough(received: state.received, at: now) ? nil : state.progress
        }
        guard let slow else { return }
        finish(
            .failure(.tooSlow(host, received: slow.receivedInWindow, seconds: slow.windowSeconds, minimum: slow.minimum)),
            immediately: true)
    }

    // MARK: - Transport events

    /// The response head arrived; `false` means the transfer must stop.
    func receive(_ response: URLResponse) -> Bool {
        guard let response = response as? HTTPURLResponse else {
            finish(.failure(.invalidResponse(host)))
            return false
        }
        let announced = response.expectedContentLength
        if announced > Int64(request.maxBytes) {
            finish(.failure(.tooLarge(host, announced: announced, limit: request.maxBytes)))
            return false
        }
        return state.withLock { state in
            guard !state.finished else { return false }
            state.response = response
            state.received += 1
            state.body = Data()
            if announced > 0 { state.body.reserveCapacity(Int(announced)) }
            return true
        }
    }

    /// A piece of the body arrived. Late pieces (after the end) are dropped.
    func receive(_ data: Data) {
        let overflow = state.withLock { state in
            guard !state.finished else { return false }
            if state.body.count + data.count > request.maxBytes { return true }
            state.received += data.count
            state.body.append(data)
            return false
        }
        if overflow {
            finish(.failure(.tooLarge(host, limit: request.maxBytes)), immediately: true)
        }
    }

    /// The server redirected: `.follow(request)`, `.stop` (treat the redirect as the final response), or
    /// `.ignore` when the exchange has already ended.
    ///
    /// Called on the delegate queue. After `.ignore` the caller must not call URLSession's completion
    /// handler: a cancel is then queued or done, and answering a cancelled task's redirect crashes
    /// FoundationNetworking.
    func redirect(to next: URLRequest, from response: HTTPURLResponse) -> RedirectDecision {
        let count: Int? = state.withLock { state in
            guard !state.finished else { return nil }
            state.redirects += 1
            return state.redirects
        }
        guard let count else { return .ignore }
        if count > request.maxRedirects {
            finish(.failure(.tooManyRedirects(host, limit: request.maxRedirects)), cancelTransfer: false)
            return .stop
        }
        var next = next
        // Without a URL on either side the origins cannot be compared: the redirect counts as leaving.
        let from = response.url ?? request.url
        let keepsBody = [307, 308].contains(response.statusCode) || next.httpBody != nil || next.httpBodyStream != nil
        if let to = next.url, let failure = request.secretBodyRedirectFailure(from: from, to: to, keepsBody: keepsBody) {
            finish(.failure(failure), cancelTransfer: false)
            return .stop
        }
        if next.url.map({ !HTTPRequest.isSameOrigin(from, $0) }) ?? true {
            // Secrets and credentials meant for one origin are not handed to another.
            // By name: URLRequest keeps no more than that, so a name that one secret field has goes whole.
            let withheld = Set(request.headers.filter(\.isSecret).map { $0.name.lowercased() }).union(HTTPRequest.credentialFields)
            for name in withheld { next.setValue(nil, forHTTPHeaderField: name) }
        }
        return .follow(next)
    }

    enum RedirectDecision {
        case follow(URLRequest)
        case stop
        case ignore
    }

    /// The server answered with an authentication challenge (401 or 407): the exchange ends with that
    /// response, without its body, since widgetd never answers challenges with stored credentials.
    func completeWithChallenge(_ response: URLResponse) {
        guard let response = response as? HTTPURLResponse else { return }
        let alreadyFinished = state.withLock { state -> Bool in
            if !state.finished { state.response = response }
            return state.finished
        }
        guard !alreadyFinished else { return }
        finish(.success(Self.response(response, body: Data(), requestURL: request.url)))
    }

    /// The transport finished, with or without an error.
    func complete(error: (any Error)?) {
        let snapshot: (HTTPURLResponse?, Data)? = state.withLock { state in
            guard !state.finished else { return nil }
            return (state.response, state.body)
        }
        guard let (response, body) = snapshot else { return }
        if let error {
            finish(.failure(failure(for: error, response: response, received: body.count)))
            return
        }
        guard let response else {
            finish(.failure(.invalidResponse(host)))
            return
        }
        let announced = response.expectedContentLength
        let encoded = response.value(forHTTPHeaderField: "Content-Encoding").map { !$0.isEmpty } ?? false
        if announced >= 0, !encoded, Int64(body.count) < announced, request.method.uppercased() != "HEAD",
            response.statusCode != 304, response.statusCode != 204
        {
            finish(.failure(.truncated(host, received: body.count, announced: announced)))
            return
        }
        finish(.success(Self.response(response, body: body, requestURL: request.url)))
    }

    // MARK: - Translation

    private func failure(for error: any Error, response: HTTPURLResponse?, received: Int) -> HTTPClientError {
        let code = (error as NSError).code
        let said = transportDescription(of: error as NSError)
        switch code {
        case NSURLErrorCancelled:
            return .cancelled(host)
        case NSURLErrorTimedOut:
            return .timedOut(host, seconds: Self.silenceLimit(request.connectTimeout))
        case NSURLErrorHTTPTooManyRedirects:
            return .tooManyRedirects(host, limit: request.maxRedirects)
        case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed:
            return .unknownHost(host)
        case NSURLErrorCannotConnectToHost:
            return .refused(host)
        case NSURLErrorSecureConnectionFailed, NSURLErrorServerCertificateHasBadDate,
            NSURLErrorServerCertificateUntrusted, NSURLErrorServerCertificateHasUnknownRoot,
            NSURLErrorServerCertificateNotYetValid, NSURLErrorClientCertificateRejected,
            NSURLErrorClientCertificateRequired:
            return .secureConnectionFailed(host)
        case NSURLErrorBadServerResponse, NSURLErrorCannotParseResponse, NSURLErrorCannotDecodeRawData,
            NSURLErrorCannotDecodeContentData:
            return .invalidResponse(host)
        case NSURLErrorUnsupportedURL where said?.contains("HTTP/0.9") == true:
            // curl's words for a peer whose first bytes are not an HTTP status line.
            return .notHTTP(host)
        case NSURLErrorNetworkConnectionLost, NSURLErrorUnknown, NSURLErrorZeroByteResource:
            guard let response else {
                if code == NSURLErrorUnknown, let said, !said.hasPrefix("Empty reply") {
                    // e.g. headers over curl's limit: the peer did not close, the transport gave up.
                    return .transportFailed(host, said: said)
                }
                return .closedBeforeAnswer(host)
            }
            let announced = response.expectedContentLength
            return .truncated(host, received: received, announced: announced >= 0 ? announced : nil)
        default:
            if let said { return .transportFailed(host, said: said) }
            return .connectionFailed(host, code: code)
        }
    }

    /// What the transport said about `error` in words (curl's message on Linux, e.g. "Too large response
    /// headers: 307213 > 307200"), without the URL, whose path or query may hold a secret; `nil` when it
    /// said nothing of its own.
    private func transportDescription(of error: NSError) -> String? {
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
        guard
            var said = (error.userInfo[NSLocalizedDescriptionKey] as? String)
                ?? (underlying?.userInfo[NSLocalizedDescriptionKey] as? String)
        else { return nil }
        said = said.trimmingCharacters(in: .whitespacesAndNewlines)
        let url = request.url.absoluteString
        if said.isEmpty || said == "(null)" || said.contains(url) { return nil }
        if let query = request.url.query, !query.isEmpty, said.contains(query) { return nil }
        if said.hasPrefix("The operation could not be completed") { return nil }
        return said
    }

    /// The silence limit handed to URLSession, which counts whole seconds only.
    static func silenceLimit(_ seconds: TimeInterval) -> TimeInterval {
        max(1, seconds.rounded(.up))
    }

    private static func response(_ response: HTTPURLResponse, body: Data, requestURL: URL) -> HTTPResponse {
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            headers.add(name: String(describing: name), value: String(describing: value))
        }
        return HTTPResponse(
            status: response.statusCode,
            headers: headers,
            body: body,
            finalURL: response.url ?? requestURL
        )
    }
}
