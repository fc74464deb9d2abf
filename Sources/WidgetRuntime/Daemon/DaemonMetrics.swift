import Foundation
import WidgetCore

extension WidgetDaemon {
    /// The daemon's counters and gauges since it started, written as Prometheus text to
    /// `OUT/widgetd.prom`.
    struct DaemonMetrics {
        var refreshCounts: [String: [Snapshot.Status: Int]] = [:]
        var lastDurations: [String: Double] = [:]
        /// Failed refreshes by widget and failing stage (`source`, `parser`, …, `schedule`, `deadline`).
        var failures: [String: [String: Int]] = [:]
        /// Snapshot or state writes that failed, by widget.
        var writeFailures: [String: Int] = [:]
        var fetchSeconds: [String: Double] = [:]
        var fetchBytes: [String: Int] = [:]
        var budgets: [String: (used: Int, limit: Int)] = [:]

        /// Counts a finished refresh of `widget` that took `seconds`.
        mutating func record(_ outcome: WidgetRefresher.Outcome, for widget: WidgetPipeline, seconds: Double, written: Written) {
            let id = widget.id
            refreshCounts[id, default: [:]][outcome.snapshot.status, default: 0] += 1
            lastDurations[id] = seconds
            if let error = outcome.error {
                let stage =
                    switch error.stage {
                    case .budget: "schedule"
                    case .deadline: "deadline"
                    default: error.kind.rawValue
                    }
                failures[id, default: [:]][stage, default: 0] += 1
            }
            if let seconds = outcome.fetchSeconds { fetchSeconds[id] = seconds }
            if let bytes = outcome.fetchBytes { fetchBytes[id] = bytes }
            budgets[id] = (outcome.state.budgetUsed, widget.definition.schedule.maxPerDay)
            if case .failed = written { writeFailures[id, default: 0] += 1 }
        }

        /// The Prometheus text exposition of the daemon's counters and gauges.
        func text(now: Date, snapshots: [String: Snapshot], widgetCount: Int) -> String {
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
            let statuses = Snapshot.Status.allCases
            family(
                "widgetd_refreshes_total", "counter", "Refreshes run since the daemon started, by resulting status.",
                refreshCounts.keys.sorted().flatMap { id in
                    statuses.map { ("\(widget(id)),status=\"\($0.rawValue)\"", "\(refreshCounts[id]?[$0] ?? 0)") }
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
                lastDurations.keys.sorted().map { (widget($0), seconds(lastDurations[$0]!)) })
            family(
                "widgetd_refresh_failures_total", "counter", "Failed refreshes since the daemon started, by failing stage.",
                failures.keys.sorted().flatMap { id in
                    failures[id]!.keys.sorted().map { ("\(widget(id)),stage=\"\($0)\"", "\(failures[id]![$0]!)") }
                })
            family(
                "widgetd_write_failures_total", "counter", "Snapshot or state writes that failed since the daemon started.",
                writeFailures.keys.sorted().map { (widget($0), "\(writeFailures[$0]!)") })
            family(
                "widgetd_fetch_duration_seconds", "gauge", "Time spent fetching in each widget's last successful refresh.",
                fetchSeconds.keys.sorted().map { (widget($0), seconds(fetchSeconds[$0]!)) })
            family(
                "widgetd_fetch_bytes", "gauge", "Bytes fetched in each widget's last successful refresh.",
                fetchBytes.keys.sorted().map { (widget($0), "\(fetchBytes[$0]!)") })
            family(
                "widgetd_budget_used", "gauge", "Refreshes used today, in the widget's zone.",
                budgets.keys.sorted().map { (widget($0), "\(budgets[$0]!.used)") })
            family(
                "widgetd_budget_limit", "gauge", "The most refreshes a day (maxPerDay).",
                budgets.keys.sorted().map { (widget($0), "\(budgets[$0]!.limit)") })
            family(
                "widgetd_snapshot_age_seconds", "gauge", "Age of the data each widget serves.",
                snapshots.keys.sorted().compactMap { id in
                    snapshots[id]?.lastSuccessAt.map { (widget(id), "\(max(0, Int(now.timeIntervalSince($0))))") }
                })
            family("widgetd_widgets", "gauge", "Widgets loaded.", [("", "\(widgetCount)")])
            return text
        }
    }
}
