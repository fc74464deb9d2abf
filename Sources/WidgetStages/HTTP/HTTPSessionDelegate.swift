import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Routes a URLSession's callbacks to the ``HTTPExchange`` of each task.
///
/// A task without an exchange (already finished and forgotten) is told to stop; its late data is dropped.
final class HTTPSessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = Mutex<[Int: HTTPExchange]>([:])

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
