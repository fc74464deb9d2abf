import Synchronization
import WidgetRuntime

/// Collects the records a daemon logs, for tests to read.
final class LogRecorder: Sendable {
    private let storage = Mutex<[LogRecord]>([])

    init() {}

    /// The function to pass as a daemon's `log`.
    var log: @Sendable (LogRecord) -> Void {
        { [self] record in storage.withLock { $0.append(record) } }
    }

    /// Every record so far.
    var records: [LogRecord] { storage.withLock { $0 } }

    /// The text of every record so far.
    var lines: [String] { records.map(\.message) }
}
