import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Security)
import Security
#endif

/// Routes a URLSession's callbacks to the ``HTTPExchange`` of each task.
///
/// A task without an exchange (already finished and forgotten) is told to stop; its late data is dropped.
final class HTTPSessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = Mutex<[Int: HTTPExchange]>([:])
    /// The request's TLS settings; the CA file is read when the delegate is made.
    private let tls: HTTPRequest.TLS?
    /// The CA file's certificates (DER), trusted instead of the system's.
    private let anchors: [Data]

    /// A delegate for requests with `tls` (a client certificate is refused before, by the client).
    init(tls: HTTPRequest.TLS? = nil) {
        self.tls = tls
        anchors = tls?.caFile.flatMap { FileManager.default.contents(atPath: $0) }.map(HTTPRequest.certificates(inPEM:)) ?? []
    }

    func register(_ exchange: HTTPExchange, for task: URLSessionTask) {
        let id = task.taskIdentifier
        exchanges.withLock { $0[id] = exchange }
    }

    func forget(_ task: URLSessionTask) {
        let id = task.taskIdentifier
        _ = exchanges.withLock { $0.removeValue(forKey: id) }
    }

    /// How many exchanges are registered (for tests: it returns to zero when all are done).
    var count: Int { exchanges.withLock { $0.count } }

    private func exchange(for task: URLSessionTask) -> HTTPExchange? {
        let id = task.taskIdentifier
        return exchanges.withLock { $0[id] }
    }

    // MARK: - URLSessionDataDelegate

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let proceed = exchange(for: dataTask)?.receive(response) ?? false
        completionHandler(proceed ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(for: dataTask)?.receive(data)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        switch exchange(for: task)?.redirect(to: request, from: response) ?? .ignore {
        case .follow(let next): completionHandler(next)
        case .stop: completionHandler(nil)
        case .ignore: break
        }
    }

    /// widgetd sends credentials itself, as headers; a server's authentication challenge is not answered
    /// with stored credentials, so the caller gets the server's response (a 401) at once instead of a stall.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
        // Answer with the server's own 401/407 response (its body is not needed), then drop the task.
        if let response = challenge.failureResponse, let exchange = exchange(for: task) {
            exchange.completeWithChallenge(response)
            forget(task)
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
        #else
        if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust {
            #if canImport(Security)
            if let tls, let trust = challenge.protectionSpace.serverTrust {
                if !tls.verify {
                    completionHandler(.useCredential, URLCredential(trust: trust))
                    return
                }
                if tls.caFile != nil {
                    let certificates = anchors.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
                    SecTrustSetAnchorCertificates(trust, certificates as CFArray)
                    SecTrustSetAnchorCertificatesOnly(trust, true)
                    var error: CFError?
                    if !certificates.isEmpty, SecTrustEvaluateWithError(trust, &error) {
                        completionHandler(.useCredential, URLCredential(trust: trust))
                    } else {
                        completionHandler(.cancelAuthenticationChallenge, nil)
                    }
                    return
                }
            }
            #endif
            completionHandler(.performDefaultHandling, nil)
        } else {
            completionHandler(.rejectProtectionSpace, nil)
        }
        #endif
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        exchange(for: task)?.complete(error: error)
        forget(task)
    }
}
