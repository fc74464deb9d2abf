import Foundation
import Synchronization
import Testing
import WidgetCore
import WidgetJSON
import WidgetStages
import WidgetTestSupport
import WidgetTesting

/// The `fetch` transform through the built `widgetd`, counted at the server: one request per item, and
/// a 304 for every item on the next run, its validators kept in the state between two processes.
@Suite(.timeLimit(.minutes(5)))
struct FanOutTests {
    final class Counter: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
    }

    /// `/ids` lists 7, 8 and 9; `/item/N` is an object with an ETag, 304 to a matching `If-None-Match`.
    static func server(notModified: Counter) throws -> TestHTTPServer {
        try TestHTTPServer(routes: [
            TestHTTPRoute("GET", "/ids") { _ in .json([7, 8, 9]) },
            TestHTTPRoute("GET", "/item/*") { request in
                let id = request.path.split(separator: "/").last.map(String.init) ?? ""
                let etag = "\"item-\(id)\""
                if request.headers["If-None-Match"] == etag {
                    notModified.add()
                    return TestHTTPResponse(status: 304, headers: ["ETag": etag])
                }
                return .json(["name": .string("Item \(id)")], headers: ["ETag": etag])
            },
        ])
    }

    @Test func eachItemIsOneRequestAndEachAnswers304OnTheNextRun() async throws {
        let notModified = Counter()
        let server = try Self.server(notModified: notModified)
        let origin = "http://127.0.0.1:\(server.port)"
        let folder = try TemporaryFolder()
        try folder.write(
            "widgets.d/items.json",
            #"""
            {
              "source": { "url": "\#(origin)/ids" },
              "transforms": [
                { "type": "fetch", "url": "\#(origin)/item/{{ item }}", "concurrency": 2 },
                { "type": "map", "fields": { "name": "{{ name }}" } }
              ],
              "schedule": { "every": "1h" }
            }
            """#)
        let arguments = ["run", "--config", "widgets.d", "--out", "out", "--once"]
        let first = try await Widgetd.run(arguments, in: folder.url)
        #expect(first.status == 0, "\(first.stderr)")
        let items = { server.requests.filter { $0.path.hasPrefix("/item/") } }
        #expect(items().map(\.path).sorted() == ["/item/7", "/item/8", "/item/9"])
        let content = try OutputFolder.snapshot("items", in: folder.file("out"))["entries"]?[0]?["content"]
        #expect(content == [["name": "Item 7"], ["name": "Item 8"], ["name": "Item 9"]])

        let second = try await Widgetd.run(arguments, in: folder.url)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(items().count == 6)
        // Each item sends back the ETag its own URL earned: "item-7" for /item/7.
        #expect(items().suffix(3).allSatisfy { $0.headers["If-None-Match"] == "\"item-\($0.path.dropFirst("/item/".count))\"" })
        #expect(notModified.value == 3)
        let again = try OutputFolder.snapshot("items", in: folder.file("out"))
        #expect(again["status"] == "fresh")
        #expect(again["entries"]?[0]?["content"] == content)
    }

    @Test func twoWidgetsFanningOutToTheSameItemsShareEachRequestInAWave() async throws {
        let server = try Self.server(notModified: Counter())
        let origin = "http://127.0.0.1:\(server.port)"
        let folder = try TemporaryFolder()
        for (id, field) in [("first", "name"), ("second", "label")] {
            try folder.write(
                "widgets.d/\(id).json",
                #"""
                {
                  "source": { "url": "\#(origin)/ids" },
                  "transforms": [
                    { "type": "fetch", "url": "\#(origin)/item/{{ item }}" },
                    { "type": "map", "fields": { "\#(field)": "{{ name }}" } }
                  ],
                  "schedule": { "every": "1h" }
                }
                """#)
        }
        let output = try await Widgetd.run(["run", "--config", "widgets.d", "--out", "out", "--once"], in: folder.url)
        #expect(output.status == 0, "\(output.stderr)")
        // One request per item and one for the ids, shared by both widgets.
        #expect(server.requests.map(\.path).sorted() == ["/ids", "/item/7", "/item/8", "/item/9"])
        let second = try OutputFolder.snapshot("second", in: folder.file("out"))["entries"]?[0]?["content"]
        #expect(second == [["label": "Item 7"], ["label": "Item 8"], ["label": "Item 9"]])
    }
}
