public import Foundation

/// Reads definition files into ``WidgetDefinition``s, reporting every problem it finds in one pass.
///
/// The reader is strict: unknown keys are errors with a "did you mean" hint, and every problem is a
/// ``Diagnostic`` that names the file, the line and column, the JSON path and a fix. Stage names and
/// options are checked against a ``StageRegistry`` by building each widget's ``WidgetPipeline``.
///
/// ```swift
/// let result = DefinitionReader(registry: registry).read(data, file: "widgets.d/jotd.json")
/// for problem in result.diagnostics { print(problem) }
/// ```
public struct DefinitionReader: Sendable {
    /// The keys a definition may have at its top level.
    public static let topLevelKeys = [
        "$schema", "id", "title", "description", "timeZone", "inputs", "source", "parser", "transforms",
        "timeline", "schedule", "staleAfter", "deadline", "fallback", "placeholder", "instances",
    ]

    /// The keys of an instance in `instances`.
    public static let instanceKeys = ["id", "title", "params"]

    /// The keys every timeline accepts beside its own options.
    public static let timelineCommonKeys = ["relevance", "url", "limit"]

    /// The id pattern, `^[a-z0-9][a-z0-9._-]{0,63}$`.
    public static func isValidID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard (1...64).contains(bytes.count) else { return false }
        func allowed(_ byte: UInt8, first: Bool) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"): !first
            default: false
            }
        }
        return bytes.enumerated().allSatisfy { allowed($0.element, first: $0.offset == 0) }
    }

    /// What a read produced: the widgets that are valid and the problems of those that are not.
    public struct Result: Sendable {
        /// One widget per valid definition (several for a definition with `instances`).
        public var widgets: [WidgetPipeline]
        /// Every problem found; a file with problems contributes no widget.
        public var diagnostics: [Diagnostic]
    }

    public let registry: StageRegistry
    public let filters: FilterRegistry
    /// The zone of definitions without `timeZone`.
    public let defaultTimeZone: TimeZone

    /// The secrets `{{ env.NAME }}` and `{{ secret.NAME }}` read; when set, a name it lacks is a validation
    /// error.
    public let environment: SecretStore?

    public init(
        registry: StageRegistry,
        filters: FilterRegistry = .standard,
        defaultTimeZone: TimeZone = .current,
        environment: SecretStore? = nil
    ) {
        self.registry = registry
        self.filters = filters
        self.defaultTimeZone = defaultTimeZone
        self.environment = environment
    }

    /// Reads one definition file.
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - file: the file as the user named it, used in diagnostics; its base name is the default id.
    public func read(_ data: Data, file: String) -> Result {
        // The fast reader first; locations are worked out only for a file that has problems.
        let value: WidgetValue
        do {
            value = try JSONReader.read(data)
        } catch {
            let problem = Diagnostic(
                file: file,
                location: error.location,
                path: nil,
                message: "the file is not valid JSON: \(error.reason); fix the syntax at this place"
            )
            return Result(widgets: [], diagnostics: [problem])
        }
        var session = Session(file: file, reader: self, source: data)
        let definitions = session.readDefinitions(value)
        var widgets: [WidgetPipeline] = []
        for definition in definitions {
            if let pipeline = session.buildPipeline(definition) { widgets.append(pipeline) }
        }
        if !session.diagnostics.isEmpty { widgets = [] }
        let ordered = session.diagnostics.enumerated().sorted { a, b in
            let left = a.element.location.map { ($0.line, $0.column) } ?? (0, 0)
            let right = b.element.location.map { ($0.line, $0.column) } ?? (0, 0)
            return left != right ? left < right : a.offset < b.offset
        }.map(\.element)
        return Result(widgets: widgets, diagnostics: ordered)
    }

    /// The default id for a file: its base name without `.json`.
    public static func defaultID(forFile file: String) -> String {
        var name = (file as NSString).lastPathComponent
        if name.hasSuffix(".json") { name.removeLast(5) }
        return name
    }
}

// MARK: - One file

extension DefinitionReader {
    struct Session {
        let file: String
        let reader: DefinitionReader
        /// The file's bytes, to locate problems and to place columns inside strings with escapes.
        let source: Data
        var diagnostics: [Diagnostic] = []
        /// Where every key and value starts, read from `source` when the first problem is reported.
        private var locations: SourceMap?

        init(file: String, reader: DefinitionReader, source: Data) {
            self.file = file
            self.reader = reader
            self.source = source
        }

        // MARK: Reporting

        mutating func report(_ path: ValuePath, _ message: String, atKey: Bool = false, column: Int? = nil) {
            if locations == nil { locations = (try? JSONReader.readWithLocations(source))?.1 ?? SourceMap() }
            let map = locations!
            var location = atKey ? map.keyLocation(of: path) : map.valueLocation(of: path)
            if let column, var base = location {
                // Inside a string value: the opening quote, then the expression's column as written.
                base.column = fileColumn(ofScalar: column, inStringAt: base)
                location = base
            }
            diagnostics.append(Diagnostic(file: file, location: location, path: path, message: message))
        }

        /// The file column of the `scalar`-th (1-based) scalar of the string whose opening quote is at
        /// `quote`, counting escapes such as `\"` or `\u00e9` as they are written in the file.
        func fileColumn(ofScalar scalar: Int, inStringAt quote: SourceLocation) -> Int {
            let lines = String(decoding: source, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            guard quote.line >= 1, quote.line <= lines.count else { return quote.column + scalar }
            let written = Array(lines[quote.line - 1].unicodeScalars.dropFirst(quote.column))
            func hexValue(at start: Int) -> UInt32? {
                guard start + 4 <= written.count else { return nil }
                return UInt32(String(String.UnicodeScalarView(written[start..<start + 4])), radix: 16)
            }
            var index = 0
            for _ in 1..<max(1, scalar) where index < written.count {
                guard written[index] == "\\", index + 1 < written.count else {
                    index += 1
                    continue
                }
                guard written[index + 1] == "u" else {
                    index += 2
                    continue
                }
                // `\uXXXX`, or a surrogate pair written as two of them for one scalar.
                let high = hexValue(at: index + 2)
                index += 6
                if let high, (0xD800...0xDBFF).contains(high), index + 1 < written.count,
                    written[index] == "\\", written[index + 1] == "u"
                {
                    index += 6
                }
            }
            return quote.column + 1 + index
        }

        mutating func report(_ error: OptionsError, under base: ValuePath) {
            report(
                base.appending(error.path),
                error.message,
                atKey: error.pointsAtKey,
                column: error.expressionColumn
            )
        }

        mutating func checkKeys(_ object: WidgetObject, at path: ValuePath, allowed: [String]) {
            for key in object.keys where !allowed.contains(key) {
                let hint = Suggestion.hint(for: key, among: allowed)
                    ?? "known keys: " + allowed.filter { !$0.hasPrefix("$") }.map { "'\($0)'" }.joined(separator: ", ")
                report(path.appending(key), "unknown key '\(key)'; \(hint)", atKey: true)
            }
        }

        mutating func string(_ value: WidgetValue?, at path: ValuePath, what: String) -> String? {
            guard let value else { return nil }
            guard case .string(let text) = value else {
                report(path, "\(what) must be a string, not \(value.typeName)")
                return nil
            }
            return text
        }

        // MARK: Definitions

        mutating func readDefinitions(_ value: WidgetValue) -> [WidgetDefinition] {
            guard case .object(let object) = value else {
                report(.root, "a definition must be a JSON object, not \(value.typeName); start the file with '{'")
                return []
            }
            let root = ValuePath.root
            checkKeys(object, at: root, allowed: DefinitionReader.topLevelKeys)

            // id
            var id = DefinitionReader.defaultID(forFile: file)
            if let written = string(object["id"], at: root.appending("id"), what: "the id") {
                id = written
                if !DefinitionReader.isValidID(written) {
                    report(root.appending("id"), "\"\(written)\" is not a valid id; \(Self.idRule)")
                }
            } else if object["id"] == nil, !DefinitionReader.isValidID(id) {
                report(root, "the file name gives the id \"\(id)\", which is not valid; rename the file or add an \"id\" key; \(Self.idRule)")
            }

            let title = string(object["title"], at: root.appending("title"), what: "the title")
            _ = string(object["description"], at: root.appending("description"), what: "the description")

            // timeZone
            var timeZone = reader.defaultTimeZone
            if let name = string(object["timeZone"], at: root.appending("timeZone"), what: "the time zone") {
                if let zone = TimeZone(identifier: name) {
                    timeZone = zone
                } else {
                    let hint = Suggestion.hint(for: name, among: TimeZone.knownTimeZoneIdentifiers)
                        ?? "use an IANA name such as \"America/New_York\" or \"UTC\""
                    report(root.appending("timeZone"), "\"\(name)\" is not a known time zone; \(hint)")
                }
            }

            let inputs = readInputs(object["inputs"], at: root.appending("inputs"))

            var source = StageSpec(typeName: "file", path: root.appending("source"))
            var sourceWhen: Template?
            if let value = object["source"] {
                if let read = readSource(value, at: root.appending("source")) { (source, sourceWhen) = read }
            } else {
                report(root, "the definition has no \"source\"; add e.g. \"source\": {\"url\": \"https://…\"} or {\"path\": \"data.json\"}")
            }

            var parser = StageSpec(typeName: "json", path: root.appending("parser"))
            if let value = object["parser"] {
                parser = readStageReference(value, at: root.appending("parser"), kind: .parser) ?? parser
            }

            var transforms: [StageSpec] = []
            if let value = object["transforms"] {
                if case .array(let list) = value {
                    for (index, element) in list.enumerated() {
                        let path = root.appending("transforms").appending(index: index)
                        if let spec = readStageReference(element, at: path, kind: .transformer, allowString: false) {
                            transforms.append(spec)
                        }
                    }
                } else {
                    report(root.appending("transforms"), "\"transforms\" must be an array of objects such as {\"type\": \"limit\", \"count\": 4}")
                }
            }

            let timeline = readTimeline(object["timeline"], at: root.appending("timeline"))
            let schedule = readSchedule(object["schedule"], at: root.appending("schedule"))

            var staleAfter: WidgetDuration?
            if let text = string(object["staleAfter"], at: root.appending("staleAfter"), what: "staleAfter") {
                staleAfter = WidgetDuration(text)
                if staleAfter == nil { report(root.appending("staleAfter"), WidgetDuration.problem(text)) }
            }

            var deadline = WidgetDefinition.defaultDeadline
            if let text = string(object["deadline"], at: root.appending("deadline"), what: "deadline") {
                if let read = WidgetDuration(text) {
                    if read.seconds < 1 || read.seconds > WidgetDefinition.maximumDeadline.seconds {
                        report(root.appending("deadline"), "a deadline is from 1s to 1h; write e.g. \"30s\" or \"5m\"")
                    } else {
                        deadline = read
                    }
                } else {
                    report(root.appending("deadline"), WidgetDuration.problem(text))
                }
            }

            let fallback = readFallback(object["fallback"], at: root.appending("fallback"))
            let placeholder = object["placeholder"]
            var instanceParams: [(id: String?, params: WidgetObject)] = [(nil, [:])]
            if case .array(let list)? = object["instances"] {
                instanceParams = list.compactMap { element in
                    guard case .object(let instance) = element else { return nil }
                    return (instance["id"]?.string, instance["params"]?.object ?? [:])
                }
            }
            checkTemplates(value, at: root, instances: instanceParams)

            let base = WidgetDefinition(
                id: id, title: title, timeZone: timeZone, inputs: inputs, source: source, sourceWhen: sourceWhen, parser: parser,
                transforms: transforms, timeline: timeline, schedule: schedule, staleAfter: staleAfter,
                deadline: deadline, fallback: fallback, placeholder: placeholder, file: file,
                fingerprint: WidgetDefinition.fingerprint(of: value)
            )
            guard let instancesValue = object["instances"] else { return [base] }
            return readInstances(instancesValue, at: root.appending("instances"), base: base)
        }

        static let idRule = "an id is 1 to 64 characters: lowercase letters, digits, '.', '_' or '-', starting with a letter or digit"

        // MARK: Stages

        /// `"json"` or `{"type": "json", …options}`.
        mutating func readStageReference(
            _ value: WidgetValue,
            at path: ValuePath,
            kind: StageKind,
            allowString: Bool = true,
            reservedKeys: [String] = []
        ) -> StageSpec? {
            switch value {
            case .string(let name) where allowString:
                return StageSpec(typeName: name, path: path)
            case .object(var object):
                guard case .string(let name)? = object["type"] else {
                    let example = kind == .transformer ? "{\"type\": \"limit\", \"count\": 4}" : "{\"type\": \"json\"}"
                    report(path, object["type"] == nil
                        ? "the \(kind) has no \"type\"; write e.g. \(example)"
                        : "\"type\" must be a string naming a registered \(kind)")
                    return nil
                }
                object["type"] = nil
                for key in reservedKeys { object[key] = nil }
                return StageSpec(typeName: name, options: object, path: path, typePath: path.appending("type"))
            default:
                let forms = allowString ? "a name such as \"json\" or an object with \"type\"" : "an object with \"type\""
                report(path, "the \(kind) must be \(forms), not \(value.typeName)")
                return nil
            }
        }

        /// `{"url": …}` is HTTP, `{"path": …}` a file, `{"type": NAME, …}` any fetcher; `when`, a template
        /// every source may have, is the pipeline's (see ``InputDefinition/when``), not the fetcher's.
        mutating func readSource(_ value: WidgetValue, at path: ValuePath, extraKeys: [String] = []) -> (spec: StageSpec, when: Template?)? {
            guard case .object(var object) = value else {
                report(path, "a source must be an object such as {\"url\": \"https://…\"}, not \(value.typeName)")
                return nil
            }
            for key in extraKeys { object[key] = nil }
            let when = object["when"].flatMap { template($0, at: path.appending("when")) }
            object["when"] = nil
            if case .string(let name)? = object["type"] {
                object["type"] = nil
                return (StageSpec(typeName: name, options: object, path: path, typePath: path.appending("type")), when)
            }
            if object["type"] != nil {
                report(path.appending("type"), "\"type\" must be a string naming a registered source")
                return nil
            }
            if object["url"] != nil { return (StageSpec(typeName: "http", options: object, path: path), when) }
            if object["path"] != nil { return (StageSpec(typeName: "file", options: object, path: path), when) }
            report(path, "a source needs \"url\" (HTTP), \"path\" (a local file) or \"type\" (a registered source)")
            return nil
        }

        mutating func readInputs(_ value: WidgetValue?, at path: ValuePath) -> [InputDefinition] {
            guard let value else { return [] }
            guard case .object(let object) = value else {
                report(path, "\"inputs\" must be an object of named sources, e.g. {\"daily\": {\"url\": \"…\"}}")
                return []
            }
            var inputs: [InputDefinition] = []
            for (name, input) in object {
                let inputPath = path.appending(name)
                guard let (source, when) = readSource(input, at: inputPath, extraKeys: ["parser"]) else { continue }
                var parser = StageSpec(typeName: "json", path: inputPath.appending("parser"))
                if let parserValue = input["parser"] {
                    parser = readStageReference(parserValue, at: inputPath.appending("parser"), kind: .parser) ?? parser
                }
                inputs.append(InputDefinition(name: name, source: source, parser: parser, when: when))
            }
            return inputs
        }

        mutating func readTimeline(_ value: WidgetValue?, at path: ValuePath) -> TimelineDefinition {
            guard let value else { return TimelineDefinition(stage: StageSpec(typeName: "single", path: path)) }
            guard let stage = readStageReference(value, at: path, kind: .timeline, reservedKeys: DefinitionReader.timelineCommonKeys) else {
                return TimelineDefinition(stage: StageSpec(typeName: "single", path: path))
            }
            var timeline = TimelineDefinition(stage: stage)
            if case .object(let object) = value {
                timeline.relevance = template(object["relevance"], at: path.appending("relevance"))
                timeline.url = template(object["url"], at: path.appending("url"))
                if let limit = object["limit"] {
                    if let count = limit.number?.int, count > 0 {
                        timeline.limit = count
                    } else {
                        report(path.appending("limit"), "\"limit\" must be a whole number of entries above 0, e.g. 4")
                    }
                }
            }
            return timeline
        }

        mutating func template(_ value: WidgetValue?, at path: ValuePath) -> Template? {
            guard let text = string(value, at: path, what: "a template") else { return nil }
            do throws(ExpressionError) {
                return try Template(text, filters: reader.filters)
            } catch {
                report(path, error.description, column: error.column)
                return nil
            }
        }

        // MARK: Schedule

        mutating func readSchedule(_ value: WidgetValue?, at path: ValuePath) -> Schedule {
            var schedule = Schedule()
            guard let value else { return schedule }
            switch value {
            case .string("atEnd"):
                schedule.rule = .atEnd
                return schedule
            case .string("never"):
                schedule.rule = .never
                return schedule
            case .string(let text):
                let hint = Suggestion.hint(for: text, among: ["atEnd", "never"])
                    ?? "write \"atEnd\", \"never\", or an object such as {\"every\": \"15m\"}"
                report(path, "\"\(text)\" is not a schedule; \(hint)")
                return schedule
            case .object(let object):
                let ruleKeys = ["every", "at", "cron"]
                checkKeys(object, at: path, allowed: ruleKeys + ["jitter", "maxPerDay", "allowFrequent"])
                let present = ruleKeys.filter { object[$0] != nil }
                if present.count > 1 {
                    report(path, "a schedule has one rule, but this one has \(present.map { "\"\($0)\"" }.joined(separator: " and ")); keep one")
                } else if present.isEmpty {
                    report(path, "the schedule has no rule; add \"every\", \"at\" or \"cron\", e.g. {\"every\": \"15m\"}")
                }
                if case .bool(let flag)? = object["allowFrequent"] {
                    schedule.allowFrequent = flag
                } else if object["allowFrequent"] != nil {
                    report(path.appending("allowFrequent"), "\"allowFrequent\" must be true or false")
                }
                if let text = string(object["every"], at: path.appending("every"), what: "\"every\"") {
                    if let interval = WidgetDuration(text), interval.seconds > 0 {
                        schedule.rule = .every(interval)
                        if interval.seconds < 300, !schedule.allowFrequent {
                            report(path.appending("every"), "\"\(text)\" is shorter than 5 minutes; add \"allowFrequent\": true if the source allows it, or use e.g. \"5m\"")
                        }
                    } else {
                        report(path.appending("every"), WidgetDuration.problem(text))
                    }
                }
                if let times = object["at"] {
                    let list: [WidgetValue] = times.array ?? [times]
                    var parsed: [TimeOfDay] = []
                    for (index, element) in list.enumerated() {
                        let elementPath = times.array == nil ? path.appending("at") : path.appending("at").appending(index: index)
                        if let text = element.string, let time = TimeOfDay(text) {
                            parsed.append(time)
                        } else {
                            report(elementPath, "\(element) is not a time of day; write e.g. \"08:00\" (24-hour HH:MM)")
                        }
                    }
                    if list.isEmpty { report(path.appending("at"), "\"at\" needs at least one time, e.g. [\"08:00\"]") }
                    schedule.rule = .at(Array(Set(parsed)).sorted())
                }
                if let text = string(object["cron"], at: path.appending("cron"), what: "\"cron\"") {
                    do throws(ExpressionError) {
                        let cron = try CronExpression(text)
                        schedule.rule = .cron(text)
                        if cron.shortestGapInMinutes < 5, !schedule.allowFrequent {
                            report(path.appending("cron"), "\"\(text)\" fires more often than every 5 minutes; add \"allowFrequent\": true if the source allows it, or use e.g. \"*/5 * * * *\"")
                        }
                    } catch {
                        report(path.appending("cron"), error.description, column: error.column)
                    }
                }
                if let text = string(object["jitter"], at: path.appending("jitter"), what: "\"jitter\"") {
                    schedule.jitter = WidgetDuration(text)
                    if schedule.jitter == nil { report(path.appending("jitter"), WidgetDuration.problem(text)) }
                }
                if let limit = object["maxPerDay"] {
                    if let count = limit.number?.int, count > 0 {
                        schedule.maxPerDay = count
                    } else {
                        report(path.appending("maxPerDay"), "\"maxPerDay\" must be a whole number above 0, e.g. 70")
                    }
                }
                return schedule
            default:
                report(path, "a schedule is \"atEnd\", \"never\" or an object such as {\"every\": \"15m\"}, not \(value.typeName)")
                return schedule
            }
        }

        // MARK: Fallback, instances, secrets

        mutating func readFallback(_ value: WidgetValue?, at path: ValuePath) -> FallbackPolicy {
            var policy = FallbackPolicy()
            guard let value else { return policy }
            guard case .object(let object) = value else {
                report(path, "\"fallback\" must be an object such as {\"keep\": 20, \"pick\": \"daily\"}")
                return policy
            }
            checkKeys(object, at: path, allowed: ["keep", "pick"])
            if let keep = object["keep"] {
                if let count = keep.number?.int, (1...10_000).contains(count) {
                    policy.keep = count
                } else {
                    report(path.appending("keep"), "\"keep\" must be a whole number from 1 to 10000")
                }
            }
            if let pick = string(object["pick"], at: path.appending("pick"), what: "\"pick\"") {
                if let choice = FallbackPolicy.Pick(rawValue: pick) {
                    policy.pick = choice
                } else {
                    let names = FallbackPolicy.Pick.allCases.map(\.rawValue)
                    let hint = Suggestion.hint(for: pick, among: names) ?? "use " + names.map { "\"\($0)\"" }.joined(separator: ", ")
                    report(path.appending("pick"), "\"\(pick)\" is not a pick rule; \(hint)")
                }
            }
            return policy
        }

        mutating func readInstances(_ value: WidgetValue, at path: ValuePath, base: WidgetDefinition) -> [WidgetDefinition] {
            guard case .array(let list) = value, !list.isEmpty else {
                report(path, "\"instances\" must be a non-empty array such as [{\"id\": \"home\", \"params\": {…}}]")
                return []
            }
            var definitions: [WidgetDefinition] = []
            var seen: Set<String> = []
            for (index, element) in list.enumerated() {
                let elementPath = path.appending(index: index)
                guard case .object(let object) = element else {
                    report(elementPath, "an instance must be an object with \"id\" and \"params\"")
                    continue
                }
                checkKeys(object, at: elementPath, allowed: DefinitionReader.instanceKeys)
                guard let suffix = string(object["id"], at: elementPath.appending("id"), what: "the instance id") else {
                    report(elementPath, "the instance has no \"id\"; add e.g. \"id\": \"home\"")
                    continue
                }
                var definition = base
                definition.id = "\(base.id).\(suffix)"
                if !DefinitionReader.isValidID(definition.id) {
                    report(elementPath.appending("id"), "\"\(definition.id)\" is not a valid widget id; \(Self.idRule)")
                    continue
                }
                if !seen.insert(suffix).inserted {
                    report(elementPath.appending("id"), "the instance id \"\(suffix)\" is used twice; give each instance its own id")
                    continue
                }
                if let title = string(object["title"], at: elementPath.appending("title"), what: "the title") {
                    definition.title = title
                }
                if let params = object["params"] {
                    if case .object(let paramsObject) = params {
                        definition.params = paramsObject
                    } else {
                        report(elementPath.appending("params"), "\"params\" must be an object of named values")
                    }
                }
                definitions.append(definition)
            }
            return definitions
        }

        /// Checks every template of the definition once parsed: see ``checkSecrets(in:at:instances:)`` and
        /// ``checkConstant(_:at:)``.
        mutating func checkTemplates(_ value: WidgetValue, at path: ValuePath, instances: [(id: String?, params: WidgetObject)]) {
            switch value {
            case .string(let text):
                guard text.containsBytes("{{"), let template = try? Template(text, filters: reader.filters) else { return }
                checkSecrets(in: template, at: path, instances: instances)
                if template.variables.isEmpty { checkConstant(template, at: path) }
            case .array(let elements):
                for (index, element) in elements.enumerated() {
                    checkTemplates(element, at: path.appending(index: index), instances: instances)
                }
            case .object(let object):
                for (key, member) in object { checkTemplates(member, at: path.appending(key), instances: instances) }
            default:
                break
            }
        }

        /// `{{ env.NAME }}` and `{{ secret.NAME }}` are allowed in a source's `url`, `headers` and `body` only,
        /// with names known now (written, or from each instance's `params`) and filters that keep them whole.
        mutating func checkSecrets(in template: Template, at path: ValuePath, instances: [(id: String?, params: WidgetObject)]) {
            guard Self.secretsAllowed(at: path) else {
                // Outside a source no secret is in scope: only a direct mention needs saying.
                if let namespace = SecretStore.Namespace.allCases.first(where: { template.variables.contains($0.rawValue) }) {
                    report(path, "{{ \(namespace.rawValue).… }} may only be used in a source's \"url\", \"headers\" and \"body\", so that secrets never reach a snapshot; move it there")
                }
                return
            }
            // Inside a source every template is read: a computed name ([params.x]) could reach a secret too.
            let (uses, problems) = template.secretUses
            for problem in problems { report(path, problem) }
            var reported: Set<String> = []
            for use in uses {
                for instance in instances {
                    guard let name = use.name.resolved(with: instance.params) else {
                        let owner = instance.id.map { "the instance \"\($0)\"" } ?? "this widget (it has no instances)"
                        report(path, "\(use.display) names no variable for \(owner): its params do not give that name as text; set it in \"instances\"")
                        continue
                    }
                    guard let environment = reader.environment, environment[use.namespace, name] == nil,
                        reported.insert("\(use.namespace).\(name)").inserted
                    else { continue }
                    switch use.namespace {
                    case .env:
                        report(path, "the environment variable \(name) is not set; export it before starting widgetd")
                    case .secret:
                        if let folder = environment.folder {
                            report(path, "the secret \(name) is not a file in the secrets folder \(folder); write it to \(folder)/\(name)")
                        } else {
                            report(path, "the secret \(name) cannot be read: no secrets folder is given; pass --secrets DIR or run under systemd with LoadCredential=\(name):FILE")
                        }
                    }
                }
            }
        }

        /// A template that reads no variable renders the same every time, so it is rendered now: one that
        /// exceeds a limit (`{{ (1..99999) | join | replace: ' ', '…' }}`) would fail every refresh, and is
        /// reported instead. Templates that read data are bounded when they run (see ``RenderBudget``).
        mutating func checkConstant(_ template: Template, at path: ValuePath) {
            var scope = TemplateScope(now: Date(timeIntervalSince1970: 0))
            scope.budget = RenderBudget()
            do {
                _ = try template.render(scope)
            } catch where error.reason.contains("would make a text of") || error.reason.contains("the range (") {
                report(path, "this template can never render: \(error)")
            } catch {
                // Other failures of a constant template (a date it cannot read, say) are left to the
                // refresh, which names them with the widget's clock and zone.
            }
        }

        static func secretsAllowed(at path: ValuePath) -> Bool {
            let components = path.components
            let allowedLeaves: Set<String> = ["url", "headers", "body"]
            func leafAllowed(_ rest: ArraySlice<ValuePath.Component>) -> Bool {
                guard case .key(let key)? = rest.first else { return false }
                return allowedLeaves.contains(key)
            }
            if case .key("source")? = components.first { return leafAllowed(components.dropFirst()) }
            if components.count >= 3, case .key("inputs") = components[0] { return leafAllowed(components.dropFirst(2)) }
            return false
        }

        // MARK: Binding to stages

        mutating func buildPipeline(_ definition: WidgetDefinition) -> WidgetPipeline? {
            var failed = false
            let pipeline = WidgetPipeline.build(definition, registry: reader.registry, filters: reader.filters) { error, base in
                failed = true
                report(error, under: base)
            }
            return failed ? nil : pipeline
        }
    }
}
