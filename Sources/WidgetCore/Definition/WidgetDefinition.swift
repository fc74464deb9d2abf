public import Foundation
public import WidgetJSON
public import WidgetLiquid

/// A widget as its definition file describes it, checked but not yet bound to stage implementations.
///
/// A widget is its ``DefinitionDocument`` — every key of the file, read and checked, with an instance's
/// overrides applied and its title and placeholder rendered — and what the file alone does not say: the
/// id, the instance's ``params``, the file, a fingerprint and the secrets its sources read. The document's
/// keys read as the widget's own (`definition.deadline`, `definition.schedule`): a key added to the
/// document is a key of every widget, with nothing to copy here.
///
/// Read one with ``DefinitionReader``; turn it into running stages with ``WidgetPipeline``.
///
/// ```swift
/// let source = StageSpec(typeName: "http", options: ["url": "https://…"], path: ValuePath.root.appending("source"))
/// var definition = WidgetDefinition(id: "news", source: source)
/// definition.schedule = Schedule(rule: .every(WidgetDuration(seconds: 900)))
/// ```
@dynamicMemberLookup
public struct WidgetDefinition: Sendable {
    /// A refresh's `deadline` unless the definition sets one: one minute.
    public static let defaultDeadline = WidgetDuration(seconds: 60)
    /// The longest `deadline` a definition may set: one hour.
    public static let maximumDeadline = WidgetDuration(seconds: 3_600)
    /// The parser of a source that names none.
    public static let defaultParser = "json"
    /// The timeline of a definition that names none.
    public static let defaultTimeline = "single"

    /// The widget's id: the file name without `.json`, the `id` key, or either plus an instance suffix.
    public var id: String
    /// The definition's keys, as read and checked: the defaults filled in (the reader's zone for a file
    /// without `timeZone`), an instance's overrides applied, the title and the placeholder's templates
    /// rendered with the widget's ``params`` when the definition was read (they see `params` and `widget`
    /// only, never data), and no `instances` (each is a widget of its own). Each key reads as a member of
    /// the widget (see ``subscript(dynamicMember:)``).
    public var document: DefinitionDocument
    /// The instance parameters, for a widget made from one of a definition's `instances`.
    public var params: WidgetObject = [:]
    /// The file the definition came from, as the user named it (`widgets.d/jotd.json`).
    public var file: String
    /// A fingerprint of the definition as written (128 bits), to notice changes on reload without keeping
    /// the whole document.
    public var fingerprint: String
    /// The secrets (`{{ env.NAME }}`, `{{ secret.NAME }}`) its sources and its `notify` webhooks read,
    /// names from `params` included: their values are masked in every error of its refreshes and its
    /// notifications (``redact(_:secrets:)``).
    public var secretUses: [Template.SecretUse] = []
    /// The steps its templates may take (see `TemplateSteps`): all those of one refresh together, and
    /// the views of one gallery card together. The reader that made it sets it
    /// (``DefinitionReader/templateStepLimit``, `--template-steps`).
    public var templateStepLimit = TemplateSteps.defaultLimit

    /// A key of the widget's ``document``, read and written as the widget's own: `definition.title`,
    /// `definition.deadline`, `definition.timeline.stage`.
    ///
    /// Inside an extension of `WidgetDefinition`, write `self.deadline`: Swift looks a dynamic member up
    /// only after a dot.
    public subscript<Value>(dynamicMember key: WritableKeyPath<DefinitionDocument, Value>) -> Value {
        get { document[keyPath: key] }
        set { document[keyPath: key] = newValue }
    }

    /// The zone for schedules and date templates: the document's, or the machine's when it names none.
    public var timeZone: TimeZone {
        get { document.timeZone ?? .current }
        set { document.timeZone = newValue }
    }

    /// The main source; a stand-in that names no stage when the document has none (the reader reports
    /// that, and still checks the other stages).
    public var source: StageSpec {
        get { document.source?.stage ?? StageSpec(typeName: "", path: ValuePath.root.appending("source")) }
        set { document.source = SourceReference(stage: newValue, when: document.source?.when) }
    }

    /// The main source's `when`: a template that decides whether it is fetched at all (see
    /// ``InputDefinition/when``); `nil` when the source is always fetched.
    public var sourceWhen: Template? {
        get { document.source?.when }
        set { document.source = SourceReference(stage: source, when: newValue) }
    }

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

    /// Creates the widget `id` from a checked `document`.
    ///
    /// - Parameters:
    ///   - id: the widget's id.
    ///   - document: its keys; a document made with ``DefinitionDocument/init()`` has every default a
    ///     definition file gets.
    ///   - file: the file it came from, as the user named it.
    ///   - fingerprint: a fingerprint of the definition as written.
    public init(id: String, document: DefinitionDocument, file: String = "", fingerprint: String = "") {
        self.id = id
        self.document = document
        self.file = file
        self.fingerprint = fingerprint
    }

    /// Creates the widget `id` that fetches `source`, with every other key at the default a definition file
    /// gets (the `json` parser, a `single` timeline, the default schedule, deadline and fallback); set the
    /// others afterwards (`definition.transforms = […]`).
    public init(id: String, source: StageSpec) {
        var document = DefinitionDocument()
        document.source = SourceReference(stage: source)
        self.init(id: id, document: document)
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
