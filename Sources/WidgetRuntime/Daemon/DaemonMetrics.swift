import Foundation
import WidgetCore

extension WidgetDaemon {
    /// The daemon's counters and gauges since it started, written as Prometheus text to
    /// `OUT/widgetd.prom`.
    struct DaemonMetrics {
        /// One widget's counters and gauges, inline: no block of its own for a widget that never failed.
        struct Widget {
            /// Refreshes by resulting status, in the order of `Snapshot.Status.allCases`.
            var refreshes: (Int, Int, Int, Int) = (0, 0, 0, 0)
            /// How long the last refresh took; `nil` until one is recorded.
            var lastDuration: Double?
            /// Failed refreshes by failing stage (`source`, `parser`, …, `schedule`, `deadline`).
            var failures: [String: Int] = [:]
            /// Snapshot or state writes that failed.
            var writeFailures = 0
            var fetchSeconds: Double?
            var fetchBytes: Int?
            var budget: (used: Int, limit: Int?)?

            /// The refreshes that ended in `status`.
            subscript(status: Snapshot.Status) -> Int {
                get {
                    switch status {
                    case .fresh: refreshes.0
                    case .cached: refreshes.1
                    case .stale: refreshes.2
                    case .placeholder: refreshes.3
                    // Not the result of a refresh: never counted.
                    case .refreshing: 0
                    }
                }
                set {
                    switch status {
                    case .fresh: refreshes.0 = newValue
                    case .cached: refreshes.1 = newValue
                    case .stale: refreshes.2 = newValue
                    case .placeholder: refreshes.3 = newValue
                    case .refreshing: break
                    }
                }
            }
        }

        /// The metric families of the notification outboxes: name, type, help, and the figure of a summary.
        static let notificationFamilies: [(String, String, String, @Sendable (NotificationSummary) -> Int)] = [
            ("widgetd_notifications_sent_total", "counter", "Notifications delivered (a 2xx answer).", { $0.sent }),
            (
                "widgetd_notifications_failed_total", "counter",
                "Notifications given up: not delivered within 24 hours.", { $0.failed }
            ),
            (
                "widgetd_notifications_dropped_total", "counter",
                "Notifications dropped unsent: the outbox was full, or their rule was removed.", { $0.dropped }
            ),
            ("widgetd_notifications_pending", "gauge", "Notifications waiting to be delivered.", { $0.pending }),
        ]

        /// Every widget's, by id: one table rather than one per metric.
        var widgets: [String: Widget] = [:]

        /// The upper bounds, in seconds, of the buckets of `widgetd_refresh_lateness_seconds` (and `+Inf`).
        static let latenessBounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]
        /// How many refreshes started within each bound of ``latenessBounds`` (not cumulative), then the
        /// ones later than the last.
        var latenessCounts = [Int](repeating: 0, count: latenessBounds.count + 1)
        /// The sum of every refresh's lateness, in seconds.
        var latenessSum = 0.0

        /// Counts a finished refresh of `widget` that took `seconds`.
        mutating func record(_ outcome: WidgetRefresher.Outcome, for widget: WidgetPipeline, seconds: Double, written: Written) {
            let id = widget.id
            var counters = widgets[id] ?? Widget()
            counters[outcome.snapshot.status] += 1
            counters.lastDuration = seconds
            if let error = outcome.error { counters.failures[error.metricsLabel, default: 0] += 1 }
            if let seconds = outcome.fetchSeconds { counters.fetchSeconds = seconds }
            if let bytes = outcome.fetchBytes { counters.fetchBytes = bytes }
            counters.budget = (outcome.state.budgetUsed, widget.definition.schedule.maxPerDay)
            if case .failed = written { counters.writeFailures += 1 }
            widgets[id] = counters
        }

        /// Counts a refresh that started `seconds` after its due time.
        mutating func recordLateness(_ seconds: Double) {
            let seconds = max(0, seconds)
            latenessCounts[Self.latenessBounds.firstIndex { seconds <= $0 } ?? Self.latenessBounds.count] += 1
            latenessSum += seconds
        }

        /// Counts a snapshot write that failed outside a refresh (a snapshot turning stale).
        mutating func recordWriteFailure(of id: String) {
            widgets[id, default: Widget()].writeFailures += 1
        }

        /// The Prometheus text exposition of the daemon's counters and gauges, with the outboxes of the
        /// widgets with `notify` rules (`notifications`, by id).
        func text(
            now: Date, snapshots: [String: SnapshotSummary], widgetCount: Int, notifications: [String: NotificationSummary] = [:]
        ) -> String {
            var text = ""
            text.reserveCapacity(256 * (snapshots.count + 1) * 4)
            func label(_ text: String) -> String {
                // Ids rarely hold either character: skip the two replacements, a thousand widgets × ten families.
                guard text.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") }) else { return text }
                return text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            }
            /// One metric family: its help and type lines, then a sample per (labels, value), in order.
            func family(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
                text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
                for sample in samples {
                    text += name
                    if !sample.labels.isEmpty { text += "{" + sample.labels + "}" }
                    text += " " + sample.value + "\n"
                }
            }
            func widget(_ id: String) -> String { "widget=\"\(label(id))\"" }
            /// Seconds to the microsecond, `0.012345` (String(format:) was a tenth of the whole text).
            func seconds(_ value: Double) -> String {
                guard value.isFinite, value >= 0, value < 1e9 else { return String(format: "%.6f", value) }
                let micro = Int((value * 1e6).rounded())
                let fraction = String(micro % 1_000_000)
                return "\(micro / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
            }
            // The statuses a refresh ends in (`refreshing` is the moment before).
            let statuses = Snapshot.Status.allCases.filter { $0 != .refreshing }
            let sorted = widgets.sorted { $0.key < $1.key }.map { (id: $0.key, counters: $0.value) }
            let refreshed = sorted.filter { $0.counters.lastDuration != nil }
            family(
                "widgetd_refreshes_total", "counter", "Refreshes run since the daemon started, by resulting status.",
                refreshed.flatMap { id, counters in
                    statuses.map { ("\(widget(id)),status=\"\($0.rawValue)\"", "\(counters[$0])") }
                })
            family(
                "widgetd_widget_status", "gauge", "Current status of each widget (1 for the current status).",
                snapshots.keys.sorted().flatMap { id in
                    statuses.map { ("\(widget(id)),status=\"\($0.rawValue)\"", snapshots[id]?.status == $0 ? "1" : "0") }
                })
            family(
                "widgetd_last_success_timestamp_seconds", "gauge", "When each widget last refreshed successfully.",
                snapshots.keys.sorted().compactMap { id in
                    snapshots[id]?.lastSuccessAt.map { (widget(id), "\(Int($0.timeIntervalSince1970))") }
                })
            family(
                "widgetd_refresh_duration_seconds", "gauge", "How long each widget's last refresh took.",
                refreshed.map { (widget($0.id), seconds($0.counters.lastDuration!)) })
            family(
                "widgetd_refresh_failures_total", "counter", "Failed refreshes since the daemon started, by failing stage.",
                sorted.flatMap { id, counters in
                    counters.failures.keys.sorted().map { ("\(widget(id)),stage=\"\($0)\"", "\(counters.failures[$0]!)") }
                })
            family(
                "widgetd_write_failures_total", "counter", "Snapshot or state writes that failed since the daemon started.",
                sorted.filter { $0.counters.writeFailures > 0 }.map { (widget($0.id), "\($0.counters.writeFailures)") })
            family(
                "widgetd_fetch_duration_seconds", "gauge", "Time spent fetching in each widget's last successful refresh.",
                sorted.compactMap { id, counters in counters.fetchSeconds.map { (widget(id), seconds($0)) } })
            family(
                "widgetd_fetch_bytes", "gauge", "Bytes fetched in each widget's last successful refresh.",
                sorted.compactMap { id, counters in counters.fetchBytes.map { (widget(id), "\($0)") } })
            family(
                "widgetd_budget_used", "gauge", "Refreshes used today, in the widget's zone.",
                sorted.compactMap { id, counters in counters.budget.map { (widget(id), "\($0.used)") } })
            family(
                "widgetd_budget_limit", "gauge", "The most refreshes a day (maxPerDay), for widgets that set it.",
                sorted.compactMap { id, counters in counters.budget?.limit.map { (widget(id), "\($0)") } })
            family(
                "widgetd_snapshot_age_seconds", "gauge", "Age of the data each widget serves.",
                snapshots.keys.sorted().compactMap { id in
                    snapshots[id]?.lastSuccessAt.map { (widget(id), "\(max(0, Int(now.timeIntervalSince($0))))") }
                })
            // Only when a widget has rules: a daemon that notifies nobody has no such families.
            let outboxes = notifications.sorted { $0.key < $1.key }
            for (name, type, help, count) in outboxes.isEmpty ? [] : Self.notificationFamilies {
                family(name, type, help, outboxes.map { (widget($0.key), "\(count($0.value))") })
            }
            if !outboxes.isEmpty {
                family(
                    "widgetd_notifications_failing_since_seconds", "gauge",
                    "Since when each widget's notifications fail to be delivered (Unix time), for failing widgets only.",
                    outboxes.compactMap { id, summary in summary.failingSince.map { (widget(id), "\(Int($0.timeIntervalSince1970))") } })
            }
            text += "# HELP widgetd_refresh_lateness_seconds How long after its due time each refresh started.\n"
            text += "# TYPE widgetd_refresh_lateness_seconds histogram\n"
            var cumulative = 0
            for (bound, count) in zip(Self.latenessBounds.map { "\($0)" } + ["+Inf"], latenessCounts) {
                cumulative += count
                text += "widgetd_refresh_lateness_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
            }
            text += "widgetd_refresh_lateness_seconds_sum \(seconds(latenessSum))\n"
            text += "widgetd_refresh_lateness_seconds_count \(cumulative)\n"
            family("widgetd_widgets", "gauge", "Widgets loaded.", [("", "\(widgetCount)")])
            return text
        }
    }
}
