import Foundation
import WidgetStages
import WidgetTestSupport
import WidgetTesting

/// The notification outbox under crashes: a real `widgetd run` whose number changes, killed with SIGKILL
/// 50 times at varied moments and started again, sending each change to a webhook server on 127.0.0.1.
/// Every change must arrive, and none under two ids; repeats of one id (sent again after a kill that came
/// between the receiver's answer and the outbox's record of it) are counted apart.
func runNotifyCrashBenchmarks() {
    let kills = 50
    Benchmarks.section("notify-crash: \(kills) SIGKILLs of widgetd run while its data changes")
    let server: TestHTTPServer
    do {
        server = try TestHTTPServer(routes: [TestHTTPRoute("POST", "/hook") { _ in .text("ok") }])
    } catch {
        emit("  Error: the webhook server did not start: \(error)")
        return
    }
    defer { server.stop() }
    let began = Date()
    let run = NotifyCrashRun(kills: kills, webhook: server.url("/hook")) {
        server.requests.map { (key: $0.headers["Idempotency-Key"] ?? "", body: $0.text) }
    }
    let result = blocking { () async -> Result<NotifyCrashRun.Result, any Error> in
        do {
            return .success(try await run.run())
        } catch {
            return .failure(error)
        }
    }
    switch result {
    case .success(let counts):
        emit("  \(counts)")
        emit("  took \(String(format: "%.0f", Date().timeIntervalSince(began))) s")
    case .failure(let error):
        emit("  Error: \(error)")
    }
}
