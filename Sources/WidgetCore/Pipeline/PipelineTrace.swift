import Foundation
import Synchronization
public import WidgetJSON

/// A record of one refresh, stage by stage: what each fetch asked for and got, the value after the
/// parser and after each transform, the entries, how long each stage took, and which stage emptied the
/// value. `widgetd preview ID --trace` prints it.
///
/// Give a trace to ``WidgetPipeline/run(context:cache:trace:)``. The pipeline adds a ``Step`` as each stage
/// ends, from what the stage returned, so every stage — built in or registered by a plugin — is traced the
/// same way, and a refresh that fails keeps the steps before the failure, the failed stage last. Stage
/// times are read from `clock`, so a test with a manual clock gets the same trace every time.
///
/// ```swift
/// let trace = PipelineTrace(clock: SystemClock())
/// _ = try? await pipeline.run(context: context, cache: [:], trace: trace)
/// for step in trace.steps { print(step.stage, step.seconds, step.value?.shapeDescription ?? "") }
/// ```
public final class PipelineTrace: Sendable {
    /// One stage of the refresh as it ran.
    public struct Step: Sendable, Hashable {
        /// The stage, as errors name it: `source`, `inputs.daily`, `parser`, `transforms[1] (filter)`, `timeline`.
        public var stage: PipelineStage
        /// The kind of stage.
        public var kind: StageKind
        /// The stage's type name: `http`, `json`, `filter`, `each`.
        public var type: String
        /// How long the stage took, by the trace's clock.
        public var seconds: Double
        /// How the stage ended.
        public var outcome: Outcome
        /// For a source or input: what was asked and what came back.
        public var fetch: Fetch?
        /// For a parser or transform: the value it gave (for a parser not run, the value reused).
        public var value: WidgetValue?
        /// For the timeline: the entries.
        public var entries: [TimelineEntry]?
        /// Set when the stage emptied the value (see ``PipelineWarning``).
        public var warning: PipelineWarning?

        /// A step with every part given; what a stage did not give is nil.
        public init(
            stage: PipelineStage, kind: StageKind, type: String, seconds: Double, outcome: Outcome = .done, fetch: Fetch? = nil,
            value: WidgetValue? = nil, entries: [TimelineEntry]? = nil, warning: PipelineWarning? = nil
        ) {
            self.stage = stage
            self.kind = kind
            self.type = type
            self.seconds = seconds
            self.outcome = outcome
            self.fetch = fetch
            self.value = value
            self.entries = entries
            self.warning = warning
        }
    }

    /// How a stage ended.
    public enum Outcome: String, Sendable, Hashable {
        /// It ran and gave its result.
        case done
        /// A source whose `when` did not pass: neither fetched nor parsed; its value is `null`.
        case skipped
        /// A parser that did not run: the source answered "not modified" and the last parsed value stands.
        case reused
        /// It threw; the refresh's error says why.
        case failed
    }

    /// What a fetch asked for and what came back, from its ``Payload``.
    public struct Fetch: Sendable, Hashable {
        /// The request with secrets masked (`GET https://…?key=***`), when the source says.
        public var request: String?
        /// Where the bytes came from, safe to show.
        public var origin: String
        /// The HTTP status, for HTTP sources.
        public var status: Int?
        /// The size of the body, in bytes.
        public var bytes: Int
        /// The declared media type.
        public var contentType: String?
        /// Whether the source answered "not modified" to the last fetch's validators.
        public var notModified: Bool
        /// Each page read, when the source read several (see ``Payload/pages``).
        public var pages: [String]
        /// What the fetch had to say though it succeeded (see ``Payload/warnings``).
        public var warnings: [String]

        /// The facts of `payload`.
        public init(_ payload: Payload) {
            pages = payload.pages
            warnings = payload.warnings
            request = payload.request
            origin = payload.origin
            status = payload.status
            bytes = payload.data.count
            contentType = payload.contentType
            notModified = payload.notModified
        }
    }

    /// The clock stage times are read from.
    public let clock: any WidgetClock
    private let recorded = Mutex<[Step]>([])

    /// An empty trace that times stages with `clock`.
    public init(clock: any WidgetClock) {
        self.clock = clock
    }

    /// The steps so far, in the order the stages ended.
    public var steps: [Step] {
        recorded.withLock { $0 }
    }

    /// The warnings the steps carry, in order.
    public var warnings: [PipelineWarning] {
        steps.compactMap(\.warning)
    }

    /// Adds `step`.
    public func append(_ step: Step) {
        recorded.withLock { $0.append(step) }
    }

    /// The seconds from `start` to now by ``clock``; 0 without a start.
    func seconds(since start: Date?) -> Double {
        guard let start else { return 0 }
        return max(0, clock.now().timeIntervalSince(start))
    }
}
