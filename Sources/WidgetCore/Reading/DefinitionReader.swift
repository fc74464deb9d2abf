public import Foundation
public import WidgetJSON
public import WidgetLiquid

/// Reads definition files into ``WidgetDefinition``s, reporting every problem it finds in one pass.
///
/// The reader is strict: unknown keys are errors with a "did you mean" hint, and every problem is a
/// ``Diagnostic`` that names the file, the line and column, the JSON path and a fix. The file's keys are
/// those of ``DefinitionDocument``, decoded by the ``OptionsDecoder`` past every problem; the reader adds
/// what depends on the file and the registry: the id from the file's name, the instances' ids, the
/// templates' secrets and limits, and the stages, checked against a ``StageRegistry`` by building each
/// widget's ``WidgetPipeline``.
///
/// ```swift
/// let result = DefinitionReader(registry: registry).read(data, file: "widgets.d/jotd.json")
/// for problem in result.diagnostics { print(problem) }
/// ```
public struct DefinitionReader: Sendable {
    /// The keys a definition may have at its top level: ``DefinitionDocument``'s.
    public static let topLevelKeys = DefinitionDocument.keys

    /// The keys of an instance in `instances`.
    public static let instanceKeys = DefinitionDocument.Instance.CodingKeys.allCases.map(\.rawValue)

    /// The keys every timeline accepts beside its own options.
    public static let timelineCommonKeys = TimelineDefinition.commonKeys

    /// Ids no widget may have: its snapshot and page would replace the output folder's `index.json` and
    /// `index.html`.
    public static let reservedIDs: Set<String> = ["index"]

    /// The keys of a request's `oauth2` block whose templates may read secrets (`env`, `secret`): the
    /// client's credentials. Its `tokenURL`, `scope` and `audience` may not.
    static let oauth2SecretKeys = ["clientID", "clientSecret", "refreshToken"]

    /// What ``isValidID(_:)`` accepts, as a regular expression.
    public static let idPattern = WidgetIDRule.pattern

    /// The rule ``isValidID(_:)`` checks, as a sentence for problems.
    static let idRule = WidgetIDRule.sentence

    /// Whether `id` matches ``idPattern``, `^[a-z0-9][a-z0-9._-]{0,63}$`.
    public static func isValidID(_ id: String) -> Bool { WidgetIDRule.isValid(id) }

    /// What a read produced: the widgets that are valid, the problems of those that are not, and the
    /// warnings about definitions that run but not as written.
    public struct Result: Sendable {
        /// One widget per valid definition (several for a definition with `instances`).
        public var widgets: [WidgetPipeline]
        /// Every problem found; a file with problems contributes no widget.
        public var diagnostics: [Diagnostic]
        /// Every warning (``Diagnostic/Severity/warning``), in line order; warnings never stop a widget.
        public var warnings: [Diagnostic]

        /// Creates a result from its widgets, its problems and its warnings.
        public init(widgets: [WidgetPipeline], diagnostics: [Diagnostic], warnings: [Diagnostic] = []) {
            self.widgets = widgets
            self.diagnostics = diagnostics
            self.warnings = warnings
        }
    }

    /// The stages definitions may name; every stage is checked against it.
    public let registry: StageRegistry
    /// The filters templates may use; names and argument counts are checked against it.
    public let filters: FilterRegistry
    /// The zone of definitions without `timeZone`.
    public let defaultTimeZone: TimeZone

    /// The secrets `{{ env.NAME }}` and `{{ secret.NAME }}` read; when set, a name it lacks is a validation
    /// error.
    public let environment: SecretStore?

    /// How the files stages need (a `path` source's file, a `command`'s program; see
    /// ``LocalFileDependent``) are looked up; when set, one that is missing, unreadable or not executable
    /// is a validation error. `widgetd validate` sets it; the daemon does not, so that a file that
    /// appears later is simply read by the next refresh.
    public var localFiles: LocalFileCheck?

    /// The steps templates may take (see `TemplateSteps`): those rendered while one file is checked
    /// (titles, placeholders, templates that read no data) together, and, through each definition's
    /// ``WidgetDefinition/templateStepLimit``, those of one refresh and of one gallery card.
    /// `TemplateSteps.defaultLimit` unless set; `--template-steps` sets it.
    public var templateStepLimit = TemplateSteps.defaultLimit

    /// The templates already compiled by this reader's other reads of the same load, when it shares them
    /// (see ``sharingTemplates()``).
    private var templateLibrary: TemplateLibrary?

    /// The stages already built by this reader's other reads of the same load, when it shares them (see
    /// ``sharingTemplates()``).
    private var stageLibrary: StageLibrary?

    /// The members of definitions already read by this reader's other reads of the same load, when it
    /// shares them (see ``sharingTemplates()``).
    private var memberLibrary: MemberLibrary?

    /// Creates a reader that checks stages against `registry`.
    ///
    /// - Parameters:
    ///   - registry: the stages definitions may name.
    ///   - filters: the filters templates may use; the standard set unless given.
    ///   - defaultTimeZone: the zone of definitions without `timeZone`; the machine's unless given.
    ///   - environment: the secrets templates read; when `nil`, secret names are not checked.
    ///   - localFiles: how the files stages need are looked up; when `nil`, they are not checked.
    public init(
        registry: StageRegistry,
        filters: FilterRegistry = .standard,
        defaultTimeZone: TimeZone = .current,
        environment: SecretStore? = nil,
        localFiles: LocalFileCheck? = nil
    ) {
        self.registry = registry
        self.filters = filters
        self.defaultTimeZone = defaultTimeZone
        self.environment = environment
        self.localFiles = localFiles
    }

    /// This reader, sharing the templates it compiles, the members it reads and the stages it builds among
    /// all its reads: for one load of a folder, whose files often repeat them (see `TemplateLibrary`,
    /// ``MemberLibrary`` and ``StageLibrary``). The problems and widgets are the same.
    package func sharingTemplates() -> DefinitionReader {
        var reader = self
        reader.templateLibrary = TemplateLibrary(filters: filters)
        reader.stageLibrary = StageLibrary()
        reader.memberLibrary = MemberLibrary()
        return reader
    }

    /// Reads one definition file.
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - file: the file as the user named it, used in diagnostics; its base name is the default id.
    public func read(_ data: Data, file: String) -> Result {
        // Comments and trailing commas become spaces, every position kept (see DefinitionText).
        let prepared = DefinitionText.prepare(data)
        if let start = prepared.unclosedComment {
            let problem = Diagnostic(
                file: file, location: start, path: nil, message: "this /* comment is never closed; end it with */")
            return Result(widgets: [], diagnostics: [problem])
        }
        let data = prepared.data
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
        for duplicate in prepared.duplicates {
            session.diagnostics.append(
                Diagnostic(
                    file: file, location: duplicate.second, path: duplicate.object.appending(duplicate.key),
                    message: "the key \"\(duplicate.key)\" is written twice in this object, first at \(duplicate.first); keep one"))
        }
        let definitions = session.readDefinitions(value)
        var widgets: [WidgetPipeline] = []
        for definition in definitions {
            if let pipeline = session.buildPipeline(definition) { widgets.append(pipeline) }
        }
        if !session.diagnostics.isEmpty { widgets = [] }
        return Result(
            widgets: widgets, diagnostics: Self.inLineOrder(session.diagnostics), warnings: Self.inLineOrder(session.warnings))
    }

    /// `diagnostics` in line order, each once: the instances of one definition share its stages, and
    /// their problems.
    static func inLineOrder(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        var seen: Set<Diagnostic> = []
        return diagnostics.enumerated().sorted { a, b in
            let left = a.element.location.map { ($0.line, $0.column) } ?? (0, 0)
            let right = b.element.location.map { ($0.line, $0.column) } ?? (0, 0)
            return left != right ? left < right : a.offset < b.offset
        }.map(\.element).filter { seen.insert($0).inserted }
    }

    /// The default id for a file: its base name without `.json`.
    public static func defaultID(forFile file: String) -> String {
        var name: String
        if !file.hasSuffix("/"), !file.containsBytes("//") {
            // No slashes to tidy: the name is what follows the last one (NSString's answer, without the
            // bridge).
            name =
                file.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(decoding: file.utf8[file.utf8.index(after: $0)...], as: UTF8.self) }
                ?? file
        } else {
            name = (file as NSString).lastPathComponent
        }
        if name.hasSuffix(".json") { name.removeLast(5) }
        return name
    }
}

// MARK: - One file

extension DefinitionReader {
    /// Where the value at `path` starts in a definition file's bytes — with `column`, the 1-based scalar
    /// column of an expression inside that string, added as the file writes it — or `nil` when the file
    /// has no such value.
    ///
    /// Used to place an error found while a widget runs, such as a template's missing variable, long after
    /// the file was read: the caller reads the file again, so the place is right while it is unchanged.
    public static func locate(_ path: ValuePath, column: Int?, in data: Data) -> SourceLocation? {
        let prepared = DefinitionText.prepare(data)
        guard let map = try? JSONReader.readWithLocations(prepared.data).1, var location = map.valueLocation(of: path) else {
            return nil
        }
        if let column { location.column = Session.fileColumn(ofScalar: column, inStringAt: location, source: prepared.data) }
        return location
    }

    struct Session {
        let file: String
        let reader: DefinitionReader
        /// Every template of the file, compiled once for the definition's keys, the stages and the checks.
        let templates: TemplateCache
        /// The file's bytes, to locate problems and to place columns inside strings with escapes.
        let source: Data
        var diagnostics: [Diagnostic] = []
        /// The warnings: definitions that run, but not as written.
        var warnings: [Diagnostic] = []
        /// The secrets the sources of the document being read use.
        var secretUses: Set<Template.SecretUse> = []
        /// The options whose templates may read secrets, by index in `transforms`, for the transforms
        /// whose stage sends requests of its own (``Stage/secretOptions``).
        var transformSecretOptions: [Int: [any CodingKey & Sendable]] = [:]
        /// The instances of the document being read, for the templates that read `params` (see
        /// ``checkParams(in:at:instances:)``); one without an id for a definition without instances.
        var parameterOwners: [(id: String?, index: Int, params: WidgetObject)] = []
        /// The `history` block of the document being read, for the templates that read `history` (itself
        /// `nil` when the document has none); `nil` when the block could not be read (that is reported, and
        /// its templates are not checked).
        var history: HistoryDefinition??
        /// Where every key and value starts, read from `source` when the first problem is reported.
        private var locations: SourceMap?
        /// The steps the templates rendered while the file is checked (titles, placeholders, constant
        /// templates) may take together: a file that loops forever is reported, once, instead of
        /// keeping its loader busy.
        let templateSteps: TemplateSteps

        init(file: String, reader: DefinitionReader, source: Data) {
            self.file = file
            self.reader = reader
            templates = TemplateCache(filters: reader.filters, library: reader.templateLibrary)
            templateSteps = TemplateSteps(limit: reader.templateStepLimit, for: "checking one definition file")
            self.source = source
        }

        // MARK: Reporting

        mutating func report(_ path: ValuePath, _ message: String, atKey: Bool = false, column: Int? = nil) {
            diagnostics.append(diagnostic(path, message, atKey: atKey, column: column))
        }

        /// Reports a warning: the definition runs, but not as written.
        mutating func warn(_ path: ValuePath, _ message: String) {
            var warning = diagnostic(path, message)
            warning.severity = .warning
            warnings.append(warning)
        }

        /// A diagnostic at `path` (its key, or its value; a column inside a string value when given).
        private mutating func diagnostic(_ path: ValuePath, _ message: String, atKey: Bool = false, column: Int? = nil) -> Diagnostic {
            if locations == nil { locations = (try? JSONReader.readWithLocations(source))?.1 ?? SourceMap() }
            let map = locations!
            var location = atKey ? map.keyLocation(of: path) : map.valueLocation(of: path)
            if let column, var base = location {
                // Inside a string value: the opening quote, then the expression's column as written.
                base.column = fileColumn(ofScalar: column, inStringAt: base)
                location = base
            }
            return Diagnostic(file: file, location: location, path: path, message: message)
        }

        /// The file column of the `scalar`-th (1-based) scalar of the string whose opening quote is at
        /// `quote`, counting escapes such as `\"` or `\u00e9` as they are written in the file.
        func fileColumn(ofScalar scalar: Int, inStringAt quote: SourceLocation) -> Int {
            Self.fileColumn(ofScalar: scalar, inStringAt: quote, source: source)
        }

        /// The file column of the `scalar`-th scalar of the string at `quote` in `source`.
        static func fileColumn(ofScalar scalar: Int, inStringAt quote: SourceLocation, source: Data) -> Int {
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

        // MARK: Definitions

        /// Reads the document, then what it means for this file: the id, the instances.
        mutating func readDefinitions(_ value: WidgetValue) -> [WidgetDefinition] {
            var userInfo: [CodingUserInfoKey: any Sendable] = [
                FilterRegistry.userInfoKey: reader.filters, TemplateCache.userInfoKey: templates,
            ]
            if let library = reader.memberLibrary { userInfo[MemberLibrary.userInfoKey] = library }
            let decoder = OptionsDecoder(userInfo: userInfo)
            var problems: [OptionsError] = []
            let read = decoder.decode(DefinitionDocument.self, from: value, problems: &problems)
            for problem in problems { report(problem, under: .root) }
            guard let document = read else { return [] }

            let id = document.id ?? DefinitionReader.defaultID(forFile: file)
            if document.id == nil, !DefinitionReader.isValidID(id) {
                report(
                    .root,
                    "the file name gives the id \"\(id)\", which is not valid; rename the file or add an \"id\" key; \(DefinitionReader.idRule)"
                )
            }
            if DefinitionReader.reservedIDs.contains(id), document.instances == nil {
                report(
                    document.id == nil ? .root : ValuePath.root.appending("id"),
                    "the id \"\(id)\" is taken by the output folder's own files (OUT/index.json and OUT/index.html list every widget); "
                        + (document.id == nil ? "rename the file or add an \"id\" key" : "choose another id"))
            }
            if document.instances == nil, let reason = WidgetIDRule.reservation(of: id) {
                report(document.id == nil ? .root : ValuePath.root.appending("id"), "the id \"\(id)\" is refused: \(reason)")
            }
            secretUses = []
            transformSecretOptions = [:]
            for transform in document.transforms {
                guard case .index(let index)? = transform.path.components.last,
                    let options = reader.registry.entry(.transformer, named: transform.typeName)?.secretOptions, !options.isEmpty
                else { continue }
                transformSecretOptions[index] = options
            }
            parameterOwners = document.instances?.map { ($0.id, $0.index, $0.params) } ?? [(nil, 0, [:])]
            history = value["history"] == nil || document.history != nil ? .some(document.history) : nil
            checkTemplates(value, at: .root, instances: document.instances?.map { ($0.id, $0.params) } ?? [(nil, [:])])
            // The widget's document: the zone resolved, the instances made into widgets of their own.
            // Without a readable source (reported) it reads a stand-in, and the other stages are still checked.
            var base = WidgetDefinition(id: id, document: document, file: file)
            base.timeZone = document.timeZone ?? reader.defaultTimeZone
            base.instances = nil
            base.secretUses = secretUses.sorted { $0.display < $1.display }
            base.templateStepLimit = reader.templateStepLimit
            var partials: [Template] = []
            if var view = document.view {
                let folder = TemplatePartialFolder(ViewDefinition.partialsFolder(forDefinitionFile: file), filters: reader.filters)
                view.partials = folder
                partials = checkPartials(of: view, in: folder)
                base.document.view = view
            }
            // A changed partial changes the widget, so that a reload renders its card again.
            base.fingerprint = WidgetDefinition.fingerprint(
                of: partials.isEmpty ? value : [value, .array(partials.map { .string($0.source) })])
            let schedulePath = value["schedule"] == nil ? nil : ValuePath.root.appending("schedule")
            guard let instances = document.instances else {
                renderDisplay(&base, instance: nil)
                checkBudget(base, schedulePath: schedulePath)
                return [base]
            }
            return instances.compactMap { instance in
                var definition = base
                definition.id = "\(base.id).\(instance.id)"
                guard DefinitionReader.isValidID(definition.id) else {
                    let path = ValuePath.root.appending("instances").appending(index: instance.index).appending("id")
                    report(path, "\"\(definition.id)\" is not a valid widget id; \(DefinitionReader.idRule)")
                    return nil
                }
                if let reason = WidgetIDRule.reservation(of: definition.id) {
                    let path = ValuePath.root.appending("instances").appending(index: instance.index).appending("id")
                    report(path, "the widget id \"\(definition.id)\" is refused: \(reason)")
                    return nil
                }
                // An instance's overrides replace the definition's values whole.
                definition.title = instance.title ?? definition.title
                definition.timeZone = instance.timeZone ?? definition.timeZone
                definition.schedule = instance.schedule ?? definition.schedule
                definition.placeholder = instance.placeholder ?? definition.placeholder
                definition.params = instance.params
                renderDisplay(&definition, instance: instance)
                let instancePath = ValuePath.root.appending("instances").appending(index: instance.index)
                checkBudget(definition, schedulePath: instance.schedule == nil ? schedulePath : instancePath.appending("schedule"))
                return definition
            }
        }

        /// Checks every template of the definition once parsed: see ``checkSecrets(in:at:instances:)`` and
        /// ``checkConstant(_:at:)``.
        mutating func checkTemplates(_ value: WidgetValue, at path: ValuePath, instances: [(id: String?, params: WidgetObject)]) {
            var components = path.components
            checkTemplates(value, at: &components, instances: instances)
        }

        /// Walks `value` with its place as a stack of components, made into a path for templates alone.
        private mutating func checkTemplates(
            _ value: WidgetValue,
            at components: inout [ValuePath.Component],
            instances: [(id: String?, params: WidgetObject)]
        ) {
            switch value {
            case .string(let text):
                guard text.hasTemplateMarkup, let template = try? templates.template(text) else { return }
                let path = ValuePath(components: components)
                let variables = template.variables
                checkNames(template, at: path)
                checkParams(in: template, at: path, instances: parameterOwners)
                if let history { checkHistory(in: template, at: path, history: history) }
                // Outside a source, only a template that names `env` or `secret` has anything to report.
                if secretsAllowed(at: path) || SecretStore.Namespace.allCases.contains(where: { variables.contains($0.rawValue) }) {
                    checkSecrets(in: template, at: path, instances: instances)
                }
                if variables.isEmpty { checkConstant(template, at: path) }
            case .array(let elements):
                for (index, element) in elements.enumerated() {
                    components.append(.index(index))
                    checkTemplates(element, at: &components, instances: instances)
                    components.removeLast()
                }
            case .object(let object):
                for (key, member) in object {
                    components.append(.key(key))
                    checkTemplates(member, at: &components, instances: instances)
                    components.removeLast()
                }
            default:
                break
            }
        }

        /// The names a template of a source or an input may read: there is no item there, so any other name
        /// is a mistake `validate` can see before the widget runs (with a "did you mean").
        static let fetchNames = StageContext.templateGlobals

        /// Reports names a source's or an input's template reads that nothing provides.
        mutating func checkNames(_ template: Template, at path: ValuePath) {
            guard case .key(let first)? = path.components.first, first == "source" || first == "inputs" else { return }
            for name in template.freeVariables.sorted() where !Self.fetchNames.contains(name) {
                let hint =
                    Suggestion.hint(for: name, among: Self.fetchNames) ?? "here templates read \(Self.fetchNames.joined(separator: ", "))"
                report(path, "the template reads '\(name)', which is not in scope here; \(hint)")
            }
        }

        /// `{{ env.NAME }}` and `{{ secret.NAME }}` are allowed in a source's `url`, `headers` and `body` only
        /// (and in the options a transform that sends requests names, see ``Stage/secretOptions``),
        /// with names known now (written, or from each instance's `params`) and filters that keep them whole.
        mutating func checkSecrets(in template: Template, at path: ValuePath, instances: [(id: String?, params: WidgetObject)]) {
            guard secretsAllowed(at: path) else {
                // Outside a source no secret is in scope: only a direct mention needs saying.
                if let namespace = SecretStore.Namespace.allCases.first(where: { template.variables.contains($0.rawValue) }) {
                    let places =
                        path.components.contains(.key("oauth2"))
                        ? "\"oauth2\"'s " + DefinitionReader.oauth2SecretKeys.map { "\"\($0)\"" }.joined(separator: ", ")
                        : path.components.first == .key("notify")
                            ? "a webhook's \"url\" and \"headers\" (a notification's body is kept in the widget's state)"
                            : "a source's \"url\", \"headers\" and \"body\""
                    report(
                        path,
                        "{{ \(namespace.rawValue).… }} may only be used in \(places), so that secrets never reach a snapshot; move it there"
                    )
                }
                return
            }
            // Inside a source every template is read: a computed name ([params.x]) could reach a secret too.
            let (uses, problems) = template.secretUses
            for problem in problems { report(path, problem) }
            secretUses.formUnion(uses)
            var reported: Set<String> = []
            for use in uses {
                for instance in instances {
                    guard let name = use.name.resolved(with: instance.params) else {
                        let owner = instance.id.map { "the instance \"\($0)\"" } ?? "this widget (it has no instances)"
                        report(
                            path,
                            "\(use.display) names no variable for \(owner): its params do not give that name as text; set it in \"instances\""
                        )
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
                            report(
                                path,
                                "the secret \(name) cannot be read: no secrets folder is given; pass --secrets DIR or run under systemd with LoadCredential=\(name):FILE"
                            )
                        }
                    }
                }
            }
        }

        /// A template that reads no variable renders the same every time, so it is rendered now: one that
        /// exceeds a limit (`{{ (1..99999) | join | replace: ' ', '…' }}`) would fail every refresh, and is
        /// reported instead. Templates that read data are bounded when they run (see `RenderBudget`).
        mutating func checkConstant(_ template: Template, at path: ValuePath) {
            // Once a template of the file spent the steps (and was reported), the others are not run.
            guard !templateSteps.isSpent else { return }
            var scope = TemplateScope(now: Date(timeIntervalSince1970: 0))
            scope.budget = RenderBudget()
            scope.steps = templateSteps
            do {
                _ = try template.render(scope)
            } catch
                where error.reason.contains("would make a text of") || error.reason.contains("would make a list of")
                || error.reason.contains("the range (")
                || TemplateSteps.isExhaustion(error)
            {
                report(path, "this template can never render: \(error)")
            } catch {
                // Other failures of a constant template (a date it cannot read, say) are left to the
                // refresh, which names them with the widget's clock and zone.
            }
        }

        /// Reads every partial `view` renders, and those they render in turn, reporting one that is missing
        /// or broken at the family that names it (at `view` itself when one template serves them all).
        ///
        /// - Returns: The partials read, in the order they were first named.
        @discardableResult
        mutating func checkPartials(of view: ViewDefinition, in folder: TemplatePartialFolder) -> [Template] {
            var read: [Template] = []
            let distinct = view.families == ViewDefinition.Family.homeScreen && Set(view.templates.values).count == 1
            for family in view.families {
                guard let template = view.templates[family] else { continue }
                var path = ValuePath.root.appending("view")
                if !distinct { path = path.appending(family.rawValue) }
                var pending = Array(template.partialNames.sorted())
                var seen = Set(pending)
                while !pending.isEmpty {
                    let name = pending.removeFirst()
                    do {
                        let partial = try folder.template(named: name)
                        read.append(partial)
                        for next in partial.partialNames.sorted() where seen.insert(next).inserted { pending.append(next) }
                    } catch {
                        report(path, error.description)
                    }
                }
                if distinct { break }
            }
            return read
        }

        /// Whether a template at `path` may read secrets: in a source's or input's `url`, `headers` and
        /// `body` and its `oauth2` block's credentials (``oauth2SecretKeys``), in a `notify` rule's
        /// webhook's `url` and `headers` (never its body, which is kept in the outbox), and in the
        /// ``Stage/secretOptions`` of a transform (there too, inside `oauth2`, only in its credentials).
        func secretsAllowed(at path: ValuePath) -> Bool {
            let components = path.components
            func oauth2Allowed(_ rest: ArraySlice<ValuePath.Component>) -> Bool {
                guard case .key(let key)? = rest.first else { return false }
                return DefinitionReader.oauth2SecretKeys.contains(key)
            }
            if components.count >= 3, case .key("transforms") = components[0], case .index(let index) = components[1],
                case .key(let option) = components[2]
            {
                if option == "oauth2", !oauth2Allowed(components.dropFirst(3)) { return false }
                return transformSecretOptions[index]?.contains { $0.stringValue == option } ?? false
            }
            func leafAllowed(_ rest: ArraySlice<ValuePath.Component>) -> Bool {
                guard case .key(let key)? = rest.first else { return false }
                if key == "oauth2" { return oauth2Allowed(rest.dropFirst()) }
                return key == "url" || key == "headers" || key == "body"
            }
            if case .key("source")? = components.first { return leafAllowed(components.dropFirst()) }
            if components.count >= 4, case .key("notify") = components[0], case .key("webhook") = components[2],
                case .key(let key) = components[3]
            {
                return key == "url" || key == "headers"
            }
            if components.count >= 3, case .key("inputs") = components[0] { return leafAllowed(components.dropFirst(2)) }
            return false
        }

        // MARK: Binding to stages

        mutating func buildPipeline(_ definition: WidgetDefinition) -> WidgetPipeline? {
            var failed = false
            // A source that could not be read is reported already; its stand-in names no stage.
            let unreadSource = definition.source.typeName.isEmpty ? definition.source.path : nil
            let pipeline = WidgetPipeline.build(
                definition, registry: reader.registry, filters: reader.filters, templates: templates, stages: reader.stageLibrary
            ) {
                error, base in
                failed = true
                if base != unreadSource { report(error, under: base) }
            }
            guard !failed, let pipeline else { return nil }
            checkLocalFiles(of: pipeline)
            return pipeline
        }
    }
}
