import Foundation

/// Shares one HTTP exchange among widgets that send identical requests (method, URL, headers, body)
/// during one refresh wave.
///
/// The runtime puts a new coalescer in the stage resources for each wave; the HTTP source asks it for
/// a response instead of sending directly. The first identical request is sent; the others wait for
/// its result, success or failure, and share it.
///
/// ```swift
/// var resources = StageResources()
/// resources.insert(FetchCoalescer())
/// ```
public actor FetchCoalescer {
    private var results: [HTTPRequest: Task<Result<HTTPResponse, HTTPClientError>, Never>] = [:]

    public init() {}

    /// How many distinct requests were sent through this coalescer.
    public var distinctRequests: Int { results.count }

    /// The response to `request`, sent through `client` once per wave.
    public func response(to request: HTTPRequest, client: HTTPClient) async throws(HTTPClientError) -> HTTPResponse {
        if let existing = results[request] { return try await existing.value.get() }
        let task = Task { () -> Result<HTTPResponse, HTTPClientError> in
            do throws(HTTPClientError) {
                return .success(try await client.send(request))
            } catch {
                return .failure(error)
            }
        }
        results[request] = task
        return try await task.value.get()
    }
}
