public import Foundation

/// A widget as its definition file describes it, checked but not yet bound to stage implementations.
///
/// Read one with ``DefinitionReader``; turn it into running stages with ``WidgetPipeline``.
public struct WidgetDefinition: Sendable {
    /// A refresh's ``deadline`` unless the definition sets one: one minute.
    public static let defaultDeadline = WidgetDuration(seconds: 60)
    /// The longest ``deadline`` a definition may set: one hour.
    public static let maximumDeadline = WidgetDuration(seconds: 3_600)

    /// The widget's id: the file name without `.json`, the `id` key, or either plus an instance suffix.
    public var id: String
    /// The display title.
    public var title: String?
    /// The zone for schedules and date templates.
    public var timeZone: TimeZone
    /// Named extra sources, fetched in order before `source`.
    public var inputs: [InputDefinition]
    /// The main source.
    public var source: StageSpec
    /// The main source's `when`: a template that decides whether it is fetched at all (see
    /// ``InputDefinition/when``); `nil` when the source is always fetched.
    public var sourceWhen: Template?
    /// The parser for the main source.
    public var parser: StageSpec
    /// Transforms, applied in order.
    public var transforms: [StageSpec]
    /// How entries are dated.
    public var timeline: TimelineDefinition
    /// When to refresh.
    public var schedule: Schedule
    /// After how long data counts as stale; `nil` for never.
    public var staleAfter: WidgetDuration?
    /// How long one refresh may take, all stages together, before it is stopped and counts as failed.
    public var deadline: WidgetDuration
    /// What to serve when a refresh fails.
    public var fallback: FallbackPolicy
    /// Content served before there has ever been data.
    public var placeholder: WidgetValue?
    /// The instance parameters, for a widget made from one of a definition's `instances`.
    public var params: WidgetObject
    /// The file the definition came from, as the user named it (`widgets.d/jotd.json`).
    public var file: String
    /// A fingerprint of the definition as written (128 bits), to notice changes on reload without keeping
    /// the whole document.
    public var fingerprint: String

    public init(
        id: String,
        title: String? = nil,
        timeZone: TimeZone = .current,
        inputs: [InputDefinition] = [],
        source: StageSpec,
        sourceWhen: Template? = nil,
        parser: StageSpec = StageSpec(typeName: "json", path: ValuePath.root.appending("parser")),
        transforms: [StageSpec] = [],
        timeline: TimelineDefinition = TimelineDefinition(),
        schedule: Schedule = Schedule(),
        staleAfter: WidgetDuration? = nil,
        deadline: WidgetDuration = WidgetDefinition.defaultDeadline,
        fallback: FallbackPolicy = FallbackPolicy(),
        placeholder: WidgetValue? = nil,
        params: WidgetObject = [:],
        file: String = "",
        fingerprint: String = ""
    ) {
        self.id = id
        self.title = title
        self.timeZone = timeZone
        self.inputs = inputs
        self.source = source
        self.sourceWhen = sourceWhen
        self.parser = parser
        self.transforms = transforms
        self.timeline = timeline
        self.schedule = schedule
        self.staleAfter = staleAfter
        self.deadline = deadline
        self.fallback = fallback
        self.placeholder = placeholder
        self.params = params
        self.file = file
        self.fingerprint = fingerprint
    }
}

/// A stage as a definition names it: a type name and the options beside it.
public struct StageSpec: Sendable, Hashable {
    /// The registered type name (`"http"`, `"json"`, `"map"`).
    public var typeName: String
    /// Every member of the stage's object except `type` (and keys the pipeline itself reads).
    public var options: WidgetObject
    /// Where the stage is in the definition, e.g. `$.transforms[1]`.
    public var path: ValuePath
    /// Where the type name is written: `$.parser` for `"parser": "json"`, `$.transforms[1].type` for an
    /// object, the source itself when `url` or `path` implies the type.
    public var typePath: ValuePath

    public init(typeName: String, options: WidgetObject = [:], path: ValuePath, typePath: ValuePath? = nil) {
        self.typeName = typeName
        self.options = options
        self.path = path
        self.typePath = typePath ?? path
    }
}

/// A named extra source: `"inputs": {"daily": {"url": …, "parser": "firestore"}}`.
public struct InputDefinition: Sendable, Hashable {
    public var name: String
    public var source: StageSpec
    public var parser: StageSpec
    /// A template that decides whether the source is fetched at all: `"when": "{{ inputs.airport.id }}"`.
    ///
    /// It is rendered before the fetch, with `inputs` (those fetched so far), `params`, `now` and `widget`
    /// in scope but no secrets. When it gives `nil`, `false` or an empty string (see
    /// ``WidgetValue/passesTest``) nothing is fetched or parsed and the value is `null`, for the transforms
    /// to handle; otherwise the source is fetched as usual. `nil` (no `when`): always fetched.
    public var when: Template?

    public init(name: String, source: StageSpec, parser: StageSpec, when: Template? = nil) {
        self.name = name
        self.source = source
        self.parser = parser
        self.when = when
    }
}

/// The timeline stage plus the per-entry templates every timeline accepts.
public struct TimelineDefinition: Sendable {
    /// The timeline stage (`single`, `each`).
    public var stage: StageSpec
    /// A template for each entry's relevance (a number), evaluated with the entry's content as the item.
    public var relevance: Template?
    /// A template for each entry's deep link.
    public var url: Template?
    /// The most entries to keep.
    public var limit: Int?

    public init(
        stage: StageSpec = StageSpec(typeName: "single", path: ValuePath.root.appending("timeline")),
        relevance: Template? = nil,
        url: Template? = nil,
        limit: Int? = nil
    ) {
        self.stage = stage
        self.relevance = relevance
        self.url = url
        self.limit = limit
    }
}

/// What to serve when a refresh fails.
public struct FallbackPolicy: Sendable, Hashable {
    /// How to choose among kept items.
    public enum Pick: String, Sendable, CaseIterable {
        /// The newest good data.
        case latest
        /// One kept item, the same all day: chosen by the date in the widget's zone.
        case daily
        /// A kept item at random on each failure.
        case random
    }

    /// How many last good items to keep for fallback.
    public var keep: Int
    public var pick: Pick

    public init(keep: Int = 1, pick: Pick = .latest) {
        self.keep = keep
        self.pick = pick
    }
}

extension WidgetDefinition {
    /// A 128-bit fingerprint of `value` written as compact JSON (two 64-bit FNV-1a hashes, hexadecimal).
    public static func fingerprint(of value: WidgetValue) -> String {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x6c62_272e_07bb_0142
        for byte in JSONWriter.bytes(value) {
            first = (first ^ UInt64(byte)) &* 0x100_0000_01b3
            second = (second &* 0x100_0000_01b3) ^ UInt64(byte)
        }
        let text = String(first, radix: 16) + String(second, radix: 16)
        return text
    }
}
