import Foundation
import WidgetCore
import WidgetJSON
import WidgetLiquid

/// Small stages with the built-in stages' names and option shapes, so the definition reader can be
/// tested in `WidgetCore` alone.
enum TestStages {
    /// A registry with `http`, `file`, `json`, `firestore`, `map`, `limit` and `single`.
    static let registry: StageRegistry = {
        var builder = StageRegistry.Builder()
        builder.register(URLFetcher.self)
        builder.register(PathFetcher.self)
        builder.register(PlainJSONParser.self)
        builder.register(FirestoreParser.self)
        builder.register(FieldsTransform.self)
        builder.register(CountTransform.self)
        builder.register(OneEntryTimeline.self)
        do {
            return try builder.build()
        } catch {
            preconditionFailure("\(error)")
        }
    }()

    struct URLFetcher: Fetcher {
        struct Options: Decodable, Sendable {
            var url: Template
            var method: String?
            var headers: [String: Template]?
            var body: TemplateTree?
            var timeout: WidgetDuration?
            var maxBytes: Int?
        }

        static let typeName = "http"
        let url: Template

        init(options: Options) { url = options.url }

        func fetch(context: StageContext) async throws -> Payload {
            throw StageError("the test HTTP source does not fetch")
        }
    }

    struct PathFetcher: Fetcher {
        struct Options: Decodable, Sendable {
            var path: String
        }

        static let typeName = "file"

        init(options: Options) {}

        func fetch(context: StageContext) async throws -> Payload {
            throw StageError("the test file source does not read")
        }
    }

    struct PlainJSONParser: Parser {
        struct Options: Decodable, Sendable {}
        static let typeName = "json"

        init(options: Options) {}

        func parse(_ payload: Payload, context: StageContext) throws -> WidgetValue {
            try JSONReader.read(payload.data)
        }
    }

    struct FirestoreParser: Parser {
        struct Options: Decodable, Sendable {}
        static let typeName = "firestore"

        init(options: Options) {}

        func parse(_ payload: Payload, context: StageContext) throws -> WidgetValue {
            try JSONReader.read(payload.data)
        }
    }

    struct FieldsTransform: Transformer {
        struct Options: Decodable, Sendable {
            var fields: TemplateTree
            var merge: Bool?
        }

        static let typeName = "map"

        init(options: Options) {}

        func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue { value }
    }

    struct CountTransform: Transformer {
        struct Options: Decodable, Sendable {
            var count: Int
            var offset: Int?
        }

        static let typeName = "limit"

        init(options: Options) {}

        func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue { value }
    }

    struct OneEntryTimeline: TimelineBuilder {
        struct Options: Decodable, Sendable {}
        static let typeName = "single"

        init(options: Options) {}

        func entries(for value: WidgetValue, context: StageContext) throws -> [TimelineEntry] {
            [TimelineEntry(date: context.now, content: value)]
        }
    }
}
