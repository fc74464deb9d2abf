import Foundation
import WidgetCore
import WidgetTesting

/// A source whose server is slow by the test's clock: `{"type": "slowhost", "seconds": 10}` holds its
/// refresh until the ``ManualClock`` among the resources has moved that far, then fails as a trickle
/// does when it falls under the minimum rate. It announces each fetch on the ``HangingFetcher/Started``
/// resource, when there is one.
struct SlowHostFetcher: Fetcher {
    struct Options: Decodable, Sendable {
        var seconds: Double
    }

    static let typeName = "slowhost"
    static let summary = "Fails after some seconds of the test's clock (for tests)."

    let seconds: Double

    init(options: Options) {
        seconds = options.seconds
    }

    func fetch(context: StageContext) async throws -> Payload {
        guard let clock = context.resources[ManualClock.self] else { throw StageError("no ManualClock among the resources") }
        context.resources[HangingFetcher.Started.self]?.announce()
        // Busy: a refresh under way, not an idle daemon.
        try await clock.sleep(until: context.now.addingTimeInterval(seconds), busy: true)
        throw StageError("the server sent 5 bytes in \(Int(seconds)) s, less than the minimum")
    }
}
