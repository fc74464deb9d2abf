import Foundation
import Synchronization
import WidgetCore

/// A clock whose sleeps return at once and are recorded, for the client's retries: no test waits.
final class RecordingClock: WidgetClock {
    private let sleeps = Mutex<[Double]>([])

    /// The delays asked for, in seconds, in order.
    var delays: [Double] { sleeps.withLock { $0 } }

    func now() -> Date { Date() }

    func sleep(until deadline: Date) async throws {
        sleeps.withLock { $0.append(deadline.timeIntervalSinceNow) }
    }
}
