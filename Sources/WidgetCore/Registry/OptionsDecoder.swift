import Foundation

/// Decodes a stage's `Decodable` options — and a whole widget definition — from a ``WidgetValue``, strictly.
///
/// Beyond what `Decodable` checks, the decoder rejects object members that the type never asked for, with a
/// "did you mean" hint drawn from the keys it did ask for (in the order a ``DescribedKey`` type lists them,
/// else sorted). Numbers decode exactly into integer types (a fraction is an error, not truncated). Errors
/// become ``OptionsError``s that carry the JSON path of the bad value.
///
/// ```swift
/// struct Options: Decodable { var count: Int; var offset: Int? }
/// let options = try OptionsDecoder().decode(Options.self, from: ["count": 4, "ofset": 1])
/// // throws: $.ofset: unknown key 'ofset'; did you mean 'offset'?
/// ```
///
/// ``decode(_:from:problems:)`` reads on past problems instead of stopping at the first: the definition's
/// types report each bad member and go on, so one read of a definition reports every problem in it.
public struct OptionsDecoder: Sendable {
    /// Values handed to `Decodable` implementations through `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] {
        didSet { plainUserInfo = Self.plain(userInfo) }
    }

    /// ``userInfo`` as `Decoder.userInfo` types it, converted once rather than for every decode.
    private var plainUserInfo: PlainUserInfo

    /// More keys to suggest when a key of the top-level object is unknown: those its owner reads beside
    /// the options (a source's `when`), which the options type never asks for. Not listed as known keys.
    public var hintKeys: [String] = []

    public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.userInfo = userInfo
        plainUserInfo = Self.plain(userInfo)
    }

    private static func plain(_ userInfo: [CodingUserInfoKey: any Sendable]) -> PlainUserInfo {
        var plain: [CodingUserInfoKey: Any] = [:]
        for (key, value) in userInfo { plain[key] = value }
        return PlainUserInfo(values: plain)
    }

    /// An immutable copy of `Sendable` values, typed as `Any` for `Decoder.userInfo`.
    private final class PlainUserInfo: @unchecked Sendable {
        let values: [CodingUserInfoKey: Any]

        init(values: [CodingUserInfoKey: Any]) {
            self.values = values
        }
    }

    /// Decodes `type` from `value`.
    ///
    /// - Throws: ``OptionsError`` naming the path of the first bad or unknown value.
    public func decode<T: Decodable>(_ type: T.Type, from value: WidgetValue) throws(OptionsError) -> T {
        let tracker = KeyTracker(userInfo: plainUserInfo.values, collects: false, hintKeys: hintKeys)
        let result: T
        do {
            result = try ValueDecoder(value: value, node: tracker.root, tracker: tracker).decode(T.self)
        } catch {
            throw tracker.problem(from: error)
        }
        if let unknown = tracker.unknownKeys(all: false).first { throw unknown }
        return result
    }

    /// Decodes `type` from `value`, appending every problem to `problems`: the bad members a type reports
    /// through ``DescribedMembers`` (reading on past each), then every unknown key.
    ///
    /// - Returns: the value, or `nil` when a problem left it impossible to make.
    public func decode<T: Decodable>(_ type: T.Type, from value: WidgetValue, problems: inout [OptionsError]) -> T? {
        let tracker = KeyTracker(userInfo: plainUserInfo.values, collects: true, hintKeys: hintKeys)
        var result: T?
        do {
            result = try ValueDecoder(value: value, node: tracker.root, tracker: tracker).decode(T.self)
        } catch {
            tracker.record(error, abandoningFrom: 0)
        }
        problems += tracker.problems
        problems += tracker.unknownKeys(all: true)
        return result
    }
}

extension OptionsError {
    /// Converts a `DecodingError` into a sentence with a path.
    public init(decodingError error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            let path = ValuePath(codingPath: context.codingPath)
            self.init(path: path, message: "missing required key '\(key.stringValue)'")
        case .valueNotFound(let type, let context):
            self.init(
                path: ValuePath(codingPath: context.codingPath),
                message: "expected \(OptionsError.describe(type)), found null"
            )
        case .typeMismatch(let type, let context):
            let found = context.debugDescription.hasPrefix("found ") ? ", \(context.debugDescription)" : ""
            self.init(
                path: ValuePath(codingPath: context.codingPath),
                message: "expected \(OptionsError.describe(type))\(found)"
            )
        case .dataCorrupted(let context):
            let path = ValuePath(codingPath: context.codingPath)
            if let expression = context.underlyingError as? ExpressionError {
                self.init(path: path, message: expression.description, expressionColumn: expression.column)
            } else if let options = context.underlyingError as? OptionsError {
                self = options
                self.path = path.appending(options.path)
            } else {
                self.init(path: path, message: context.debugDescription)
            }
        @unknown default:
            self.init(path: .root, message: "\(error)")
        }
    }

    static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type, is UInt64.Type: "a whole number"
        case is Double.Type, is Float.Type, is Decimal.Type: "a number"
        case is [Any].Type: "an array"
        default:
            if "\(type)".hasPrefix("Array<") { "an array" }
            else if "\(type)".hasPrefix("Dictionary<") { "an object" }
            else { "a value of type \(type)" }
        }
    }
}

// MARK: - Key tracking

/// Where a decoder is: the root, or a key or index below its parent. Made once per member decoded, and
/// turned into a coding path only when a problem needs one.
final class CodingPathNode {
    enum Step {
        case key(any CodingKey)
        case index(Int)
    }

    let parent: CodingPathNode?
    let step: Step?
    /// The object opened at this place, so that opening it again asks into the same one.
    var container: KeyTracker.Container?
    /// Whether the object here was read whole (as a ``WidgetValue``): its members are someone else's.
    var claimed = false

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
        var components: [ValuePath.Component] = []
        var current: CodingPathNode? = self
        while let node = current {
            switch node.step {
            case .key(let key)?: components.append(key.intValue.map(ValuePath.Component.index) ?? .key(key.stringValue))
            case .index(let index)?: components.append(.index(index))
            case nil: break
            }
            current = node.parent
        }
        return ValuePath(components: components.reversed())
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
        let keyType: any CodingKey.Type
        /// The members asked for, by position (the first 64; later ones in `askedBeyond`).
        var asked: UInt64 = 0
        var askedBeyond: Set<Int> = []
        /// Keys asked for that the object does not have, for hints.
        var askedAbsent: [String] = []
        /// Keys the type enumerated (`allKeys`), read as a whole, or abandoned after a problem: not checked.
        var dynamic: Bool

        init(node: CodingPathNode, object: WidgetObject, keyType: any CodingKey.Type, dynamic: Bool) {
            self.node = node
            self.object = object
            self.keyType = keyType
            self.dynamic = dynamic
        }

        /// The member `key`, asked for whether or not it is there.
        func lookUp(_ key: String) -> WidgetValue? {
            guard let position = object.position(of: key) else {
                askedAbsent.append(key)
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
    var containers: [Container] = []
    var problems: [OptionsError] = []
    /// Unknown keys already reported as the misspelling of a missing key, as `path/key`.
    private var reported: Set<String> = []

    init(userInfo: [CodingUserInfoKey: Any], collects: Bool, hintKeys: [String]) {
        self.userInfo = userInfo
        self.collects = collects
        self.hintKeys = hintKeys
        templates = userInfo[TemplateCache.userInfoKey] as? TemplateCache
        filters = templates?.filters ?? userInfo[FilterRegistry.userInfoKey] as? FilterRegistry ?? .standard
    }

    func open(_ object: WidgetObject, at node: CodingPathNode, keyType: any CodingKey.Type) -> Container {
        if let container = node.container { return container }
        let container = Container(node: node, object: object, keyType: keyType, dynamic: node.claimed)
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

    /// The keys the object takes: as a ``DescribedKey`` type lists them, else those asked for, sorted.
    private func knownKeys(of container: Container) -> [String] {
        func described<Key: DescribedKey>(_ type: Key.Type) -> [String] { Key.allCases.map(\.stringValue) }
        if let type = container.keyType as? any DescribedKey.Type { return described(type) }
        return Set(container.askedKeys).sorted()
    }
}

// MARK: - Decoder

/// The decoder of one value. Types of this module that read a definition use it directly
/// (``ValueDecoder/init(_:)``) to record problems and read on.
struct ValueDecoder: Decoder {
    let value: WidgetValue
    let node: CodingPathNode
    let tracker: KeyTracker

    init(value: WidgetValue, node: CodingPathNode, tracker: KeyTracker) {
        self.value = value
        self.node = node
        self.tracker = tracker
    }

    /// `decoder` as the options decoder.
    ///
    /// - Throws: ``OptionsError`` when it is another decoder: a definition is read with ``OptionsDecoder``.
    init(_ decoder: any Decoder) throws {
        guard let decoder = decoder as? ValueDecoder else {
            throw OptionsError(path: ValuePath(codingPath: decoder.codingPath), message: "a definition is read with OptionsDecoder")
        }
        self = decoder
    }

    var codingPath: [any CodingKey] { node.codingPath }
    var path: ValuePath { node.path }
    var userInfo: [CodingUserInfoKey: Any] { tracker.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw DecodingError.typeMismatch(
                [String: Any].self,
                .init(codingPath: codingPath, debugDescription: "found \(value.typeName)")
            )
        }
        let container = tracker.open(object, at: node, keyType: Key.self)
        return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, container: container))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let array) = value else {
            throw DecodingError.typeMismatch(
                [Any].self,
                .init(codingPath: codingPath, debugDescription: "found \(value.typeName)")
            )
        }
        return UnkeyedContainer(decoder: self, array: array)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleContainer(decoder: self)
    }

    func child(_ value: WidgetValue, key: any CodingKey) -> ValueDecoder {
        ValueDecoder(value: value, node: CodingPathNode(parent: node, step: .key(key)), tracker: tracker)
    }

    func child(_ value: WidgetValue, index: Int) -> ValueDecoder {
        ValueDecoder(value: value, node: CodingPathNode(parent: node, step: .index(index)), tracker: tracker)
    }

    // MARK: Reading on past problems

    /// The value, whole: its members are the reader's, not checked one by one.
    func claim() -> WidgetValue {
        if case .object = value { tracker.claim(node) }
        return value
    }

    /// Runs `body`, which decodes one member. When the decoder reads on past problems
    /// (``OptionsDecoder/decode(_:from:problems:)``), a problem it throws is recorded and `nil` returned;
    /// otherwise the problem is thrown.
    func recovering<T>(_ body: () throws -> T?) throws -> T? {
        guard tracker.collects else { return try body() }
        let mark = tracker.containers.count
        do {
            return try body()
        } catch {
            tracker.record(error, abandoningFrom: mark)
            return nil
        }
    }

    /// Reports `problem`: recorded when the decoder reads on past problems, thrown otherwise.
    func report(_ problem: OptionsError) throws {
        guard tracker.collects else { throw problem }
        tracker.problems.append(problem)
    }

    // MARK: Scalars

    func mismatch(_ type: Any.Type) -> DecodingError {
        DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: "found \(value.typeName)"))
    }

    func decodeBool() throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(Bool.self) }
        return flag
    }

    func decodeString() throws -> String {
        guard case .string(let string) = value else { throw mismatch(String.self) }
        return string
    }

    func decodeNumber() throws -> WidgetNumber {
        guard case .number(let number) = value else { throw mismatch(Double.self) }
        return number
    }

    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .number(let number) = value else { throw mismatch(Int.self) }
        guard let int = number.int, let result = T(exactly: int) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "\(number) is not a whole number in range")
            )
        }
        return result
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == String.self { return try decodeString() as! T }
        // A free-form value: any members are welcome.
        if T.self == WidgetValue.self { return claim() as! T }
        if T.self == Int.self { return try decodeInteger(Int.self) as! T }
        if T.self == Bool.self { return try decodeBool() as! T }
        if T.self == WidgetNumber.self { return try decodeNumber() as! T }
        if T.self == Decimal.self {
            guard let decimal = try decodeNumber().decimal else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "number out of range"))
            }
            return decimal as! T
        }
        if T.self == Date.self {
            let text = try decodeString()
            guard let date = try? Date(text, strategy: .iso8601) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: codingPath,
                        debugDescription: "\"\(text)\" is not an ISO 8601 date; write e.g. \"2026-11-22T08:00:00Z\""
                    )
                )
            }
            return date as! T
        }
        if T.self == URL.self {
            let text = try decodeString()
            guard let url = URL(string: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\"\(text)\" is not a URL"))
            }
            return url as! T
        }
        let result = try T(from: self)
        // A type that never opened this object (an options type without properties) asked for no keys, so
        // every member is unknown.
        if case .object(let object) = value, node.container == nil, !node.claimed {
            _ = tracker.open(object, at: node, keyType: AnyCodingKey.self)
        }
        return result
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ValueDecoder
    let container: KeyTracker.Container

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        container.dynamic = true
        return container.object.keys.compactMap { Key(stringValue: $0) }
    }

    /// The member `key`, asked for (whether or not it is there).
    private func lookUp(_ key: Key) -> WidgetValue? {
        container.lookUp(key.stringValue)
    }

    private func required(_ key: Key) throws -> WidgetValue {
        guard let value = lookUp(key) else {
            throw DecodingError.keyNotFound(
                key,
                .init(codingPath: codingPath, debugDescription: "missing key '\(key.stringValue)'")
            )
        }
        return value
    }

    func contains(_ key: Key) -> Bool {
        lookUp(key) != nil
    }

    func member(_ key: Key) throws -> ValueDecoder {
        decoder.child(try required(key), key: key)
    }

    /// The member `key` when it is there and not null.
    private func present(_ key: Key) -> WidgetValue? {
        guard let value = lookUp(key), !value.isNull else { return nil }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        lookUp(key)?.isNull ?? true
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let child = try member(key)
        if child.value.isNull, T.self != WidgetValue.self {
            throw DecodingError.valueNotFound(type, .init(codingPath: child.codingPath, debugDescription: "null"))
        }
        return try child.decode(type)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = present(key) else { return nil }
        return try decoder.child(value, key: key).decode(type)
    }

    // Scalars are read in place; a member decoder (for its path) is made only for a problem.

    private func string(_ value: WidgetValue, _ key: Key) throws -> String {
        if case .string(let text) = value { return text }
        return try decoder.child(value, key: key).decodeString()
    }

    private func bool(_ value: WidgetValue, _ key: Key) throws -> Bool {
        if case .bool(let flag) = value { return flag }
        return try decoder.child(value, key: key).decodeBool()
    }

    private func integer<T: FixedWidthInteger>(_ value: WidgetValue, _ key: Key, as type: T.Type) throws -> T {
        if case .number(let number) = value, let int = number.int, let result = T(exactly: int) { return result }
        return try decoder.child(value, key: key).decodeInteger(type)
    }

    private func number(_ value: WidgetValue, _ key: Key) throws -> WidgetNumber {
        if case .number(let number) = value { return number }
        return try decoder.child(value, key: key).decodeNumber()
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try present(key).map { try string($0, key) } }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try present(key).map { try bool($0, key) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try present(key).map { try integer($0, key, as: type) } }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try present(key).map { try number($0, key).double } }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try bool(try required(key), key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try string(try required(key), key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try number(try required(key), key).double }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try number(try required(key), key).double) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(try required(key), key, as: type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(try required(key), key, as: type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(try required(key), key, as: type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(try required(key), key, as: type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(try required(key), key, as: type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(try required(key), key, as: type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(try required(key), key, as: type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(try required(key), key, as: type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(try required(key), key, as: type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(try required(key), key, as: type) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try member(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try member(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { try member(key) }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: ValueDecoder
    let array: [WidgetValue]
    var currentIndex = 0

    init(decoder: ValueDecoder, array: [WidgetValue]) {
        self.decoder = decoder
        self.array = array
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { array.count }
    var isAtEnd: Bool { currentIndex >= array.count }

    mutating func next() throws -> ValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                WidgetValue.self,
                .init(codingPath: codingPath, debugDescription: "the array has too few elements")
            )
        }
        defer { currentIndex += 1 }
        return decoder.child(array[currentIndex], index: currentIndex)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, array[currentIndex].isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decode(type) }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decodeBool() }
    mutating func decode(_ type: String.Type) throws -> String { try next().decodeString() }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().decodeNumber().double }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().decodeInteger(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next() }
}

private struct SingleContainer: SingleValueDecodingContainer {
    let decoder: ValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool() }
    func decode(_ type: String.Type) throws -> String { try decoder.decodeString() }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decodeNumber().double }
    func decode(_ type: Float.Type) throws -> Float { Float(try decoder.decodeNumber().double) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(type) }
}
