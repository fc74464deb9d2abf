import Foundation
import Synchronization

extension WidgetDaemon {
    /// How often the index, the gallery, the metrics and the daemon's record are written while refreshes
    /// are under way.
    ///
    /// Each of those files describes every widget, so writing them costs in proportion to the number of
    /// widgets. Written after every finished refresh, a first wave over N widgets wrote them about N/2
    /// times: quadratic work, which made a daemon's first wave over 1,000 widgets ten times as long as
    /// `run --once`'s; and many widgets refreshing in a steady stream (a refresh due every few
    /// milliseconds, each alone) had them written after every refresh. While refreshes are under way or
    /// due within two seconds, they are now written at most once per gap, and at once when a wave ends
    /// with nothing due soon. The gap is a second, or ten times what the last write
    /// took when that is longer, so that describing the widgets never takes more than about a tenth of
    /// the daemon's time, however many there are. A write put off is made when the gap has passed (the
    /// loop wakes for it) or when the daemon stops.
    ///
    /// The folders are flushed just before each such write (the renames of every snapshot written since,
    /// and the state journal), so a power cut loses at most the refreshes of the last gap, each whole:
    /// their widgets show the snapshot before, as if they had not refreshed yet.
    struct IndexPacing {
        /// The shortest gap between two writes while refreshes are under way.
        static let minimumGap: TimeInterval = 1
        /// The gap is at least this many times the duration of the last write.
        static let costFactor: Double = 10

        /// When the files were last written, on the daemon's clock; `nil` before the first paced write.
        private var lastWrite: Date?
        /// How long the last write took, in seconds, set by the thread that wrote it.
        let cost = Cost()
        /// Whether a write was put off and is still to be made.
        private(set) var pending = false

        /// The gap after the last write.
        var gap: TimeInterval { max(Self.minimumGap, Self.costFactor * cost.seconds) }

        /// While a write is still under way beside the loop, the next is put off by this many seconds at a
        /// time: writes never queue up behind a long one, each holding its own copy of the widgets.
        static let busyRetry: TimeInterval = 1
        /// When a write put off because one was still under way may be tried again.
        private var retryAt: Date?

        /// When the write put off is due; `nil` when none is.
        var deadline: Date? {
            guard pending, let lastWrite else { return nil }
            return max(lastWrite.addingTimeInterval(gap), retryAt ?? .distantPast)
        }

        /// Whether to write now: always when nothing is `busy` (no refresh under way or due soon) or
        /// nothing was written yet, else once the gap has passed and no write is still under way beside
        /// the loop. When not, the write is noted as put off.
        mutating func shouldWrite(at now: Date, busy: Bool) -> Bool {
            if !busy { return true }
            if cost.isWriting {
                pending = true
                retryAt = now.addingTimeInterval(Self.busyRetry)
                return false
            }
            guard let lastWrite, now < lastWrite.addingTimeInterval(gap) else { return true }
            pending = true
            return false
        }

        /// Notes a write made at `now` (its duration is set in ``cost`` by the thread that makes it).
        mutating func wrote(at now: Date) {
            lastWrite = now
            retryAt = nil
            pending = false
        }

        /// The duration of the last write, in seconds, and whether one is under way; shared with the thread
        /// that writes.
        final class Cost: Sendable {
            private let value = Mutex<(seconds: Double, writing: Bool)>((0, false))

            /// The duration last set.
            var seconds: Double { value.withLock { $0.seconds } }

            /// Whether a write handed to the writing thread has not ended yet.
            var isWriting: Bool { value.withLock { $0.writing } }

            /// Notes that a write was handed to the writing thread.
            func start() {
                value.withLock { $0.writing = true }
            }

            /// Sets the duration of the last write, which has ended.
            func set(_ duration: Duration) {
                let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
                value.withLock { $0 = (seconds, false) }
            }
        }
    }
}
