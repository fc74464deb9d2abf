import Foundation
import WidgetTestSupport
import WidgetTesting

/// Debian's `chromium`, run headless: loads a page, lets its scripts run for a budget of virtual time,
/// and returns the DOM as it then is (`--dump-dom`), or writes a screenshot.
///
/// Away from CI a test that needs it is skipped when no browser is installed; under `CI=true` it runs and
/// fails, as `.ci/run` installs `chromium` (see ``ExternalOracle``).
enum HeadlessChromium {
    /// The names a Chromium is installed under, first found on `PATH` wins.
    static let names = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]

    /// The browser's executable, if one is installed.
    static let executable: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in names {
            for folder in path.split(separator: ":") {
                let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            }
        }
        return nil
    }()

    /// The oracle tests are enabled by.
    static let oracle = ExternalOracle(name: "chromium (apt-get install chromium)", isAvailable: executable != nil)

    /// The DOM of `url` after its scripts ran for `budget` milliseconds of virtual time, as HTML.
    ///
    /// - Parameter colorScheme: `dark` to have the page see `prefers-color-scheme: dark`.
    static func dom(of url: URL, budget: Int = 5_000) async throws -> String {
        let output = try await run(["--virtual-time-budget=\(budget)", "--dump-dom", url.absoluteString])
        guard output.contains("<html") else {
            throw ToolError(description: "chromium printed no DOM for \(url.absoluteString): \(output.prefix(500))")
        }
        return output
    }

    /// A browser run still going after this many seconds hangs: it is killed (and tried once more).
    static let hangSeconds: Double = 240

    /// Runs the browser headless with `arguments`; returns what it printed on standard output.
    static func run(_ arguments: [String]) async throws -> String {
        guard let executable else {
            throw ToolError(description: "chromium is not installed; install it with 'apt-get install chromium'")
        }
        let profile = try TemporaryFolder("chromium-profile")
        let common = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--disable-background-networking", "--disable-sync",
            "--metrics-recording-only", "--mute-audio", "--user-data-dir=\(profile.path)",
        ]
        // HOME too: the browser writes its caches and crash reports there. A browser that hangs (seen
        // once on a loaded machine, a screenshot that never ended) is killed and started once more.
        let output: Widgetd.Output
        do {
            output = try await Widgetd.run(
                program: executable, common + arguments, in: profile.url, variables: ["HOME": profile.path], timeout: hangSeconds)
        } catch is ToolError {
            let again = try TemporaryFolder("chromium-profile")
            output = try await Widgetd.run(
                program: executable,
                common.map { $0 == "--user-data-dir=\(profile.path)" ? "--user-data-dir=\(again.path)" : $0 } + arguments,
                in: again.url, variables: ["HOME": again.path], timeout: hangSeconds)
        }
        guard output.status == 0 else {
            throw ToolError(description: "chromium exited with \(output.status): \(output.stderr.suffix(2_000))")
        }
        return output.stdout
    }
}
