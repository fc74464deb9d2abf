public import Foundation
public import WidgetJSON
public import WidgetLiquid

/// A widget as its definition file describes it, checked but not yet bound to stage implementations.
///
/// Read one with ``DefinitionReader``; turn it into running stages with ``WidgetPipeline``.
public struct WidgetDefinition: Sendable {
    /// A refresh's ``deadline`` unless the definition sets one: one minute.
    public static let defaultDeadline = WidgetDuration(seconds: 60)
    /// The longest ``deadline`` a definition may set: one hour.
    public static let maximumDeadline = WidgetDuration(seconds: 3_600)
    /// The parser of a source that names none.
    public static let defaultParser = "json"
    /// The timeline of a definition that names none.
    public static let defaultTimeline = "single"

    /// The widget's id: the file name without `.json`, the `id` key, or either plus an instance suffix.
    public var id: String
    /// The display title, as rendered with the widget's ``params`` when the definition was read (a title
    /// is a template that sees `params` and `widget` only, never data).
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
    /// Content served before there has ever been data, its templates rendered with the widget's
    /// ``params`` when the definition was read.
    public var placeholder: WidgetValue?
    /// How the gallery page shows an entry; `nil` for the generic card.
    public var view: ViewDefinition?
    /// The instance parameters, for a widget made from one of a definition's `instances`.
    public var params: WidgetObject
    /// The file the definition came from, as the user named it (`widgets.d/jotd.json`).
    public var file: String
    /// A fingerprint of the definition as written (128 bits), to notice changes on reload without keeping
    /// the whole document.
    public var fingerprint: String
    /// The secrets (`{{ env.NAME }}`, `{{ secret.NAME }}`) its sources read, names from `params` included:
    /// their values are masked in every error of its refreshes (``redact(_:secrets:)``).
    public var secretUses: [Template.SecretUse] = []
    /// The steps its templates may take (see `TemplateSteps`): all those of one refresh together, and
    /// the views of one gallery card together. The reader that made it sets it
    /// (``DefinitionReader/templateStepLimit``, `--template-steps`).
    public var templateStepLimit = TemplateSteps.defaultLimit

    /// `text` with the value of every secret this widget's sources read replaced by `***`, whatever its
    /// length and in the forms the secret-keeping filters give it: the one place where a refresh's error
    /// loses its secrets, before it reaches a snapshot, a log line or `status`.
    public func redact(_ text: String, secrets: SecretStore) -> String {
        secretUses.isEmpty ? text : secretMask(secrets: secrets).apply(text)
    }

    /// The mask of ``redact(_:secrets:)``: the secrets this widget's sources read. A text that may hold
    /// them is shortened with its ``SecretMask/excerpt(_:limit:)``, which masks before it cuts.
    public func secretMask(secrets: SecretStore) -> SecretMask {
        secretUses.isEmpty ? SecretMask() : secrets.mask(uses: secretUses, params: params)
    }

    /// Creates a definition from its parts; what is left out takes the default a definition file gets
    /// (the `json` parser, a `single` timeline, the default schedule, deadline and fallback).
    public init(
        id: String,
        title: String? = nil,
        timeZone: TimeZone = .current,
        inputs: [InputDefinition] = [],
        source: StageSpec,
        sourceWhen: Template? = nil,
        parser: StageSpec = StageSpec(typeName: WidgetDefinition.defaultParser, path: ValuePath.root.appending("parser")),
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

extension WidgetDefinition {
    /// A 128-bit fingerprint of `value` as written, members in order (two 64-bit FNV hashes of a walk
    /// through the value that tags each value's kind and ends each string, hexadecimal).
    public static func fingerprint(of value: WidgetValue) -> String {
        var hash = Fingerprint()
        hash.add(value: value)
        return hash.hash.hexDigest
    }

    /// A walk through a value that tags each value's kind and ends each string, into ``StableHash/Wide``.
    private struct Fingerprint {
        var hash = StableHash.Wide()

        mutating func add(byte: UInt8) {
            hash.add(byte)
        }

        mutating func add(text: String) {
            var text = text
            text.withUTF8 { bytes in
                for byte in bytes { add(byte: byte) }
            }
            add(byte: 0)
        }

        mutating func add(value: WidgetValue) {
            switch value {
            case .null: add(byte: UInt8(ascii: "n"))
            case .bool(let flag): add(byte: flag ? UInt8(ascii: "t") : UInt8(ascii: "f"))
            case .number(let number):
                add(byte: UInt8(ascii: "#"))
                add(text: number.description)
            case .string(let text):
                add(byte: UInt8(ascii: "\""))
                add(text: text)
            case .array(let elements):
                add(byte: UInt8(ascii: "["))
                for element in elements { add(value: element) }
                add(byte: UInt8(ascii: "]"))
            case .object(let object):
                add(byte: UInt8(ascii: "{"))
                for position in object.keys.indices {
                    add(text: object.keys[position])
                    add(value: object.values[position])
                }
                add(byte: UInt8(ascii: "}"))
            }
        }
    }
}
