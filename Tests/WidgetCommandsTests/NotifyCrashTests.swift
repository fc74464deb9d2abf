import Foundation
import Testing
import WidgetStages
import WidgetTestSupport
import WidgetTesting

/// A real `widgetd run` killed with SIGKILL ten times while its data changes loses and duplicates no
/// notification (`widgetd-bench notify-crash` does it fifty times).
@Suite(.timeLimit(.minutes(5)))
struct NotifyCrashTests {
    @Test func killsLoseNoChangeAndDetectNoneTwice() async throws {
        let server = try TestHTTPServer(routes: [TestHTTPRoute("POST", "/hook") { _ in .text("ok") }])
        let run = NotifyCrashRun(kills: 10, webhook: server.url("/hook")) {
            server.requests.map { (key: $0.headers["Idempotency-Key"] ?? "", body: $0.text) }
        }
        let result = try await run.run()
        print(result)
        #expect(result.lost.isEmpty, "\(result)")
        #expect(result.duplicated.isEmpty, "\(result)")
        #expect(result.delivered == result.changes)
    }
}
