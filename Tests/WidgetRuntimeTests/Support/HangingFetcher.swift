import Foundation
import WidgetCore

/// A source that never answers until its refresh is cancelled: `{"type": "hang"}`. It announces each
/// fetch on the ``HangingFetcher/Started`` resource, so a test knows a refresh is under way.
struct HangingFetcher: Fetcher {
    struct Options: Decodable, Sendable {}

    /// Yields once each time a fetch starts.
    final class Started: Sendable {
        let fetches: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation

        init() {
            (fetches, continuation) = AsyncStream.makeStream()
        }

        func announce() {
            continuation.yield()
        }
    }

    static let typeName = "hang"
    static let summary = "Never answers (for tests)."

    init(options: Options) {}

    func fetch(context: StageContext) async throws -> Payload {
        let (never, continuation) = AsyncStream<Void>.makeStream()
        context.resources[Started.self]?.announce()
        for await _ in never {}  // ends when the refresh is cancelled
        continuation.finish()
        throw CancellationError()
    }
}
