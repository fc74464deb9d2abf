public import Foundation
import WidgetCore
import WidgetLiquid
import WidgetRuntime

/// `widgetd next ID [--count N] [--from DATE]`: the next refresh times.
public struct NextCommand: WidgetCommand {
    public static let name = "next"
    public static let summary = "Print a widget's next refresh times, in its time zone and in UTC."
    public static let help = """
        Usage: widgetd next ID [--config DIR] [--count N] [--from DATE]

        Prints the next N times widget ID's schedule fires (jitter included), each in the widget's
        time zone and in UTC, like 'systemd-analyze calendar --iterations'.

        Options:
          --config DIR   the folder of widget definitions; without it $WIDGETD_CONFIG, else
                         $CONFIGURATION_DIRECTORY (systemd), else widgets.d
          --secrets DIR  the folder {{ secret.NAME }} reads the file NAME from; without it
                         $CREDENTIALS_DIRECTORY (systemd's LoadCredential=)
          --count N      how many times to print (default: 5, at most 1000)
          --from DATE    start after this ISO 8601 moment, e.g. 2026-03-08T00:00:00Z (default: now)
        """

    /// The widget's id, the positional argument.
    public var id: String
    /// `--config`: the folder of widget definitions.
    public var config: String
    /// `--secrets`.
    public var secrets: SecretsOption
    /// `--count`: how many refresh times to print, from 1 to 1000; 5 by default.
    public var count: Int
    /// `--from`: the moment to start after; nil for the clock's now.
    public var from: Date?

    public init(arguments: inout Arguments) throws(UsageError) {
        config = try arguments.configFolder().path
        secrets = try SecretsOption(arguments: &arguments)
        let countText = try arguments.option("--count") ?? "5"
        guard let count = Int(countText), (1...1000).contains(count) else {
            throw UsageError("--count takes a whole number from 1 to 1000, not '\(countText)'")
        }
        self.count = count
        if let text = try arguments.option("--from") {
            guard let date = Timestamp.date(text) else {
                throw UsageError("--from takes an ISO 8601 moment such as 2026-03-08T00:00:00Z, not '\(text)'")
            }
            from = date
        }
        guard let id = arguments.positional() else { throw UsageError("next needs the id of a widget") }
        self.id = id
    }

    public func run(_ environment: CommandEnvironment) async -> Int32 {
        guard let environment = secrets.apply(to: environment) else { return 2 }
        let result = DefinitionDirectory(path: config).load(reader: environment.reader)
        guard let widget = result.widgets.first(where: { $0.id == id }) else {
            return WidgetLookup.reportMissing(id, in: result, config: config, environment: environment)
        }
        let definition = widget.definition
        let zone = definition.timeZone
        var lines = ["\(id): \(definition.schedule.summary) (\(zone.identifier))"]
        let times = definition.refreshPolicy.upcoming(after: from ?? environment.clock.now(), count: count)
        if times.isEmpty {
            lines.append("  no scheduled refresh: \(definition.schedule.summary) runs only at start-up when stale and on 'widgetd reload'")
        }
        for due in times {
            lines.append("  \(NextCommand.local(due, zone))  \(Timestamp.string(due))")
        }
        environment.print(lines.joined(separator: "\n"))
        return 0
    }

    /// `Sun 2026-03-08 03:30:00 EDT`.
    static func local(_ date: Date, _ zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        let weekday = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][parts.weekday! - 1]
        let abbreviation = NextCommand.zoneName(zone, at: date)
        return String(
            format: "%@ %04d-%02d-%02d %02d:%02d:%02d %@", weekday, parts.year!, parts.month!, parts.day!,
            parts.hour!, parts.minute!, parts.second!, abbreviation
        )
    }

    /// `EDT`, `CET`, `UTC`, as the templates' `%Z` writes them.
    static func zoneName(_ zone: TimeZone, at date: Date) -> String {
        if ["UTC", "Etc/UTC", "Z"].contains(zone.identifier) { return "UTC" }
        return zone.shortName(at: date) ?? zone.abbreviation(for: date) ?? zone.identifier
    }
}
