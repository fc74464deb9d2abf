import Foundation
import Testing
import WidgetTestSupport

/// `Examples/systemd/README.md`'s install steps, followed into a temporary root by `.ci/systemd-install`:
/// the definitions folder is copied whole, so the shipped widgets find their `data/` and `views/`.
@Suite(.timeLimit(.minutes(2)))
struct SystemdInstallTests {
    @Test func theInstallStepsGiveDefinitionsThatValidate() async throws {
        let result = try await Widgetd.run(
            program: URL(fileURLWithPath: "/bin/bash"), [".ci/systemd-install", try Widgetd.executable().path])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("/etc/widgetd/data/quotes.json"))
        #expect(result.stdout.contains("/etc/widgetd/views/quote.liquid"))
        #expect((result.stdout + result.stderr).contains("2 widgets valid, 0 problems"))
    }

    @Test func theStepsCopyTheWholeDefinitionsFolder() throws {
        let readme = try String(
            contentsOf: Widgetd.packageRoot.appendingPathComponent("Examples/systemd/README.md"), encoding: .utf8)
        #expect(readme.contains("cp -R widgets.d/. /etc/widgetd/"))
        #expect(!readme.contains("widgets.d/*.json"))
    }
}
