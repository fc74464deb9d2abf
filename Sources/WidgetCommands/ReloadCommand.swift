import Foundation
import WidgetCore
import WidgetJSON
import WidgetRuntime

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `widgetd reload ID --out DIR`: asks the running daemon to refresh a widget now.
public struct ReloadCommand: WidgetCommand {
    public static let name = "reload"
    public static let summary = "Ask the running daemon to refresh a widget now (counted in its daily budget)."
    public static let help = """
        Usage: widgetd reload ID [--out DIR | --out s3://BUCKET/PREFIX [--work DIR]]

        Leaves a request in DIR/.state/requests and signals the daemon writing to DIR (SIGUSR1).
        Requests for the same widget made before the daemon gets to them, or within a second after
        it started a refresh asked for this way, are merged into one refresh, which counts against the
        widget's daily budget.

        Options:
          --out DIR   the daemon's output folder; without it $WIDGETD_OUT, else $STATE_DIRECTORY
                      (systemd), else out
          --work DIR  a bucket daemon's working folder, where its requests go; without it
                      $WIDGETD_WORK, else $STATE_DIRECTORY, else .widgetd-work

        Exit code 1 when no daemon is running for DIR, or it runs no widget ID (the message suggests
        the closest id it runs).
        """

    /// The id of the widget to refresh, the positional argument; checked to be a valid id.
    public var id: String
    /// `--out`: the output folder (or bucket) of the daemon to ask.
    public var out: String
    /// `--out` with a bucket's `--work`: the requests go to ``OutputOption/localFolder``.
    public var output: OutputOption

    public init(arguments: inout Arguments) throws(UsageError) {
        output = try OutputOption(arguments: &arguments)
        out = output.out
        guard let id = arguments.positional() else { throw UsageError("reload needs the id of a widget") }
        guard DefinitionReader.isValidID(id) else { throw UsageError("'\(id)' is not a widget id") }
        self.id = id
    }

    public func run(_ environment: CommandEnvironment) async -> Int32 {
        let store = SnapshotStore(directory: URL(fileURLWithPath: output.localFolder, isDirectory: true))
        guard let pid = DaemonLock.runningDaemon(store: store) else {
            environment.printError("Error: no widgetd is running for \(out); start one with 'widgetd run --out \(out)'")
            return 1
        }
        // The widgets the daemon runs have a snapshot in OUT (each has one after the first wave).
        let known = store.snapshotIDs()
        guard known.contains(id) else {
            let hint = Suggestion.hint(for: id, among: known).map { "; \($0)" } ?? ""
            let list = known.isEmpty ? "none yet" : known.joined(separator: ", ")
            environment.printError("Error: the daemon writing to \(out) runs no widget '\(id)'\(hint) (it runs: \(list))")
            return 1
        }
        let folder = store.stateDirectory.appendingPathComponent("requests", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try AtomicFile.write(Data(), to: folder.appendingPathComponent(id))
        } catch {
            environment.printError("Error: \(error)")
            return 1
        }
        guard kill(pid, SIGUSR1) == 0 else {
            environment.printError("Error: cannot signal widgetd (pid \(pid)): \(String(cString: strerror(errno)))")
            return 1
        }
        environment.print("asked widgetd (pid \(pid)) to refresh \(id)")
        return 0
    }
}
