import WidgetCore
import WidgetStages

extension CommandEnvironment {
    /// This environment with the `HostLimits` of the definitions in `folder`: a server's `Retry-After`
    /// holds back every widget on its host, and `hosts.settings` there sets each host's rate. An
    /// environment that has limits already keeps them.
    ///
    /// Prints each problem of `hosts.settings` (file, line and column, key path and fix) and returns `nil`
    /// when it has any.
    func limitingHosts(folder: String) -> CommandEnvironment? {
        guard resources[HostLimits.self] == nil else { return self }
        let settings: HostSettings
        do {
            settings = try HostSettings.load(folder: folder)
        } catch {
            for diagnostic in error.diagnostics { printError("\(diagnostic)") }
            return nil
        }
        var copy = self
        copy.resources.insert(HostLimits(clock: clock, settings: settings))
        return copy
    }
}
