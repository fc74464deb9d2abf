import Foundation
import Synchronization
import WidgetCore
import WidgetJSON
import WidgetLiquid
import WidgetStages

/// Multiplies every number of a list: `{"type": "scale", "factor": 2}`.
struct ScaleTransform: Transformer {
    struct Options: Decodable, Sendable {
        var factor: Int
        var label: Template?

        enum CodingKeys: String, CodingKey { case factor, label }
    }

    static let typeName = "scale"
    static let summary = "Multiplies every number of a list."

    let factor: Int
    let label: Template?

    init(options: Options) throws {
        factor = options.factor
        label = options.label
        guard factor != 0 else { throw StageError("\"factor\" must not be 0", option: Options.CodingKeys.factor) }
    }

    func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue {
        guard case .array(let items) = value else { throw StageError("scale needs a list") }
        if let label { context.log("scale: \(try label.renderString(context.templateScope()))") }
        return .array(items.map { item in item.number.map { .number($0 * WidgetNumber(factor)) } ?? item })
    }
}

/// A transform that breaks the rules: it counts its runs in state shared by every run.
struct CountingTransform: Transformer {
    struct Options: Decodable, Sendable {}
    static let typeName = "counting"
    static let summary = "Numbers its runs."

    final class Counter: Sendable {
        let runs = Mutex(0)
    }

    let counter = Counter()

    init(options: Options) {}

    func transform(_ value: WidgetValue, context: StageContext) async throws -> WidgetValue {
        .number(
            WidgetNumber(
                counter.runs.withLock { runs in
                    runs += 1
                    return runs
                }))
    }
}

/// Fetches a URL through `context.http`: `{"type": "plain", "url": "https://api.example.com/x"}`.
struct PlainFetcher: Fetcher {
    struct Options: Decodable, Sendable {
        var url: String

        enum CodingKeys: String, CodingKey { case url }
    }
    static let typeName = "plain"
    static let summary = "Fetches a URL through the runtime's HTTP client."

    let url: URL

    init(options: Options) throws {
        guard let url = URL(string: options.url) else { throw StageError("\"url\" is not a URL", option: Options.CodingKeys.url) }
        self.url = url
    }

    func fetch(context: StageContext) async throws -> Payload {
        let response = try await context.http.send(HTTPRequest(url: url))
        guard response.isSuccess else {
            throw StageError("\(HTTPRequest(url: response.finalURL).hostDescription) answered \(response.status)")
        }
        return Payload(data: response.body, contentType: response.contentType, origin: response.finalURL.absoluteString)
    }
}

/// Reads lines: `{"type": "lines"}`.
struct LinesParser: Parser {
    struct Options: Decodable, Sendable {}
    static let typeName = "lines"
    static let summary = "Reads a text as a list of lines."

    init(options: Options) {}

    func parse(_ payload: Payload, context: StageContext) throws -> WidgetValue {
        .array(payload.text.split(separator: "\n").map { .string(String($0)) })
    }
}

/// One entry an hour from now per item: `{"type": "hourly"}`.
struct HourlyTimeline: TimelineBuilder {
    struct Options: Decodable, Sendable {}
    static let typeName = "hourly"
    static let summary = "One entry an hour, from now, per item."

    init(options: Options) {}

    func entries(for value: WidgetValue, context: StageContext) throws -> [TimelineEntry] {
        (value.array ?? [value]).enumerated().map { index, item in
            TimelineEntry(date: context.now.addingTimeInterval(Double(index) * 3600), content: item)
        }
    }
}
