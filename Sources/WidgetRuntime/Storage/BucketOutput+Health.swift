public import Foundation
public import WidgetJSON

extension BucketOutput {
    /// How the bucket output's uploads stand: what `widgetd status` and `widgetd.prom` show so an operator
    /// sees that writes fail and how far behind the bucket is. It never holds a credential: the last
    /// error is the store's message (request, key, status, the store's code).
    public struct Health: Sendable, Equatable {
        /// Objects written (or removed) here and not yet acknowledged by the store.
        public var pendingObjects = 0
        /// When the oldest of those was written; `nil` when none is pending.
        public var oldestPendingSince: Date?
        /// Requests that failed since the last one that succeeded.
        public var failuresInARow = 0
        /// Requests that failed since the start.
        public var failuresTotal = 0
        /// The last failure's message; `nil` before the first.
        public var lastError: String?
        /// When the last failure happened.
        public var lastErrorAt: Date?
        /// When the store last acknowledged a write or a delete.
        public var lastSuccessAt: Date?
        /// Until when nothing is sent (backing off after a failure, or as the store's `Retry-After` said).
        public var pausedUntil: Date?
        /// PUTs the store acknowledged.
        public var puts = 0
        /// DELETEs the store acknowledged.
        public var deletes = 0
        /// The bytes of those PUTs.
        public var bytesUploaded = 0
        /// Writes not sent because the store already had their bytes.
        public var unchangedSkipped = 0
        /// Whether the write gate (the shard's lease) is closed: nothing is sent while it is.
        public var gateClosed = false

        /// Figures before anything happened.
        public init() {}

        /// How long the oldest pending write has waited at `now`, in seconds; 0 when none waits.
        public func oldestPendingAge(at now: Date) -> Double {
            oldestPendingSince.map { max(0, now.timeIntervalSince($0)) } ?? 0
        }

        /// The figures as the daemon's record keeps them (`"output"` in its record, read by
        /// `widgetd status`), dates as ISO 8601.
        public var value: WidgetValue {
            func number(_ value: Int) -> WidgetValue { .number(WidgetNumber(value)) }
            var object: WidgetObject = [
                "pendingObjects": number(pendingObjects),
                "failuresInARow": number(failuresInARow),
                "failuresTotal": number(failuresTotal),
                "puts": number(puts),
                "deletes": number(deletes),
                "bytesUploaded": number(bytesUploaded),
                "unchangedSkipped": number(unchangedSkipped),
            ]
            for (name, date) in [
                ("oldestPendingSince", oldestPendingSince), ("lastErrorAt", lastErrorAt), ("lastSuccessAt", lastSuccessAt),
            ] {
                if let date { object[name] = .string(Timestamp.string(date)) }
            }
            if let lastError { object["lastError"] = .string(lastError) }
            if gateClosed { object["gateClosed"] = .bool(true) }
            return .object(object)
        }

        /// Reads figures written by ``value`` (``pausedUntil`` is not kept there); nil when `value` is not an
        /// object.
        public init?(value: WidgetValue) {
            guard value.object != nil else { return nil }
            func int(_ name: String) -> Int { value[name]?.number?.int ?? 0 }
            func date(_ name: String) -> Date? { value[name]?.string.flatMap(Timestamp.date) }
            pendingObjects = int("pendingObjects")
            failuresInARow = int("failuresInARow")
            failuresTotal = int("failuresTotal")
            puts = int("puts")
            deletes = int("deletes")
            bytesUploaded = int("bytesUploaded")
            unchangedSkipped = int("unchangedSkipped")
            oldestPendingSince = date("oldestPendingSince")
            lastErrorAt = date("lastErrorAt")
            lastSuccessAt = date("lastSuccessAt")
            lastError = value["lastError"]?.string
            gateClosed = value["gateClosed"]?.bool ?? false
        }

        /// One line for people: `12 objects pending for 40 s, 3 failures in a row: PUT news.json: 503 …`.
        public func summary(at now: Date) -> String {
            var text = pendingObjects == 0 ? "all written" : "\(pendingObjects) objects pending for \(Int(oldestPendingAge(at: now))) s"
            if gateClosed { text += ", waiting for the lease" }
            if failuresInARow > 0, let lastError { text += ", \(failuresInARow) failures in a row: \(lastError)" }
            return text
        }

        /// The Prometheus lines (text format 0.0.4) of these figures, each with its `# HELP` and `# TYPE`:
        /// `widgetd_output_pending_objects`, `widgetd_output_oldest_pending_seconds`,
        /// `widgetd_output_failures_total`, `widgetd_output_failures_in_a_row`,
        /// `widgetd_output_puts_total`, `widgetd_output_deletes_total`,
        /// `widgetd_output_uploaded_bytes_total`, `widgetd_output_unchanged_skipped_total`,
        /// `widgetd_output_last_success_timestamp_seconds` (when there was one).
        public func prometheusLines(at now: Date) -> String {
            var lines = ""
            func metric(_ name: String, _ type: String, _ help: String, _ value: Double) {
                lines += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(format(value))\n"
            }
            metric(
                "widgetd_output_pending_objects", "gauge", "Objects written and not yet acknowledged by the object store.",
                Double(pendingObjects))
            metric(
                "widgetd_output_oldest_pending_seconds", "gauge", "Age of the oldest write the object store has not acknowledged.",
                oldestPendingAge(at: now))
            metric("widgetd_output_failures_total", "counter", "Requests to the object store that failed.", Double(failuresTotal))
            metric(
                "widgetd_output_failures_in_a_row", "gauge", "Requests to the object store that failed since the last success.",
                Double(failuresInARow))
            metric("widgetd_output_puts_total", "counter", "PUTs the object store acknowledged.", Double(puts))
            metric("widgetd_output_deletes_total", "counter", "DELETEs the object store acknowledged.", Double(deletes))
            metric(
                "widgetd_output_uploaded_bytes_total", "counter", "Bytes of the PUTs the object store acknowledged.", Double(bytesUploaded))
            metric(
                "widgetd_output_unchanged_skipped_total", "counter", "Writes not sent because the object store had their bytes.",
                Double(unchangedSkipped))
            if let lastSuccessAt {
                metric(
                    "widgetd_output_last_success_timestamp_seconds", "gauge", "When the object store last acknowledged a request.",
                    lastSuccessAt.timeIntervalSince1970.rounded())
            }
            return lines
        }

        private func format(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.3f", value)
        }
    }
}
