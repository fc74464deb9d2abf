import WidgetJSON
import WidgetLiquid

/// Where a decoder is: the root, or a key or index below its parent. Made once per member decoded, and
/// turned into a coding path only when a problem needs one.
final class CodingPathNode {
    enum Step {
        case key(any CodingKey)
        case index(Int)
    }

    let parent: CodingPathNode?
    let step: Step?
    // A node belongs to one synchronous decode on one thread: its state needs no exclusivity checks.
    /// The object opened at this place, so that opening it again asks into the same one.
    @exclusivity(unchecked) var container: KeyTracker.Container?
    /// Whether the object here was read whole (as a `WidgetValue`): its members are someone else's.
    @exclusivity(unchecked) var claimed = false

    init(parent: CodingPathNode?, step: Step?) {
        self.parent = parent
        self.step = step
    }

    var codingPath: [any CodingKey] {
        var keys: [any CodingKey] = []
        var current: CodingPathNode? = self
        while let node = current {
            switch node.step {
            case .key(let key)?: keys.append(key)
            case .index(let index)?: keys.append(AnyCodingKey(index: index))
            case nil: break
            }
            current = node.parent
        }
        return keys.reversed()
    }

    var path: ValuePath {
        // Counted first, so that the array is allocated once; collected from here up, then reversed in
        // place.
        var depth = 0
        var current: CodingPathNode? = self
        while let node = current {
            if node.step != nil { depth += 1 }
            current = node.parent
        }
        var components: [ValuePath.Component] = []
        components.reserveCapacity(depth)
        current = self
        while let node = current {
            switch node.step {
            case .key(let key)?: components.append(key.intValue.map(ValuePath.Component.index) ?? .key(key.stringValue))
            case .index(let index)?: components.append(.index(index))
            case nil: break
            }
            current = node.parent
        }
        components.reverse()
        return ValuePath(components: components)
    }
}

/// Records, for each object the decoded type opened, which keys it asked for; and, when reading on past
/// problems, the problems so far.
final class KeyTracker: @unchecked Sendable {
    // Only used during one synchronous decode on one thread.
    /// One object a type opened, and which of its keys it asked for.
    final class Container {
        let node: CodingPathNode
        let object: WidgetObject
        /// The key types the object was opened with, in order: more than one when options read a shared
        /// part from the same object (`RequestOptions` inside a stage's options).
        @exclusivity(unchecked) private(set) var keyTypes: [any CodingKey.Type]
        /// The members asked for, by position (the first 64; later ones in `askedBeyond`).
        @exclusivity(unchecked) var asked: UInt64 = 0
        @exclusivity(unchecked) var askedBeyond: Set<Int> = []
        /// Keys asked for that the object does not have, for hints; kept only when the key type does not
        /// list its keys itself (a ``DescribedKey`` type's hints come from its cases).
        @exclusivity(unchecked) var askedAbsent: [String] = []
        /// Whether to keep ``askedAbsent``: recording each missing key cost an array for most objects.
        @exclusivity(unchecked) private(set) var recordsAbsent: Bool
        /// Keys the type enumerated (`allKeys`), read as a whole, or abandoned after a problem: not checked.
        @exclusivity(unchecked) var dynamic: Bool

        init(node: CodingPathNode, object: WidgetObject, keyType: any CodingKey.Type, described: Bool, dynamic: Bool) {
            self.node = node
            self.object = object
            keyTypes = [keyType]
            self.dynamic = dynamic
            recordsAbsent = !described
        }

        /// Records that the object is read with `keyType` too.
        func add(_ keyType: any CodingKey.Type, described: Bool) {
            guard !keyTypes.contains(where: { $0 == keyType }) else { return }
            keyTypes.append(keyType)
            if !described { recordsAbsent = true }
        }

        /// The member `key`, asked for whether or not it is there.
        func lookUp(_ key: String) -> WidgetValue? {
            guard let position = object.position(of: key) else {
                if recordsAbsent { askedAbsent.append(key) }
                return nil
            }
            if position < 64 {
                asked |= 1 << UInt64(position)
            } else {
                askedBeyond.insert(position)
            }
            return object.values[position]
        }

        func wasAsked(_ position: Int) -> Bool {
            position < 64 ? asked & (1 << UInt64(position)) != 0 : askedBeyond.contains(position)
        }

        /// Whether every member was asked for.
        var askedAll: Bool {
            let count = object.count
            if count < 64 { return asked == (1 << UInt64(count)) - 1 }
            return asked == .max && askedBeyond.count == count - 64
        }

        /// The members nobody asked for.
        var unasked: [String] {
            object.keys.indices.filter { !wasAsked($0) }.map { object.keys[$0] }
        }

        /// The keys asked for, present or not.
        var askedKeys: [String] {
            object.keys.indices.filter(wasAsked).map { object.keys[$0] } + askedAbsent
        }
    }

    let userInfo: [CodingUserInfoKey: Any]
    let collects: Bool
    let hintKeys: [String]
    /// What templates are compiled with: the `userInfo`'s cache and filters, looked up once.
    let templates: TemplateCache?
    let filters: FilterRegistry
    let root = CodingPathNode(parent: nil, step: nil)
    // Used by one synchronous decode on one thread (see above): no exclusivity checks.
    @exclusivity(unchecked) var containers: [Container] = []
    @exclusivity(unchecked) var problems: [OptionsError] = []
    /// Unknown keys already reported as the misspelling of a missing key, as `path/key`.
    @exclusivity(unchecked) private var reported: Set<String> = []

    deinit {
        // A node and the object opened at it refer to each other: let both go.
        for container in containers { container.node.container = nil }
    }

    /// A tracker for one decode; `templates` and `filters` are those `userInfo` holds (see
    /// ``OptionsDecoder``), looked up once by the decoder rather than for every decode.
    init(userInfo: [CodingUserInfoKey: Any], templates: TemplateCache?, filters: FilterRegistry, collects: Bool, hintKeys: [String]) {
        self.userInfo = userInfo
        self.templates = templates
        self.filters = filters
        self.collects = collects
        self.hintKeys = hintKeys
    }

    /// The object at `node`, opened with `keyType`; `described` says whether the type is a
    /// ``DescribedKey`` type, when the caller knows.
    func open(_ object: WidgetObject, at node: CodingPathNode, keyType: any CodingKey.Type, described: Bool? = nil) -> Container {
        let described = described ?? (keyType is any DescribedKey.Type)
        if let container = node.container {
            container.add(keyType, described: described)
            return container
        }
        let container = Container(node: node, object: object, keyType: keyType, described: described, dynamic: node.claimed)
        containers.append(container)
        node.container = container
        return container
    }

    /// Marks the object at `node` as read whole: nobody asks for its members one by one.
    func claim(_ node: CodingPathNode) {
        node.claimed = true
        node.container?.dynamic = true
    }

    /// Converts whatever a `Decodable` implementation threw into an ``OptionsError``.
    func problem(from error: any Error) -> OptionsError {
        switch error {
        case let error as OptionsError:
            return error
        case let error as DecodingError:
            // A required key that is missing because it is misspelt: name the misspelling instead.
            if case .keyNotFound(let key, let context) = error,
                let misspelt = misspelling(of: key.stringValue, in: context.codingPath)
            {
                return misspelt
            }
            return OptionsError(decodingError: error)
        case let error as ExpressionError:
            return OptionsError(path: .root, message: error.description, expressionColumn: error.column)
        case let error as StageError:
            return OptionsError(path: .root, message: error.message)
        default:
            return OptionsError(path: .root, message: "\(error)")
        }
    }

    /// Records a problem thrown while decoding one member; the objects opened since `mark` were read only
    /// in part, so their unasked keys are not reported.
    func record(_ error: any Error, abandoningFrom mark: Int) {
        problems.append(problem(from: error))
        for container in containers[mark...] { container.dynamic = true }
    }

    /// An unknown key of the object at `codingPath` that is a likely typo of the missing key `missing`.
    private func misspelling(of missing: String, in codingPath: [any CodingKey]) -> OptionsError? {
        let wanted = ValuePath(codingPath: codingPath)
        guard let container = containers.first(where: { !$0.dynamic && $0.node.path == wanted }) else { return nil }
        for key in container.unasked {
            guard Suggestion.closest(to: key, among: [missing]) != nil else { continue }
            reported.insert("\(wanted)/\(key)")
            return OptionsError(
                path: wanted.appending(key),
                message: "unknown key '\(key)'; did you mean '\(missing)'?",
                pointsAtKey: true
            )
        }
        return nil
    }

    /// The keys no type asked for: the first by path, or every one.
    func unknownKeys(all: Bool) -> [OptionsError] {
        var found: [(path: String, error: OptionsError)] = []
        var seen: Set<String> = []
        for container in containers where !container.dynamic && !container.askedAll {
            let unknown = container.unasked
            let path = container.node.path
            let known = knownKeys(of: container)
            for key in unknown {
                let place = "\(path)/\(key)"
                guard !reported.contains(place), seen.insert(place).inserted else { continue }
                let hint = Suggestion.hint(for: key, among: container.node === root ? known + hintKeys : known)
                let list = known.filter { !$0.hasPrefix("$") }.map { "'\($0)'" }.joined(separator: ", ")
                let fix = hint ?? (list.isEmpty ? "this object takes no keys" : "known keys: \(list)")
                let error = OptionsError(path: path.appending(key), message: "unknown key '\(key)'; \(fix)", pointsAtKey: true)
                found.append((path.description, error))
            }
        }
        guard !all else { return found.map(\.error) }
        return found.min { $0.path < $1.path }.map { [$0.error] } ?? []
    }

    /// The keys the object takes: as its ``DescribedKey`` types list them, else those asked for, sorted.
    private func knownKeys(of container: Container) -> [String] {
        func described<Key: DescribedKey>(_ type: Key.Type) -> [String] { Key.allCases.map(\.stringValue) }
        var known: [String] = []
        for keyType in container.keyTypes {
            guard let type = keyType as? any DescribedKey.Type else { return Set(container.askedKeys).sorted() }
            known += described(type)
        }
        return known
    }
}
