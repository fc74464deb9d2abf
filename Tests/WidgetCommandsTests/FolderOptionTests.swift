import Foundation
import Testing
import WidgetCommands
import WidgetRuntime
import WidgetTestSupport

/// Where the definitions and the output go when no option says: `WIDGETD_CONFIG`/`WIDGETD_OUT`, then
/// the folders systemd gives a service, then `widgets.d` and `out`.
struct FolderOptionTests {
    @Test func optionsWinOverVariablesWhichWinOverSystemdsFolders() throws {
        let systemd = ["CONFIGURATION_DIRECTORY": "/etc/widgetd:/etc/other", "STATE_DIRECTORY": "/var/lib/widgetd"]
        var plain = Arguments([], variables: [:])
        #expect(try plain.configFolder() == ("widgets.d", "the default"))
        #expect(try plain.outputFolder() == ("out", "the default"))

        var service = Arguments([], variables: systemd)
        #expect(try service.configFolder() == ("/etc/widgetd", "$CONFIGURATION_DIRECTORY"))
        #expect(try service.outputFolder() == ("/var/lib/widgetd", "$STATE_DIRECTORY"))

        let named = systemd.merging(["WIDGETD_CONFIG": "/srv/defs", "WIDGETD_OUT": "/srv/out"]) { $1 }
        var variables = Arguments([], variables: named)
        #expect(try variables.configFolder() == ("/srv/defs", "$WIDGETD_CONFIG"))
        #expect(try variables.outputFolder() == ("/srv/out", "$WIDGETD_OUT"))

        var options = Arguments(["--config", "mine", "--out=there"], variables: named)
        #expect(try options.configFolder() == ("mine", "--config"))
        #expect(try options.outputFolder() == ("there", "--out"))
        try options.finish()
    }

    @Test func runTakesItsFoldersFromTheEnvironment() throws {
        var arguments = Arguments(["--once"], variables: ["WIDGETD_CONFIG": "/srv/defs", "STATE_DIRECTORY": "/var/lib/widgetd"])
        let command = try RunCommand(arguments: &arguments)
        #expect(command.config == "/srv/defs")
        #expect(command.configOrigin == "$WIDGETD_CONFIG")
        #expect(command.out == "/var/lib/widgetd")
    }

    @Test func aMissingDefinitionsFolderIsAUsageErrorNamingWhereItCameFrom() async throws {
        let folder = try TemporaryFolder()
        let daemon = try await Widgetd.run(["run", "--out", "out"], in: folder.url, variables: ["WIDGETD_CONFIG": "nowhere"])
        #expect(daemon.status == 2)
        #expect(
            daemon.stderrLines == [
                "Error: the definitions folder nowhere (from $WIDGETD_CONFIG) does not exist; create it or pass --config DIR."
            ])
        let once = try await Widgetd.run(["run", "--config", "gone", "--once"], in: folder.url)
        #expect(once.status == 2)
        #expect(once.stderrLines == ["Error: the definitions folder gone (from --config) does not exist; create it or pass --config DIR."])
        try folder.write("file", "")
        let file = try await Widgetd.run(["run", "--config", "file", "--once"], in: folder.url)
        #expect(file.status == 2)
        #expect(file.stderrLines == ["Error: the definitions folder file (from --config) is a file, not a folder; pass --config DIR."])
        // Nothing was started, so nothing was written.
        #expect(folder.names() == ["file"])
    }
}
