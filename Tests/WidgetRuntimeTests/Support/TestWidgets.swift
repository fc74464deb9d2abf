import Foundation
import Testing
import WidgetCore
import WidgetRuntime
import WidgetStages
import WidgetTesting

/// Builds widgets for tests: the built-in stages plus the in-memory source.
enum TestWidgets {
    /// The built-in stages, `{"type": "memory", "key": …}`, `{"type": "hang"}` and `{"type": "stubborn"}`.
    static let registry: StageRegistry = {
        var builder = StageRegistry.Builder.builtIn()
        builder.register(InMemoryFetcher.self)
        builder.register(HangingFetcher.self)
        builder.register(SlowHostFetcher.self)
        builder.register(StubbornFetcher.self)
        do {
            return try builder.build()
        } catch {
            preconditionFailure("The test registry does not build: \(error)")
        }
    }()

    static let utc = TimeZone(identifier: "UTC")!
    static let newYork = TimeZone(identifier: "America/New_York")!

    /// A reader of definitions with the test registry; definitions without `timeZone` use UTC.
    static let reader = DefinitionReader(registry: registry, defaultTimeZone: utc)

    /// The one widget of the definition `json`; fails the test when the definition has problems.
    static func pipeline(_ json: String, file: String = "widgets.d/x.json") throws -> WidgetPipeline {
        let result = reader.read(Data(json.utf8), file: file)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        return try #require(result.widgets.first)
    }

    /// A refresher whose stages find `source` among their resources.
    static func refresher(
        _ source: InMemorySource, started: HangingFetcher.Started? = nil, gate: StubbornFetcher.Gate? = nil
    ) -> WidgetRefresher {
        var resources = StageResources()
        resources.insert(source)
        if let started { resources.insert(started) }
        if let gate { resources.insert(gate) }
        return WidgetRefresher(secrets: SecretStore(), resources: resources)
    }

    /// `2026-11-22T15:00:00Z` and the like.
    static func date(_ text: String) -> Date {
        guard let date = Timestamp.date(text) else { preconditionFailure("not a timestamp: \(text)") }
        return date
    }
}
