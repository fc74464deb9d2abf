import Foundation
import Testing
import WidgetCore
import WidgetJSON

@testable import WidgetStages

struct FirestoreParserTests {
    func parse(_ json: String) throws -> WidgetValue {
        try FirestoreParser(options: .init()).parse(
            Payload(data: Data(json.utf8), contentType: "application/json", origin: "firestore.googleapis.com"),
            context: StageContext(widgetID: "jotd", now: Date()))
    }

    @Test func aDocumentBecomesPlainJSONWithItsID() throws {
        let value = try parse(
            """
            {"name": "projects/mr-funny-jokes/databases/(default)/documents/jokes/42",
             "fields": {
               "text": {"stringValue": "Why did the widget refresh?"},
               "likes": {"integerValue": "12345678901234567890"},
               "rating": {"doubleValue": 4.75},
               "nan": {"doubleValue": "NaN"},
               "approved": {"booleanValue": true},
               "character": {"nullValue": null},
               "created": {"timestampValue": "2026-11-22T05:00:00.123456Z"},
               "author": {"referenceValue": "projects/p/databases/(default)/documents/users/7"},
               "where": {"geoPointValue": {"latitude": 40.7128, "longitude": -74.006}},
               "blob": {"bytesValue": "aGk="},
               "meta": {"mapValue": {"fields": {"type": {"stringValue": "pun"}, "tags": {"arrayValue": {"values": [{"stringValue": "a"}, {"integerValue": "2"}]}}}}},
               "empty": {"arrayValue": {}},
               "emptyMap": {"mapValue": {}}
             },
             "createTime": "2026-01-01T00:00:00Z", "updateTime": "2026-01-02T00:00:00Z"}
            """)
        let expected = try JSONReader.read(
            """
            {"_id": "42", "_name": "projects/mr-funny-jokes/databases/(default)/documents/jokes/42",
             "_createTime": "2026-01-01T00:00:00Z", "_updateTime": "2026-01-02T00:00:00Z",
             "text": "Why did the widget refresh?", "likes": 12345678901234567890, "rating": 4.75, "nan": "NaN",
             "approved": true, "character": null, "created": "2026-11-22T05:00:00.123456Z",
             "author": "projects/p/databases/(default)/documents/users/7",
             "where": {"latitude": 40.7128, "longitude": -74.006}, "blob": "aGk=",
             "meta": {"type": "pun", "tags": ["a", 2]}, "empty": [], "emptyMap": {}}
            """)
        #expect(value == expected)
        #expect(value["likes"]?.number?.text == "12345678901234567890")
    }

    @Test func listAndQueryResponsesBecomeListsOfDocuments() throws {
        let list = try parse(
            """
            {"documents": [{"name": "a/b/c/1", "fields": {"n": {"integerValue": "1"}}},
                           {"name": "a/b/c/2", "fields": {"n": {"integerValue": "2"}}}],
             "nextPageToken": "x"}
            """)
        #expect(list == [["_id": "1", "_name": "a/b/c/1", "n": 1], ["_id": "2", "_name": "a/b/c/2", "n": 2]])
        let query = try parse(
            """
            [{"document": {"name": "d/jokes/9", "fields": {"t": {"stringValue": "x"}}}, "readTime": "2026-01-01T00:00:00Z"},
             {"readTime": "2026-01-01T00:00:00Z"}]
            """)
        #expect(query == [["_id": "9", "_name": "d/jokes/9", "t": "x"]])
        #expect(try parse("{}") == [])
    }

    @Test func errorsNameTheFieldOrTheProblem() throws {
        #expect(throws: StageError.self) { try parse("{\"fields\": {\"x\": {\"weirdValue\": 1}}}") }
        do {
            _ = try parse("{\"fields\": {\"meta\": {\"mapValue\": {\"fields\": {\"x\": 3}}}}}")
            Issue.record("a bare value was accepted")
        } catch let error as StageError {
            #expect(error.message.contains("\"meta.x\""))
        }
        do {
            _ = try parse("{\"error\": {\"code\": 404, \"message\": \"Document not found\"}}")
            Issue.record("an error response was accepted")
        } catch let error as StageError {
            #expect(error.message.contains("Document not found"))
        }
        #expect(throws: StageError.self) { try parse("not json") }
        #expect(throws: StageError.self) { try parse("42") }
    }
}
