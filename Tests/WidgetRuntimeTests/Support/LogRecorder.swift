import Synchronization

/// Collects the lines a daemon logs, for tests to read.
final class LogRecorder: Sendable {
    private let storage = Mutex<[String]>([])

    init() {}

    /// The function to pass as a daemon's `log`.
    var log: @Sendable (String) -> Void {
        { [self] line in storage.withLock { $0.append(line) } }
    }

    var lines: [String] { storage.withLock { $0 } }
}
