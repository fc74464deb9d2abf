public import Foundation
public import WidgetJSON

/// A definition file as written: every key of the format, each read and checked, before the file's name
/// and the stage registry are brought in.
///
/// This type is the format's one description. Its ``CodingKeys`` say what each key means, its JSON shape
/// and default; decoding reads exactly those keys through the ``OptionsDecoder`` (so unknown keys, "did you
/// mean" hints and paths come from the same place as a stage's options); `widgetd schema` is made from the
/// same descriptions (``DefinitionSchema``), and so is the table of keys the documentation (the Definitions article) copies
/// (``DefinitionSchema/keyTable``); ``DefinitionReader`` turns a document into widgets, each a
/// ``WidgetDefinition`` that holds its document and reads its keys as its own. A new key is declared here
/// alone: a stored property, a case of ``CodingKeys`` with its description, and a line of `init(from:)`.
///
/// ```swift
/// var problems: [OptionsError] = []
/// let document = OptionsDecoder().decode(DefinitionDocument.self, from: value, problems: &problems)
/// ```
public struct DefinitionDocument: Sendable {
    /// The JSON Schema the file names for editors (`$schema`); not used.
    public var schema: String?
    /// The id the file sets, if it sets one.
    public var id: String?
    /// The display title, if the file sets one.
    public var title: String?
    public var description: String?
    /// The zone the file names; `nil` for the machine's.
    public var timeZone: TimeZone?
    /// The named extra sources, in the order they are written; empty without `inputs`.
    public var inputs: [InputDefinition] = []
    /// The main source; `nil` when it is missing or could not be read (a problem says which).
    public var source: SourceReference?
    /// The main source's parser; `json` when the file names none.
    public var parser = StageSpec(typeName: WidgetDefinition.defaultParser, path: ValuePath.root.appending("parser"))
    /// The transforms, in the order they are applied.
    public var transforms: [StageSpec] = []
    /// How entries are dated; the `single` timeline when the file names none.
    public var timeline = TimelineDefinition()
    /// When to refresh; every hour when the file has no `schedule`.
    public var schedule = Schedule()
    /// After how long data counts as stale (a stale widget refreshes at start-up); `nil` for never.
    public var staleAfter: WidgetDuration?
    /// How long one refresh may take, every stage together: one minute unless the file sets 1s to 1h.
    public var deadline = WidgetDefinition.defaultDeadline
    /// What to serve when a refresh fails; by default the last good data.
    public var fallback = FallbackPolicy()
    /// Content served before there has ever been data, any JSON value; `nil` when the file sets none.
    public var placeholder: WidgetValue?
    /// The instances, when the definition makes several widgets.
    public var instances: [Instance]?
    /// How the gallery page shows an entry; `nil` for the generic card.
    public var view: ViewDefinition?
    /// When to send a notification and where (see ``NotifyRule``), in the order written; empty without
    /// `notify`. Instances inherit the rules.
    public var notify: [NotifyRule] = []
    /// The values each fresh refresh adds to the widget's series; `nil` when the file keeps none.
    public var history: HistoryDefinition?

    /// A document with no source and every other key at the default a file that does not write it gets.
    public init() {}

    /// One widget of a definition with `instances`: `{"id": "home", "title": …, "params": {…}}`.
    ///
    /// An instance may override the definition's `title`, `timeZone`, `schedule` and `placeholder`; each
    /// override replaces the definition's value whole (a `schedule` is not merged key by key).
    public struct Instance: Sendable {
        /// Where the instance is in `instances`.
        public var index: Int
        /// The suffix added to the definition's id: `bitdream` + `home` is `bitdream.home`.
        public var id: String
        /// The instance's display title (a template, like the definition's), used instead of the
        /// definition's; `nil` to keep the definition's.
        public var title: String?
        /// The instance's time zone, used instead of the definition's; `nil` to keep the definition's.
        public var timeZone: TimeZone?
        /// The instance's schedule, used instead of the definition's; `nil` to keep the definition's.
        public var schedule: Schedule?
        /// The instance's placeholder (its strings templates, like the definition's), used instead of the
        /// definition's; `nil` to keep the definition's.
        public var placeholder: WidgetValue?
        /// The values templates read as `params.NAME`.
        public var params: WidgetObject
    }
}

// MARK: - The keys

extension DefinitionDocument: DescribedOptions {
    public enum CodingKeys: String, DescribedKey {
        case schema = "$schema"
        case id, title, description, timeZone, inputs, source, parser, transforms, timeline, schedule
        case staleAfter, deadline, fallback, placeholder, instances, view, notify
        case history

        public var keyDescription: KeyDescription {
            switch self {
            case .schema:
                KeyDescription(
                    "The JSON Schema this file follows, for editors (the output of 'widgetd schema'); widgetd ignores it.", .string())
            case .id:
                KeyDescription(
                    "The widget's id, 1 to 64 lowercase letters, digits, '.', '_' or '-'; the file name without .json when absent.",
                    .string(pattern: WidgetIDRule.pattern)
                )
            case .title:
                KeyDescription(
                    "The display title; a template rendered once, when the definition loads, with params and widget (id, timeZone).",
                    .string())
            case .description:
                KeyDescription("What the widget shows, for people reading the file.", .string())
            case .timeZone:
                KeyDescription(
                    "The IANA time zone of schedules and date templates; the machine's zone when absent.",
                    .string(pattern: DefinitionDocument.timeZonePattern, examples: ["UTC"] + TimeZone.knownTimeZoneIdentifiers)
                )
            case .inputs:
                KeyDescription(
                    "Named extra sources, fetched first, in order, each with its own parser; later templates read them as inputs.NAME.",
                    .map(.reference("input"))
                )
            case .source:
                KeyDescription(
                    "The main fetch: {\"url\": …} is HTTP, {\"path\": …} a file relative to the definition's folder, {\"type\": NAME, …} any registered source.",
                    .reference("source"), required: true
                )
            case .parser:
                KeyDescription(
                    "How the source's payload is read: a parser's name, or an object with \"type\" and its options.",
                    .reference("parser"), default: .string(WidgetDefinition.defaultParser)
                )
            case .transforms:
                KeyDescription(
                    "Transforms applied in order, each an object with \"type\" and its options.", .array(.reference("transform")))
            case .timeline:
                KeyDescription(
                    "How entries are dated: a timeline's name, or an object with \"type\", its options and the per-entry relevance, url and limit.",
                    .reference("timeline"), default: .string(WidgetDefinition.defaultTimeline)
                )
            case .schedule:
                KeyDescription(
                    "When to refresh: \"atEnd\" (after the last entry), \"never\" (only when asked), or an object with one rule: every, at or cron.",
                    .either([.oneOf(Schedule.words.map(\.word)), .object(Schedule.shape)]),
                    default: ["every": .string(Schedule.defaultInterval.description)]
                )
            case .staleAfter:
                KeyDescription("Data older than this is served as stale; a stale or missing widget refreshes at start-up.", .duration)
            case .deadline:
                KeyDescription(
                    "How long one refresh may take, every stage together, from 1s to 1h; past it the refresh is stopped.",
                    .duration, default: .string(WidgetDefinition.defaultDeadline.description)
                )
            case .fallback:
                KeyDescription("What to serve when a refresh fails.", .object(FallbackPolicy.shape))
            case .placeholder:
                KeyDescription(
                    "Content served before there has ever been data; its strings are templates rendered once, when the definition loads, with params and widget.",
                    .any)
            case .instances:
                KeyDescription(
                    "One definition, several widgets: each instance's id is added to the widget's (NAME.ID) and templates read its params as params.NAME.",
                    .array(.object(Instance.shape), minItems: 1)
                )
            case .view:
                KeyDescription(
                    "How the gallery page shows an entry: a Liquid template giving an HTML fragment (widget, status, entry and now in scope, partials from the views folder), or one per family: small, medium, large, extraLarge and the lock screen's accessoryCircular, accessoryRectangular, accessoryInline, with supportedFamilies to list those the widget offers.",
                    ViewDefinition.valueShape
                )
            case .notify:
                KeyDescription(
                    "Notifications: each rule fires when the status changes (on: status, to), the value at a path changes (on: change, path) or a condition becomes true (on: condition, if), and sends its webhook (url, method, headers, body).",
                    .array(.object(NotifyRule.shape))
                )
            case .history:
                KeyDescription(
                    "Values kept as series, one point per fresh refresh: {\"keep\": \"7d\", \"points\": 1000, \"values\": {\"total\": \"$.totalValue\"}}; templates read history.NAME, a list of points {at, value}, and OUT/ID.history.json holds them.",
                    .object(HistoryDefinition.shape)
                )
            }
        }
    }

    /// The keys a definition may have at its top level.
    public static let keys = CodingKeys.allCases.map(\.rawValue)

    /// What an IANA zone name looks like (`Europe/Paris`, `America/Argentina/Buenos_Aires`, `UTC`, `GMT+2`).
    /// Only names Foundation knows are accepted when read.
    static let timeZonePattern = "^[A-Z][A-Za-z0-9_+-]*(/[A-Z][A-Za-z0-9_+-]*)*(:[0-9]{2})?$"
}

extension DefinitionDocument.Instance: DescribedOptions {
    public enum CodingKeys: String, DescribedKey {
        case id, title, timeZone, schedule, placeholder, params

        public var keyDescription: KeyDescription {
            switch self {
            case .id:
                KeyDescription(
                    "Added to the definition's id with a dot: \"home\" makes NAME.home.", .string(pattern: "^[a-z0-9._-]{1,63}$"),
                    required: true)
            case .title:
                KeyDescription(
                    "The instance's display title, instead of the definition's; a template rendered with this instance's params.",
                    .string())
            case .timeZone:
                KeyDescription(
                    "The instance's time zone, instead of the definition's.", DefinitionDocument.CodingKeys.timeZone.keyDescription.shape)
            case .schedule:
                KeyDescription(
                    "The instance's schedule, instead of the definition's (replaced whole, not merged).",
                    DefinitionDocument.CodingKeys.schedule.keyDescription.shape)
            case .placeholder:
                KeyDescription(
                    "The instance's placeholder, instead of the definition's; its strings are templates rendered with this instance's params.",
                    .any)
            case .params:
                KeyDescription("Values templates read as params.NAME.", .map(.any))
            }
        }
    }
}

// MARK: - Decoding

extension DefinitionDocument: Decodable {
    public init(from decoder: any Decoder) throws {
        let members = try DescribedMembers(ValueDecoder(decoder), keyedBy: CodingKeys.self) {
            "a definition must be a JSON object, not \($0); start the file with '{'"
        }
        schema = try members.string(.schema, what: "\"$schema\"")
        id = try members.string(.id, what: "the id")
        if let id, !WidgetIDRule.isValid(id) {
            try members.report(.id, "\"\(id)\" is not a valid id; \(WidgetIDRule.sentence)")
        }
        title = try members.string(.title, what: "the title")
        description = try members.string(.description, what: "the description")
        timeZone = try members.timeZone(.timeZone)
        // Members files written alike repeat are read once for the load, when it shares them.
        let library = members.decoder.userInfo[MemberLibrary.userInfoKey] as? MemberLibrary
        inputs = try members.decode(.inputs, as: Inputs.self, sharedIn: library)?.list ?? []
        source = try members.decode(.source)
        if !members.contains(.source) {
            try members.report(
                nil, "the definition has no \"source\"; add e.g. \"source\": {\"url\": \"https://…\"} or {\"path\": \"data.json\"}")
        }
        parser = try members.decode(.parser, as: ParserReference.self, sharedIn: library)?.stage ?? parser
        transforms = try members.decode(.transforms, as: Transforms.self, sharedIn: library)?.list ?? []
        timeline = try members.decode(.timeline, sharedIn: library) ?? timeline
        schedule = try members.decode(.schedule, sharedIn: library) ?? schedule
        staleAfter = try members.duration(.staleAfter, what: "staleAfter")
        if let written = try members.duration(.deadline, what: "deadline") {
            if written.seconds < 1 || written > WidgetDefinition.maximumDeadline {
                try members.report(.deadline, "a deadline is from 1s to 1h; write e.g. \"30s\" or \"5m\"")
            } else {
                deadline = written
            }
        }
        fallback = try members.decode(.fallback, sharedIn: library) ?? fallback
        placeholder = members.value(.placeholder)
        instances = try members.decode(.instances, as: Instances.self)?.list
        view = try members.decode(.view)
        notify = try members.decode(.notify, as: NotifyRules.self)?.list ?? []
        history = try members.decode(.history)
    }
}

/// `inputs`: named sources, in the order they are written.
private struct Inputs: Decodable {
    var list: [InputDefinition] = []

    init(from decoder: any Decoder) throws {
        let decoder = try ValueDecoder(decoder)
        // The names are the user's: the object is not checked for unknown keys.
        guard case .object(let object) = decoder.value else {
            throw OptionsError(
                path: decoder.path, message: "\"inputs\" must be an object of named sources, e.g. {\"daily\": {\"url\": \"…\"}}")
        }
        for (name, value) in object {
            let member = decoder.child(value, key: AnyCodingKey(name))
            if let input = try decoder.recovering({ try InputDefinition(from: member) }) { list.append(input) }
        }
    }
}

/// `transforms`: stage references, in order.
private struct Transforms: Decodable {
    var list: [StageSpec] = []

    init(from decoder: any Decoder) throws {
        let decoder = try ValueDecoder(decoder)
        guard case .array(let elements) = decoder.value else {
            throw OptionsError(
                path: decoder.path,
                message: "\"transforms\" must be an array of objects such as {\"type\": \"limit\", \"count\": 4}"
            )
        }
        for (index, element) in elements.enumerated() {
            let member = decoder.child(element, index: index)
            if let transform = try decoder.recovering({ try TransformReference(from: member) }) { list.append(transform.stage) }
        }
    }
}

/// `instances`: a non-empty array of instances with distinct ids.
private struct Instances: Decodable {
    var list: [DefinitionDocument.Instance] = []

    init(from decoder: any Decoder) throws {
        let decoder = try ValueDecoder(decoder)
        guard case .array(let elements) = decoder.value, !elements.isEmpty else {
            throw OptionsError(
                path: decoder.path,
                message: "\"instances\" must be a non-empty array such as [{\"id\": \"home\", \"params\": {…}}]"
            )
        }
        var seen: Set<String> = []
        for (index, element) in elements.enumerated() {
            let member = decoder.child(element, index: index)
            guard let instance = try decoder.recovering({ try DefinitionDocument.Instance(reading: member, index: index) }) else {
                continue
            }
            guard seen.insert(instance.id).inserted else {
                try decoder.report(
                    OptionsError(
                        path: member.path.appending("id"),
                        message: "the instance id \"\(instance.id)\" is used twice; give each instance its own id"
                    ))
                continue
            }
            list.append(instance)
        }
    }
}

extension DefinitionDocument.Instance {
    init?(reading decoder: ValueDecoder, index: Int) throws {
        let members = try DescribedMembers(decoder, keyedBy: CodingKeys.self) { _ in
            "an instance must be an object with \"id\" and \"params\""
        }
        let id = try members.string(.id, what: "the instance id")
        title = try members.string(.title, what: "the title")
        timeZone = try members.timeZone(.timeZone)
        schedule = try members.decode(.schedule)
        placeholder = members.value(.placeholder)
        params = [:]
        if let written = members.value(.params) {
            if case .object(let object) = written {
                params = object
            } else {
                try members.report(.params, "\"params\" must be an object of named values")
            }
        }
        guard let id else {
            if !members.contains(.id) { try members.report(nil, "the instance has no \"id\"; add e.g. \"id\": \"home\"") }
            return nil
        }
        self.id = id
        self.index = index
    }
}
