import Foundation
import Testing
import WidgetCore
import WidgetJSON
import WidgetRuntime
import WidgetStages
import WidgetTestSupport

/// `widgetd status` shows each widget's notifications, and a target that keeps failing, in text and JSON.
struct StatusNotificationsTests {
    @Test func aFailingTargetIsShownWithSinceWhenAndWhy() async throws {
        let folder = try TemporaryFolder()
        let store = SnapshotStore(directory: folder.file("out"))
        try await store.prepare()
        let json = """
            {"id": "shop", "source": {"url": "https://shop.example.com/status.json"},
             "notify": [{"name": "price", "on": "change", "path": "$.price",
                         "webhook": {"url": "https://hooks.example.com/{{ secret.hook }}", "body": "{{ change.to }}"}}]}
            """
        let definition = try #require(DefinitionReader(registry: .builtIn).read(Data(json.utf8), file: "shop.json").widgets.first)
        let at = Timestamp.date("2026-11-29T07:00:00Z")!
        func snapshot(_ price: Int, _ minutes: Double) -> Snapshot {
            let date = at.addingTimeInterval(minutes * 60)
            return Snapshot(
                id: "shop", title: "Shop", status: .fresh, generatedAt: date, lastSuccessAt: date, nextRefreshAt: nil,
                entries: [TimelineEntry(date: date, content: ["price": .number(WidgetNumber(price))])], error: nil)
        }
        try store.notifications.observe(snapshot(10, 0), definition: definition.definition, history: [:], now: at)
        let made = try store.notifications.observe(
            snapshot(12, 5), definition: definition.definition, history: [:], now: at.addingTimeInterval(300))
        let pending = try #require(made.first)
        store.notifications.failed(
            pending, error: "hooks.example.com answered 503", retryAt: at.addingTimeInterval(600), at: at.addingTimeInterval(300))
        try store.write(snapshot(12, 5))

        let text = try await Widgetd.run(["status", "--out", folder.file("out").path])
        #expect(
            text.stdout.contains(
                "Notifications:\n  shop: 1 pending, 0 sent, 0 failed, 0 dropped; "
                    + "notify failing since 2026-11-29T07:05:00Z: hooks.example.com answered 503"), "\(text.stdout)")
        let report = try await Widgetd.run(["status", "--out", folder.file("out").path, "--format", "json"])
        let value = try JSONReader.read(Data(report.stdout.utf8))
        let notify = try #require(value["widgets"]?[0]?["notify"])
        #expect(notify["pending"] == 1)
        #expect(notify["failingSince"] == "2026-11-29T07:05:00Z")
        #expect(notify["lastError"] == "hooks.example.com answered 503")
    }
}
