import Dispatch
import Foundation
import WidgetCore

/// A source whose definition takes as long to load as a test wants: `{"type": "gated-load"}`. Making
/// the stage (which the reader does while it checks the definition) waits until ``gate`` opens, so a
/// test can hold a load of the definitions under way and watch what the daemon does meanwhile.
struct GatedLoadFetcher: Fetcher {
    struct Options: Decodable, Sendable {}

    /// Where loads wait: one gate for every definition read with this stage (one test uses it).
    final class Gate: Sendable {
        private let opened = DispatchSemaphore(value: 0)
        private let arrived = DispatchSemaphore(value: 0)

        /// Returns once a load waits at the gate.
        func waitForLoad() async {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async { [arrived] in
                    arrived.wait()
                    continuation.resume()
                }
            }
        }

        /// Lets every load through, those waiting and those to come.
        func open() {
            for _ in 0..<64 { opened.signal() }
        }

        fileprivate func pass() {
            arrived.signal()
            opened.wait()
        }
    }

    static let gate = Gate()
    static let typeName = "gated-load"
    static let summary = "Waits for the test before its definition loads (for tests)."

    init(options: Options) {
        Self.gate.pass()
    }

    func fetch(context: StageContext) async throws -> Payload {
        Payload(data: Data(#"{"gated": true}"#.utf8), origin: "gated-load")
    }
}
