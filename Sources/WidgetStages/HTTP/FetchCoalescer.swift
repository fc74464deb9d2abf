import Foundation

/// Shares one HTTP exchange among widgets that send identical requests (method, URL, headers, body)
/// during one refresh wave.
///
/// The runtime puts a new coalescer in the stage resources for each wave; the HTTP source asks it for
/// a response instead of sending directly. The first identical request is sent; the others wait for
/// its result, success or failure, and share it.
///
/// Waiting can be cancelled: once every task waiting for an exchange is cancelled (the daemon is
/// stopping), the exchange itself is cancelled, so a stalled server never holds up a stop. An exchange
/// that other, uncancelled tasks still wait for goes on for them.
///
/// ```swift
/// var resources = StageResources()
/// resources.insert(FetchCoalescer())
/// ```
public actor FetchCoalescer {
    private struct Flight {
        let task: Task<Result<HTTPResponse, HTTPClientError>, Never>
        var waiters = 1
        var cancelled = 0
    }

    private var flights: [HTTPRequest: Flight] = [:]
    private var sent = 0

    /// An empty coalescer, for one refresh wave.
    public init() {}

    /// How many distinct requests were sent through this coalescer.
    public var distinctRequests: Int { sent }

    /// The response to `request`, sent through `client` once per wave.
    ///
    /// - Throws: The exchange's ``HTTPClientError``, shared by every caller; `cancelled` when every
    ///   caller waiting for it was cancelled.
    public func response(to request: HTTPRequest, client: HTTPClient) async throws(HTTPClientError) -> HTTPResponse {
        let task: Task<Result<HTTPResponse, HTTPClientError>, Never>
        if let flight = flights[request] {
            flights[request]?.waiters += 1
            task = flight.task
        } else {
            task = Task { () -> Result<HTTPResponse, HTTPClientError> in
                do throws(HTTPClientError) {
                    return .success(try await client.send(request))
                } catch {
                    return .failure(error)
                }
            }
            flights[request] = Flight(task: task)
            sent += 1
        }
        let result = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            Task { await self.abandon(request, task: task) }
        }
        return try result.get()
    }

    /// One waiter of `request`'s exchange was cancelled; the exchange is cancelled (and forgotten, so a
    /// later identical request is sent anew) once all its waiters were.
    private func abandon(_ request: HTTPRequest, task: Task<Result<HTTPResponse, HTTPClientError>, Never>) {
        guard var flight = flights[request], flight.task == task else { return }
        flight.cancelled += 1
        if flight.cancelled >= flight.waiters {
            flights[request] = nil
            task.cancel()
        } else {
            flights[request] = flight
        }
    }
}
