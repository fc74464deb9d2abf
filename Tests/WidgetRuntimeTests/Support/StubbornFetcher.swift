import Foundation
import Synchronization
import WidgetCore

/// A source that ignores cancellation: `{"type": "stubborn"}` waits until the test opens its ``Gate``,
/// whether or not its refresh was cancelled, like a stage stuck in a loop or a blocking call. It tells
/// whether deadlines and stops hold without the stage's help.
struct StubbornFetcher: Fetcher {
    struct Options: Decodable, Sendable {}

    /// Holds every stubborn fetch until ``open()``; counts the fetches that started.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>], started: Int)>((false, [], 0))

        init() {}

        var started: Int { state.withLock { $0.started } }

        /// Lets every fetch, waiting or to come, go on (they then fail).
        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting.removeAll() }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }

        func wait() async {
            await withCheckedContinuation { continuation in
                let go = state.withLock { state in
                    state.started += 1
                    if state.open { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if go { continuation.resume() }
            }
        }
    }

    static let typeName = "stubborn"
    static let summary = "Ignores cancellation until its gate opens (for tests)."

    init(options: Options) {}

    func fetch(context: StageContext) async throws -> Payload {
        await context.resources[Gate.self]?.wait()
        throw StageError("the gate opened")
    }
}
