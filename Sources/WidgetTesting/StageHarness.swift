public import Foundation
import Synchronization
public import WidgetCore
public import WidgetJSON
public import WidgetLiquid

/// Runs one stage in memory, as a refresh would, from the JSON options a definition would hold: a
/// widget stage's `EmbeddedChannel`.
///
/// The options are decoded the way the registry decodes them when definitions load — strictly (an
/// unknown key is an `OptionsError` with a "did you mean"), with the template filters of
/// definitions — and the stage's own checks run in its initializer. The stage then runs once with a
/// context whose `now` is the harness's ``clock``.
///
/// ```swift
/// let value = try await StageHarness.run(RoundTransform.self, options: #"{"places": 2}"#, input: [1.234, 5.678])
/// #expect(value == [1.23, 5.68])
/// ```
///
/// A harness of your own sets the context and moves the clock between runs:
///
/// ```swift
/// var harness = StageHarness()
/// harness.context.params = ["host": "nas.local"]
/// harness.context.resources.insert(OriginRewrites(rules: [.init(from: "http://nas.local:9091", to: server.baseURL.absoluteString)]))
/// let payload = try await harness.run(TransmissionFetcher.self, options: #"{"url": "http://{{ params.host }}:9091/transmission/rpc"}"#)
/// harness.clock.advance(by: 3600)
/// #expect(harness.log.isEmpty)
/// ```
public struct StageHarness: Sendable {
    /// 2026-01-01T00:00:00Z, where a new harness's clock starts.
    public static let defaultStart = Date(timeIntervalSince1970: 1_767_225_600)

    /// The clock whose time each run's context reads as `now`.
    public let clock: ManualClock
    /// The context each run gets (with `now` read from ``clock``): widget id `test`, UTC, no inputs,
    /// params or secrets, until a test sets them. Its `log` is recorded in ``log``.
    public var context: StageContext
    /// The template filters options may use.
    public var filters: FilterRegistry = .standard
    private let lines: LogLines

    /// A harness whose clock starts at `now`.
    public init(now: Date = StageHarness.defaultStart, widgetID: String = "test", timeZone: TimeZone = TimeZone(identifier: "UTC")!) {
        clock = ManualClock(now: now)
        let lines = LogLines()
        self.lines = lines
        context = StageContext(widgetID: widgetID, now: now, timeZone: timeZone, log: { line in lines.append(line) })
    }

    /// What stages logged through `context.log`, in order.
    public var log: [String] {
        lines.all
    }

    /// The context of a run: ``context`` with `now` read from ``clock``.
    public func currentContext() -> StageContext {
        var context = context
        context.now = clock.now()
        return context
    }

    // MARK: - Building

    /// Builds `type` from `options`, JSON text of the stage's object as a definition writes it (a
    /// `"type"` member naming the stage may be there).
    ///
    /// - Throws: `OptionsError` for options the stage refuses, naming the option and what would work;
    ///   ``StageHarnessError`` when `options` is not a JSON object.
    public func make<S: Stage>(_ type: S.Type, options: String = "{}") throws -> S {
        let value: WidgetValue
        do {
            value = try JSONReader.read(Data(options.utf8))
        } catch {
            throw StageHarnessError(message: "the options of \(S.typeName) are not JSON: \(error)")
        }
        guard case .object = value else {
            throw StageHarnessError(message: "the options of \(S.typeName) must be a JSON object, like {\"key\": 1}")
        }
        return try StageFactory.make(type, options: value, filters: filters)
    }

    // MARK: - Running

    /// Builds the transform `type` from `options` and transforms `input`.
    ///
    /// - Throws: What building or running the stage threw.
    public func run<T: Transformer>(_ type: T.Type, options: String = "{}", input: WidgetValue) async throws -> WidgetValue {
        try await make(type, options: options).transform(input, context: currentContext())
    }

    /// Builds the source `type` from `options` and fetches.
    ///
    /// - Throws: What building or running the stage threw.
    public func run<F: Fetcher>(_ type: F.Type, options: String = "{}") async throws -> Payload {
        try await make(type, options: options).fetch(context: currentContext())
    }

    /// Builds the parser `type` from `options` and parses `input`.
    ///
    /// - Throws: What building or running the stage threw.
    public func run<P: Parser>(_ type: P.Type, options: String = "{}", input: Payload) async throws -> WidgetValue {
        try make(type, options: options).parse(input, context: currentContext())
    }

    /// Builds the timeline `type` from `options` and lays `input` out.
    ///
    /// - Throws: What building or running the stage threw.
    public func run<T: TimelineBuilder>(_ type: T.Type, options: String = "{}", input: WidgetValue) async throws -> [TimelineEntry] {
        try make(type, options: options).entries(for: input, context: currentContext())
    }

    // MARK: - With a new harness

    /// Runs the transform `type` in a new harness.
    ///
    /// - Throws: What building or running the stage threw.
    public static func run<T: Transformer>(_ type: T.Type, options: String = "{}", input: WidgetValue) async throws -> WidgetValue {
        try await StageHarness().run(type, options: options, input: input)
    }

    /// Runs the source `type` in a new harness.
    ///
    /// - Throws: What building or running the stage threw.
    public static func run<F: Fetcher>(_ type: F.Type, options: String = "{}") async throws -> Payload {
        try await StageHarness().run(type, options: options)
    }

    /// Runs the parser `type` in a new harness.
    ///
    /// - Throws: What building or running the stage threw.
    public static func run<P: Parser>(_ type: P.Type, options: String = "{}", input: Payload) async throws -> WidgetValue {
        try await StageHarness().run(type, options: options, input: input)
    }

    /// Runs the timeline `type` in a new harness.
    ///
    /// - Throws: What building or running the stage threw.
    public static func run<T: TimelineBuilder>(_ type: T.Type, options: String = "{}", input: WidgetValue) async throws -> [TimelineEntry] {
        try await StageHarness().run(type, options: options, input: input)
    }
}

/// A stage could not be built for the reason given (options that are not a JSON object, say).
public struct StageHarnessError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in one sentence.
    public var message: String
    public var description: String { message }
}

/// The lines stages of one harness logged.
private final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    var all: [String] {
        lines.withLock { $0 }
    }
}
