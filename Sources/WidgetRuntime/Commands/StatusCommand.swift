import Foundation
import WidgetCore

/// `widgetd status --out DIR`: how every widget is doing.
public struct StatusCommand: WidgetCommand {
    public static let name = "status"
    public static let summary = "Show each widget's status, age, last error, next refresh and budget used today."
    public static let help = """
        Usage: widgetd status [--out DIR]

        Reads the snapshots and state in DIR and prints one line per widget: status, age of the data,
        next refresh, refreshes used today against the daily budget, and the last error; then the
        problems of the definitions as the daemon last loaded them.

        Options:
          --out DIR   the daemon's output folder; without it $WIDGETD_OUT, else $STATE_DIRECTORY
                      (systemd), else out

        Exit code 1 when a widget is not fresh or a definition has a problem.
        """

    public var out: String

    public init(arguments: inout Arguments) throws(UsageError) {
        out = try arguments.outputFolder().path
    }

    public func run(_ environment: CommandEnvironment) async -> Int32 {
        let store = SnapshotStore(directory: URL(fileURLWithPath: out, isDirectory: true))
        let ids = store.snapshotIDs()
        guard !ids.isEmpty else {
            environment.printError("Error: no snapshots in \(out); run 'widgetd run --config DIR --out \(out)' first")
            return 1
        }
        let now = environment.clock.now()
        var rows = [["ID", "STATUS", "AGE", "NEXT REFRESH", "TODAY", "LAST ERROR"]]
        var allFresh = true
        for id in ids {
            guard let snapshot = store.snapshot(for: id) else { continue }
            let state = store.state(for: id)
            allFresh = allFresh && snapshot.status == .fresh
            let age = snapshot.lastSuccessAt.map { StatusCommand.age(now.timeIntervalSince($0)) } ?? "-"
            let today = state.budgetDay == nil ? "0" : "\(state.budgetUsed)"
            rows.append([
                id, snapshot.status.rawValue, age, snapshot.nextRefreshAt.map(Timestamp.string) ?? "-", today,
                snapshot.error ?? "-",
            ])
        }
        environment.print(ListCommand.table(rows))
        let problems = store.definitionProblems()
        if !problems.isEmpty {
            environment.print("\nDefinition problems (the widgets they belong to keep running their last valid definition):")
            for problem in problems { environment.print("  \(problem)") }
        }
        return allFresh && problems.isEmpty ? 0 : 1
    }

    /// `42s`, `5m`, `3h10m`, `2d4h`.
    static func age(_ seconds: TimeInterval) -> String {
        let total = max(0, Int(seconds))
        switch total {
        case ..<60: return "\(total)s"
        case ..<3_600: return "\(total / 60)m"
        case ..<86_400: return "\(total / 3_600)h\(total % 3_600 / 60)m"
        default: return "\(total / 86_400)d\(total % 86_400 / 3_600)h"
        }
    }
}
