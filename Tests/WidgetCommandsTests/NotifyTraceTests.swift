import Foundation
import Synchronization
import Testing
import WidgetCommands
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages
import WidgetTestSupport
import WidgetTesting

/// `widgetd preview ID --trace` for a widget with `notify` rules, run in this process: what each rule
/// would decide and why, compared with the outbox saved in the output folder (or with nothing), and what
/// a rule that fires would send, its secrets masked. Nothing is sent or saved.
struct NotifyTraceTests {
    /// 2026-11-29T08:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_795_939_200)
    static let token = "tk_s3cr3t/42"

    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
        try folder.write("widgets.d/d.json", #"{"price": 5}"#)
        try folder.write(
            "widgets.d/prices.json",
            #"""
            {"title": "Prices", "timeZone": "UTC", "source": {"path": "d.json"},
             "notify": [
              {"name": "down", "on": "status", "to": ["stale", "fresh"],
               "webhook": {"url": "https://ntfy.example/prices", "headers": {"Authorization": "Bearer {{ env.NTFY_TOKEN }}", "Title": "{{ widget.title }}"},
                           "body": "{{ widget.title }} is {{ status }}"}},
              {"name": "price", "on": "change", "path": "$.price",
               "webhook": {"url": "https://hooks.example/{{ env.NTFY_TOKEN | url_encode }}", "body": {"text": "{{ change.reason }}", "price": "{{ value.price }}"}}},
              {"name": "cheap", "on": "condition", "if": "value.price < 10", "webhook": {"url": "https://x.example", "body": "cheap: {{ value.price }}"}}
             ]}
            """#)
    }

    /// Runs `widgetd ARGUMENTS` in this process; returns the exit status and standard output.
    func widgetd(_ arguments: [String]) async -> (status: Int32, stdout: String) {
        let output = Mutex<[String]>([])
        let environment = CommandEnvironment(
            registry: .builtIn, clock: ManualClock(now: Self.now), secrets: SecretStore(environment: ["NTFY_TOKEN": Self.token]),
            variables: [:], print: { line in output.withLock { $0.append(line) } }, printError: { _ in })
        let status = await WidgetCommandLine.main(arguments, environment: environment)
        return (status, output.withLock { $0.joined(separator: "\n") })
    }

    private var arguments: [String] {
        ["preview", "prices", "--config", folder.file("widgets.d").path, "--trace", "--out", folder.file("out").path]
    }

    /// The lines of the text trace from `notify` to the line before the snapshot's summary.
    private func notifyLines(_ text: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("notify  ") }) else { return [] }
        return Array(lines[start...].prefix { !$0.isEmpty })
    }

    @Test func withoutASavedOutboxEveryRuleObservesForTheFirstTime() async throws {
        let (status, text) = await widgetd(arguments)
        #expect(status == 0)
        let lines = notifyLines(text)
        try #require(lines.count == 8, "\(text)")
        #expect(lines[0] == "notify  nothing saved in \(folder.file("out").path) for this widget: every rule observes for the first time")
        #expect(lines[1] == "  down (status)  does not fire: first observation: recorded the status fresh")
        #expect(lines[2] == "  price (change $.price)  does not fire: first observation: recorded $.price = 5")
        #expect(lines[3] == "  cheap (condition value.price < 10)  fires: condition is true (first evaluation)")
        #expect(lines[4] == "    POST https://x.example")
        #expect(lines[5] == "    Content-Type: text/plain; charset=utf-8")
        #expect(lines[6].hasPrefix("    Idempotency-Key: "))
        #expect(lines[7] == "    body: cheap: 5")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out/.state/notify/prices.json").path))
    }

    @Test func aSavedOutboxIsComparedWithAndNotChangedAndSecretsAreMasked() async throws {
        // What a daemon saw: the widget stale at 7.
        let secrets = SecretStore(environment: ["NTFY_TOKEN": Self.token])
        let reader = DefinitionReader(registry: .builtIn, defaultTimeZone: TimeZone(identifier: "UTC")!, environment: secrets)
        let definitionFile = folder.file("widgets.d/prices.json")
        let read = reader.read(try Data(contentsOf: definitionFile), file: definitionFile.path)
        let definition = try #require(read.widgets.first).definition
        let output = FolderOutput(folder: folder.file("out"))
        let seen = Snapshot(
            id: "prices", title: "Prices", status: .stale, generatedAt: Self.now.addingTimeInterval(-3600), lastSuccessAt: nil,
            nextRefreshAt: nil, entries: [TimelineEntry(date: Self.now.addingTimeInterval(-7200), content: ["price": 7])], error: "late")
        try NotificationOutboxes(output: output).observe(
            seen, definition: definition, history: [:], now: Self.now.addingTimeInterval(-3600))
        let key = NotificationOutboxes.key(for: "prices")
        let saved = try #require(output.read(key))

        let (status, text) = await widgetd(arguments)
        #expect(status == 0)
        let lines = notifyLines(text)
        try #require(lines.count == 14, "\(text)")
        #expect(lines[0] == "notify  compared with what \(folder.file("out").path)/.state/notify/prices.json last saw")
        #expect(lines[1] == "  down (status)  fires: status stale → fresh")
        #expect(lines[2] == "    POST https://ntfy.example/prices")
        #expect(lines[3] == "    Content-Type: text/plain; charset=utf-8")
        #expect(lines[4] == "    Authorization: Bearer ***")
        #expect(lines[5] == "    Title: Prices")
        #expect(lines[6].hasPrefix("    Idempotency-Key: "))
        #expect(lines[7] == "    body: Prices is fresh")
        #expect(lines[8] == "  price (change $.price)  fires: $.price changed 7 → 5")
        #expect(lines[9] == "    POST https://hooks.example/***")
        #expect(lines[10] == "    Content-Type: application/json")
        #expect(lines[12] == #"    body: {"text":"$.price changed 7 → 5","price":5}"#)
        // True at 7 already: still true is no edge.
        #expect(lines[13] == "  cheap (condition value.price < 10)  does not fire: condition is still true")
        #expect(!text.contains(Self.token))
        #expect(!text.contains("tk_s3cr3t"))
        // Nothing saved: the daemon's next refresh still sees the change.
        #expect(output.read(key) == saved)
    }

    @Test func theJSONTraceHoldsTheRulesAndTheirMaskedRequests() async throws {
        let secrets = SecretStore(environment: ["NTFY_TOKEN": Self.token])
        let reader = DefinitionReader(registry: .builtIn, defaultTimeZone: TimeZone(identifier: "UTC")!, environment: secrets)
        let read = reader.read(try Data(contentsOf: folder.file("widgets.d/prices.json")), file: "prices.json")
        let definition = try #require(read.widgets.first).definition
        let fresh = Snapshot(
            id: "prices", title: "Prices", status: .fresh, generatedAt: Self.now, lastSuccessAt: Self.now, nextRefreshAt: nil,
            entries: [TimelineEntry(date: Self.now, content: ["price": 50])], error: nil)
        try NotificationOutboxes(output: FolderOutput(folder: folder.file("out"))).observe(
            fresh, definition: definition, history: [:], now: Self.now)

        let (_, text) = await widgetd(arguments + ["--format", "json"])
        let trace = try JSONReader.read(Data(text.utf8))
        let notify = try #require(trace["notify"])
        #expect(notify["comparedWith"]?.string?.hasSuffix("out/.state/notify/prices.json") == true)
        #expect(notify["note"] == .null)
        let rules = try #require(notify["rules"]?.array)
        #expect(rules.map { $0["rule"]?.string } == ["down", "price", "cheap"])
        #expect(rules.map { $0["fires"]?.bool } == [false, true, true])
        #expect(rules.map { $0["reason"]?.string } == ["status fresh, as last seen", "$.price changed 50 → 5", "condition became true"])
        #expect(rules[0]["request"] == nil)
        let request = try #require(rules[1]["request"])
        #expect(request["method"] == "POST")
        #expect(request["url"] == "https://hooks.example/***")
        #expect(request["headers"]?["Content-Type"] == "application/json")
        #expect(request["headers"]?["Idempotency-Key"]?.string?.count == 32)
        #expect(request["body"] == #"{"text":"$.price changed 50 → 5","price":5}"#)
        #expect(!text.contains(Self.token))
    }

    @Test func aHeaderOrAddressMadeFromASecretThroughFiltersIsMaskedWhole() async throws {
        try folder.write(
            "widgets.d/basic.json",
            #"""
            {"title": "Basic", "timeZone": "UTC", "source": {"path": "d.json"},
             "notify": [
              {"name": "cheap", "on": "condition", "if": "value.price < 10",
               "webhook": {"url": "https://hook.example:8443/{{ env.NTFY_TOKEN | base64_encode }}?q=1",
                           "headers": {"Authorization": "Basic {{ env.NTFY_TOKEN | append: ':' | append: env.NTFY_TOKEN | base64_encode }}"},
                           "body": "cheap"}}
             ]}
            """#)
        let (status, text) = await widgetd([
            "preview", "basic", "--config", folder.file("widgets.d").path, "--trace", "--out", folder.file("out").path,
        ])
        #expect(status == 0)
        let lines = notifyLines(text)
        try #require(lines.count == 7, "\(text)")
        #expect(lines[2] == "    POST https://hook.example:8443/***")
        #expect(lines[4] == "    Authorization: Basic ***")
        let encoded = Data("\(Self.token):\(Self.token)".utf8).base64EncodedString()
        #expect(!text.contains(encoded))
        #expect(!text.contains(Data(Self.token.utf8).base64EncodedString()))
        #expect(!text.contains(Self.token))
    }
}
