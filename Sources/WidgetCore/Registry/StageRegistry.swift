public import WidgetJSON

/// The map from the type names a definition writes (`"json"`, `"http"`, `"map"`) to stage implementations.
///
/// A registry is built once with a ``Builder``, checked (no two stages of a kind may share a name), and then
/// frozen: it is an immutable value shared by every pipeline.
///
/// ```swift
/// var builder = StageRegistry.Builder.withBuiltInStages()   // from WidgetStages
/// builder.register(TransmissionFetcher.self)
/// let registry = try builder.build()
/// ```
public struct StageRegistry: Sendable {
    /// One registered stage.
    public struct Entry: Sendable {
        /// What the stage is: a fetcher, parser, transformer or timeline.
        public let kind: StageKind
        /// The name definitions use for the stage (`http`, `map`), its ``Stage/typeName``.
        public let typeName: String
        /// One sentence on what the stage does, its ``Stage/summary``, for `widgetd schema`.
        public let summary: String
        /// The stage's options, when its `Options` describe their keys (``DescribedOptions``); `nil` when
        /// they do not, and the schema then accepts any options.
        public var options: ObjectShape? { describe() }
        /// The options whose templates may read secrets, its ``Stage/secretOptions``.
        public let secretOptions: [any CodingKey & Sendable]
        /// Whether the stage type adopts ``LocalFileDependent``: only its stages have files to look up.
        let needsLocalFiles: Bool
        /// Whether the stage type adopts ``CautionedStage``: only its stages have cautions to look up.
        let hasCautions: Bool
        /// Finds the description when asked: looking a conformance up costs more than most commands need.
        let describe: @Sendable () -> ObjectShape?
        let make: @Sendable (WidgetValue, OptionsDecoder) throws -> BuiltStage
    }

    /// A stage made by an entry, as the protocol of its kind: each kind registers only stages of its
    /// protocol, so a pipeline takes its stages from here without casting them.
    enum BuiltStage {
        case fetcher(any Fetcher)
        case parser(any Parser)
        case transformer(any Transformer)
        case timeline(any TimelineBuilder)

        /// The stage, whatever its kind.
        var stage: any Stage {
            switch self {
            case .fetcher(let stage): stage
            case .parser(let stage): stage
            case .transformer(let stage): stage
            case .timeline(let stage): stage
            }
        }

        var fetcher: (any Fetcher)? {
            if case .fetcher(let stage) = self { stage } else { nil }
        }

        var parser: (any Parser)? {
            if case .parser(let stage) = self { stage } else { nil }
        }

        var transformer: (any Transformer)? {
            if case .transformer(let stage) = self { stage } else { nil }
        }

        var timeline: (any TimelineBuilder)? {
            if case .timeline(let stage) = self { stage } else { nil }
        }
    }

    /// The entries by name, one table a kind, in the order of ``slot(_:)``: a kind is looked up for every
    /// stage of every definition, and hashing it (by its raw value, a string) cost more than the table.
    private let entries: [[String: Entry]]

    /// Where the table of `kind` is in `entries`.
    private static func slot(_ kind: StageKind) -> Int {
        switch kind {
        case .fetcher: 0
        case .parser: 1
        case .transformer: 2
        case .timeline: 3
        }
    }

    /// The key under which a registry building stages puts itself in `Decoder.userInfo`, so that a
    /// stage's options may name another stage (the `fetch` transform's `parser`).
    public static let userInfoKey = CodingUserInfoKey(rawValue: "widgetd.stageRegistry")!

    /// A registry with no stages.
    public static let empty = StageRegistry(entries: [:])

    private init(entries: [StageKind: [String: Entry]]) {
        var tables = [[String: Entry]](repeating: [:], count: StageKind.allCases.count)
        for (kind, table) in entries { tables[Self.slot(kind)] = table }
        self.entries = tables
    }

    /// The registered type names of `kind`, sorted.
    public func typeNames(of kind: StageKind) -> [String] {
        entries[Self.slot(kind)].keys.sorted()
    }

    /// The entry for `typeName` of `kind`.
    public func entry(_ kind: StageKind, named typeName: String) -> Entry? {
        entries[Self.slot(kind)][typeName]
    }

    /// Every entry, by kind then name.
    public var allEntries: [Entry] {
        StageKind.allCases.flatMap { kind in typeNames(of: kind).compactMap { entries[Self.slot(kind)][$0] } }
    }

    /// Creates the stage a definition names, decoding its options strictly.
    ///
    /// - Throws: ``OptionsError`` for an unknown type name (listing the known ones) or bad options.
    public func makeStage(
        _ kind: StageKind,
        typeName: String,
        options: WidgetValue,
        decoder: OptionsDecoder = OptionsDecoder()
    ) throws(OptionsError) -> any Stage {
        try makeBuiltStage(kind, typeName: typeName, options: options, decoder: decoder).stage
    }

    /// ``makeStage(_:typeName:options:decoder:)``, the stage as the protocol of its kind.
    func makeBuiltStage(
        _ kind: StageKind,
        typeName: String,
        options: WidgetValue,
        decoder: OptionsDecoder = OptionsDecoder()
    ) throws(OptionsError) -> BuiltStage {
        guard let entry = entries[Self.slot(kind)][typeName] else {
            let known = typeNames(of: kind)
            let list = known.map { "'\($0)'" }.joined(separator: ", ")
            throw OptionsError(
                path: ValuePath.root.appending("type"),
                message: "unknown \(kind) type '\(typeName)'; "
                    + (Suggestion.hint(for: typeName, among: known).map { "\($0) " } ?? "")
                    + (known.isEmpty ? "no \(kind) types are registered" : "known: \(list)")
            )
        }
        do {
            return try entry.make(options, decoder)
        } catch let error as OptionsError {
            throw error
        } catch let error as StageError {
            throw OptionsError(path: error.option.map { ValuePath.root.appending($0) } ?? .root, message: error.message)
        } catch let error as ExpressionError {
            throw OptionsError(path: .root, message: error.description, expressionColumn: error.column)
        } catch {
            throw OptionsError(path: .root, message: "\(error)")
        }
    }
}

// MARK: - Builder

extension StageRegistry {
    /// Collects stages, then checks and freezes them with ``build()``.
    public struct Builder: Sendable {
        private var pending: [Entry] = []

        /// An empty builder.
        public init() {}

        /// Registers a source stage.
        public mutating func register<S: Fetcher>(_ stage: S.Type) {
            add(.fetcher, stage) { .fetcher($0) }
        }

        /// Registers a parser stage.
        public mutating func register<S: Parser>(_ stage: S.Type) {
            add(.parser, stage) { .parser($0) }
        }

        /// Registers a transform stage.
        public mutating func register<S: Transformer>(_ stage: S.Type) {
            add(.transformer, stage) { .transformer($0) }
        }

        /// Registers a timeline stage.
        public mutating func register<S: TimelineBuilder>(_ stage: S.Type) {
            add(.timeline, stage) { .timeline($0) }
        }

        private mutating func add<S: Stage>(
            _ kind: StageKind, _ stage: S.Type,
            as built: @escaping @Sendable (S) -> BuiltStage
        ) {
            pending.append(
                Entry(
                    kind: kind, typeName: S.typeName, summary: S.summary, secretOptions: S.secretOptions,
                    needsLocalFiles: S.self is any LocalFileDependent.Type, hasCautions: S.self is any CautionedStage.Type,
                    describe: { Self.shape(of: S.Options.self) }
                ) {
                    options, decoder in
                    let decoded = try decoder.decode(S.Options.self, from: options)
                    return built(try S(options: decoded))
                }
            )
        }

        /// The shape of `options` when they describe their keys.
        private static func shape(of options: Any.Type) -> ObjectShape? {
            func shape<Options: DescribedOptions>(_ type: Options.Type) -> ObjectShape { Options.shape }
            return (options as? any DescribedOptions.Type).map { shape($0) }
        }

        /// Checks the registrations and returns the frozen registry.
        ///
        /// - Throws: ``RegistryError`` when two stages of one kind share a type name, or a name is empty.
        public func build() throws(RegistryError) -> StageRegistry {
            var entries: [StageKind: [String: Entry]] = [:]
            var problems: [String] = []
            for entry in pending {
                if entry.typeName.isEmpty {
                    problems.append("a \(entry.kind) stage has an empty type name")
                } else if entries[entry.kind]?[entry.typeName] != nil {
                    problems.append("two \(entry.kind) stages are named '\(entry.typeName)'")
                } else {
                    entries[entry.kind, default: [:]][entry.typeName] = entry
                }
            }
            if !problems.isEmpty { throw RegistryError(problems: problems) }
            return StageRegistry(entries: entries)
        }
    }
}

/// Registrations that cannot be frozen into a registry.
public struct RegistryError: Error, Sendable, CustomStringConvertible {
    /// Each registration problem as a sentence fragment: `two parser stages are named 'json'`.
    public var problems: [String]

    public var description: String {
        "The stage registry is invalid: " + problems.joined(separator: "; ") + "; give each stage a unique type name."
    }
}
