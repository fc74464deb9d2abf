import Foundation

/// The gallery page as a person sees it: headless Chromium loads a copy of the page, lets its script run
/// (which picks the family, the entry current at the page's clock and the relative times), and reads
/// each card's `innerText`, so that what is hidden (another family's view, another entry, a closed
/// `<details>`) is not in it.
///
/// Away from CI a test that needs the browser is skipped when none is installed; under `CI=true` it runs
/// and fails, as CI installs `chromium`:
///
/// ```swift
/// @Test(.enabled(if: GalleryBrowser.isAvailable, "needs chromium"))
/// func theJokeShowsItsSetupOnly() async throws {
///     let texts = try await GalleryBrowser.visibleTexts(page, family: "small", now: "2026-11-22T16:05:00Z")
///     #expect(texts["joke-of-the-day"]?.contains("Because they make up everything!") == false)
/// }
/// ```
enum GalleryBrowser {
    /// The names a Chromium is installed under; the first found on `PATH` wins.
    static let names = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]

    /// The browser's executable, when one is installed.
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

    /// Whether the tests that need the browser run: when chromium is installed, and always under
    /// `CI=true` (where a missing browser then fails them rather than skipping them).
    static var isAvailable: Bool {
        let ci = ProcessInfo.processInfo.environment["CI"]?.lowercased()
        return executable != nil || ci == "true" || ci == "1"
    }

    /// The id of the element the reading script writes its JSON into.
    static let outputID = "widgetd-visible-texts"

    /// What a person sees in each card of the gallery page `page` (a file URL of `index.html`) at `family`,
    /// at the clock `now` (ISO 8601), light or dark: the card's `innerText` after the page's script ran,
    /// by widget id. Closed `<details>` content and hidden parts are not in it.
    ///
    /// The page is copied beside itself (so that its `assets/` still load) without its
    /// Content-Security-Policy, with a script that writes the texts as JSON into the page once it has
    /// loaded; Chromium's virtual time runs the page's timers without waiting.
    ///
    /// - Throws: when chromium is missing, fails, or the page wrote no texts.
    static func visibleTexts(_ page: URL, family: String, now: String, dark: Bool = false) async throws -> [String: String] {
        let html = try String(contentsOf: page, encoding: .utf8)
        let copy = page.deletingLastPathComponent().appendingPathComponent(".visible-\(UUID().uuidString).html")
        try Data(reading(html).utf8).write(to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        var address = URLComponents(url: copy, resolvingAgainstBaseURL: false)!
        address.queryItems = [URLQueryItem(name: "family", value: family), URLQueryItem(name: "now", value: now)]
        let arguments = ["--virtual-time-budget=5000", "--window-size=1280,2000", "--dump-dom"] + (dark ? ["--force-dark-mode"] : [])
        let dom = try await run(arguments + [address.url!.absoluteString])
        guard let element = dom.range(of: "<pre id=\"\(outputID)\""),
            let start = dom.range(of: ">", range: element.upperBound..<dom.endIndex),
            let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex)
        else {
            throw BrowserError(description: "the page \(page.lastPathComponent) wrote no texts; chromium printed: \(dom.prefix(500))")
        }
        // The script wrote ASCII JSON with `<`, `>` and `&` as `\u` escapes: the DOM serialised it unchanged.
        let json = Data(dom[start.upperBound..<end.lowerBound].utf8)
        return try JSONDecoder().decode([String: String].self, from: json)
    }

    /// `html` without its Content-Security-Policy, with the reading script before `</body>`.
    static func reading(_ html: String) -> String {
        var html = html
        if let start = html.range(of: "<meta http-equiv=\"Content-Security-Policy\""),
            let end = html.range(of: ">", range: start.upperBound..<html.endIndex)
        {
            html.removeSubrange(start.lowerBound..<end.upperBound)
        }
        let script = """
            <script>
            window.addEventListener('load', () => setTimeout(() => {
              const texts = {};
              for (const card of document.querySelectorAll('.card[data-id]')) texts[card.dataset.id] = card.innerText;
              const json = JSON.stringify(texts).replace(/[\\u007f-\\uffff<>&]/g, (c) => '\\\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
              const output = document.createElement('pre');
              output.id = '\(outputID)';
              output.hidden = true;
              output.textContent = json;
              document.body.appendChild(output);
            }, 100));
            </script>
            """
        guard let body = html.range(of: "</body>", options: .backwards) else { return html + script }
        html.insert(contentsOf: script + "\n", at: body.lowerBound)
        return html
    }

    /// Runs the browser headless with `arguments`; returns what it printed on standard output.
    static func run(_ arguments: [String]) async throws -> String {
        guard let executable else {
            throw BrowserError(description: "chromium is not installed; install it with 'apt-get install chromium'")
        }
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-profile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: profile) }
        let output = profile.appendingPathComponent("stdout")
        let errors = profile.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking", "--disable-sync", "--mute-audio", "--hide-scrollbars",
                "--user-data-dir=\(profile.path)",
            ] + arguments
        // HOME too: the browser writes its caches and crash reports there.
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = profile.path
        process.environment = environment
        process.currentDirectoryURL = profile
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        guard status == 0 else {
            let message = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw BrowserError(description: "chromium exited with \(status): \(message.suffix(2_000))")
        }
        return try String(contentsOf: output, encoding: .utf8)
    }

    /// What went wrong running the browser.
    struct BrowserError: Error, CustomStringConvertible {
        let description: String
    }
}
